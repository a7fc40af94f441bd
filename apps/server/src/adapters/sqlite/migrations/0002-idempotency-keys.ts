import type { SqliteMigration } from './sqlite-migration.js';

export const migration0002: SqliteMigration = {
  version: 2,
  name: 'idempotency keys',
  // One row per (owner, key): the outcome a keyed create saved, in the transaction of the
  // plant. `request` is the create's canonical JSON (idempotency/canonical-request.ts): what a later
  // request must equal, and the name and tag of the plant a 201 created (`plant_id`); a 409
  // names the taken id. Rows past `expires_at` (ms) are ignored, overwritten by the key's next
  // use, and purged by a sweep in key order. WITHOUT ROWID and no index on `expires_at`: one
  // b-tree to write per keyed create (each b-tree adds to the cost of every create; the sweep
  // reads the table instead, a few hundred keys a step).
  sql: `
      CREATE TABLE idempotency_keys (
        owner       TEXT NOT NULL,
        key         TEXT NOT NULL,
        request     TEXT NOT NULL,
        status      INTEGER NOT NULL CHECK (status IN (201, 409)),
        plant_id    INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL,
        PRIMARY KEY (owner, key)
      ) STRICT, WITHOUT ROWID;
    `,
};
