import type { SqliteMigration } from './sqlite-migration.js';

export const migration0001: SqliteMigration = {
  version: 1,
  name: 'plants and tokens',
  sql: `
      CREATE TABLE plants (
        id   INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        tag  TEXT
      ) STRICT;
      CREATE TABLE plant_ids (
        singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
        high_water INTEGER NOT NULL,
        gap_cursor INTEGER NOT NULL
      ) STRICT;
      INSERT INTO plant_ids (singleton, high_water, gap_cursor) VALUES (1, 0, 0);
      CREATE TABLE tokens (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL UNIQUE,
        scopes     TEXT NOT NULL,
        hash       BLOB NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      ) STRICT;
    `,
};
