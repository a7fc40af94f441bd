import type { PostgresMigration } from './postgres-migration.js';

export const migration0001: PostgresMigration = {
  version: 1,
  name: 'plants, plant id counter and tokens',
  sql: `
      CREATE TABLE plants (
        id   int8 PRIMARY KEY CHECK (id BETWEEN 1 AND 9007199254740991),
        name text NOT NULL,
        tag  text
      );
      CREATE TABLE plant_id_counter (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        next_id   int8 NOT NULL CHECK (next_id >= 1)
      );
      INSERT INTO plant_id_counter (singleton, next_id) VALUES (true, 1);
      CREATE TABLE tokens (
        id         text PRIMARY KEY,
        name       text NOT NULL UNIQUE,
        scopes     jsonb NOT NULL,
        hash       bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz
      );
    `,
};
