import type { PostgresMigration } from './postgres-migration.js';

export const migration0002: PostgresMigration = {
  version: 2,
  name: 'gap cursor for server-assigned ids past 2^53-1',
  // Where the search for a free id starts once the high-water mark has passed 2^53−1.
  sql: `ALTER TABLE plant_id_counter ADD COLUMN gap_cursor int8 NOT NULL DEFAULT 0 CHECK (gap_cursor >= 0)`,
};
