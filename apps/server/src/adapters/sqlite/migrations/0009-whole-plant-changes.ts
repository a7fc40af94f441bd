import { changeTriggersOf } from './change-triggers.js';
import type { SqliteMigration } from './sqlite-migration.js';

export const migration0009: SqliteMigration = {
  version: 9,
  name: 'the change log compares the whole plant',
  // Migration 8's update trigger fired on `UPDATE OF name, tag` only, so a change of any other
  // plant column would never be logged, even once its WHEN compared it. The insert and update
  // triggers are made again by changeTriggersOf (docs/explanation/storage.md, "The plant's
  // columns"): the update trigger has no column list and compares every plant column. The plant's
  // columns are listed here as they are at this migration (a released migration never changes);
  // one that adds a column drops these two triggers and calls changeTriggersOf with the longer
  // list. The tables are unchanged, so the release before keeps working on the file.
  sql: `
      DROP TRIGGER plant_changes_insert;
      DROP TRIGGER plant_changes_update;
      ${changeTriggersOf(['name', 'tag'])}
    `,
};
