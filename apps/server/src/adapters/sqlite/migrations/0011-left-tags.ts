import { CHANGE_DELETE_TRIGGER_WITH_LEFT_TAG, changeTriggersWithLeftTagOf } from './change-triggers.js';
import type { SqliteMigration } from './sqlite-migration.js';

export const migration0011: SqliteMigration = {
  version: 11,
  name: 'the tag each change took its plant away from, and the change log by tag',
  // A feed of one tag (GET /plants/changes?tag=T) shows the changes of plants that have T before
  // or after the change; `tag` says after, and `left_tag` remembers the tag a change took its
  // plant away from (docs/explanation/storage.md, "The change log"): an update that changed the
  // tag, the tag before; a delete, the tag the plant had; else NULL. Two partial indexes by tag
  // make a subset's page cost its matching changes, not the log's length.
  //
  // Expand only: the tables keep every column the release before reads and writes (it never
  // names left_tag nor untagged_through), and the triggers, which every writer runs, fill the new
  // column. The changes already logged get their left tag from the change before them of the
  // same plant; where that change is no longer in the log (forgotten, or made before migration 8)
  // the left tag is unknown, and `untagged_through` keeps the newest such number: a feed of one
  // tag from below it answers 410, as if those changes were forgotten.
  //
  // The plant's columns are listed as they are at this migration (a released migration never
  // changes); one that adds a column drops the insert and update triggers and calls
  // changeTriggersWithLeftTagOf with the longer list.
  sql: `
      ALTER TABLE plant_changes ADD COLUMN left_tag TEXT;
      ALTER TABLE plant_change_state ADD COLUMN untagged_through INTEGER NOT NULL DEFAULT 0;
      CREATE TEMP TABLE plant_changes_before AS
        SELECT seq, type, tag, lag(tag) OVER w AS tag_before, lag(seq) OVER w AS seq_before
          FROM plant_changes WINDOW w AS (PARTITION BY plant_id ORDER BY seq);
      UPDATE plant_changes SET left_tag = b.tag_before
        FROM plant_changes_before b
       WHERE b.seq = plant_changes.seq AND b.seq_before IS NOT NULL AND b.tag_before IS NOT NULL
         AND (b.type = 'plant.deleted' OR (b.type = 'plant.updated' AND b.tag_before IS NOT b.tag));
      UPDATE plant_change_state SET untagged_through = coalesce(
        (SELECT max(seq) FROM plant_changes_before WHERE type <> 'plant.created' AND seq_before IS NULL), 0);
      DROP TABLE plant_changes_before;
      CREATE INDEX plant_changes_by_tag ON plant_changes (tag, seq) WHERE tag IS NOT NULL;
      CREATE INDEX plant_changes_by_left_tag ON plant_changes (left_tag, seq) WHERE left_tag IS NOT NULL;
      DROP TRIGGER plant_changes_insert;
      DROP TRIGGER plant_changes_update;
      DROP TRIGGER plant_changes_delete;
      ${changeTriggersWithLeftTagOf(['name', 'tag'])}
      ${CHANGE_DELETE_TRIGGER_WITH_LEFT_TAG}
    `,
};
