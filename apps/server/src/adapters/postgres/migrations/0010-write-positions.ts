import type { PostgresMigration } from './postgres-migration.js';
import type { WriteFunctionColumn } from './write-function-v3.js';
import { writeFunctionV4 } from './write-function-v4.js';

/**
 * The plant's columns as this migration knows them (a released migration never changes): what
 * plant_store_write_v4 is made for. PLANT_WRITE_FUNCTION (index.ts) names the function the server
 * calls and these columns; plant-columns.test.ts fails when they differ from the codec's members.
 */
export const MIGRATION_10_COLUMNS: readonly WriteFunctionColumn[] = [
  { field: 'name', kind: 'text', type: 'text' },
  { field: 'tag', kind: 'text', type: 'text' },
];

export const migration0010: PostgresMigration = {
  version: 10,
  name: "each write's change number, saved with its key; replacing a plant in plant_store_write_v4",
  // Expand only: the release before keeps calling plant_store_write_v3, which leaves the new
  // column NULL (a replay of such a key carries no X-Change-Seq), and its writes are numbered by
  // the same triggers as this release's. plant_store_write_v3 stays until no release uses it.
  //
  // `change_seq` is the change number of the create a key saved (X-Change-Seq of its 201, sent
  // again on a replay; NULL for a 409, and for keys saved before). plant_store_write_v4
  // (write-function-v4.ts) is v3 with PUT's replace-or-create and each write's change number,
  // which it keeps in an array of plant_store_write_v4_row between its two statements.
  sql: `
      ALTER TABLE idempotency_keys ADD COLUMN change_seq int8;
${writeFunctionV4('plant_store_write_v4', 'plant_store_write_v4_row', MIGRATION_10_COLUMNS)}    `,
};
