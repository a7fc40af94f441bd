import { changeTriggers } from './change-triggers.js';
import type { SqliteMigration } from './sqlite-migration.js';

export const migration0008: SqliteMigration = {
  version: 8,
  name: 'the change log',
  // Every committed change of a plant, numbered in commit order over the whole file
  // (GET /plants/changes; docs/explanation/storage.md, "The change log"). Triggers fill it, so
  // every writer does: this release, an earlier one (a rollback), the data commands. SQLite has
  // one writer at a time, so a number drawn in the write's transaction is in commit order.
  // `last_seq` is the newest number ever given (kept when the changes are forgotten), and
  // `forgotten_through` the newest number forgotten (the retention): a reader behind it has
  // missed changes. A rename that keeps name and tag (the refold of plants_name_unfolded) is
  // not a change; `at` is the commit time in milliseconds.
  sql: `
      CREATE TABLE plant_change_state (
        singleton         INTEGER PRIMARY KEY CHECK (singleton = 1),
        last_seq          INTEGER NOT NULL,
        forgotten_through INTEGER NOT NULL
      ) STRICT;
      INSERT INTO plant_change_state (singleton, last_seq, forgotten_through) VALUES (1, 0, 0);
      CREATE TABLE plant_changes (
        seq      INTEGER PRIMARY KEY,
        type     TEXT NOT NULL,
        plant_id INTEGER NOT NULL,
        name     TEXT,
        tag      TEXT,
        version  INTEGER,
        at       INTEGER NOT NULL
      ) STRICT;
      ${changeTriggers}
    `,
};
