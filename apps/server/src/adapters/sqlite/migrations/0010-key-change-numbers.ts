import type { SqliteMigration } from './sqlite-migration.js';

export const migration0010: SqliteMigration = {
  version: 10,
  name: "each keyed create's change number, saved with its key",
  // The change number of the create a key saved: its 201's X-Change-Seq, sent again on a replay
  // (docs/reference/api.md). NULL for a 409, and for keys saved before this migration (or by the
  // release before, which does not write it: a replay of such a key carries no X-Change-Seq).
  // Expand only: the release before keeps working on the file.
  sql: `
      ALTER TABLE idempotency_keys ADD COLUMN change_seq INTEGER;
    `,
};
