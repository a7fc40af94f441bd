import type { SqliteMigration } from './sqlite-migration.js';

export const migration0004: SqliteMigration = {
  version: 4,
  name: 'plant versions and the tag index',
  // The version an ETag is made of: `plant_ids.revision` is a store-wide counter, advanced in
  // the transaction of every create and of every update that changes a plant, whose new value
  // the plant takes. A value is never given twice, so a deleted and re-created id never gets
  // an ETag it had before. Plants stored before this migration have version 0 (the counter
  // starts above it); a key saved before it replays its 201 with version 0, the plant's
  // version at its creation as this migration sees it. Versions are now reserved in blocks, and
  // the column holds the end of the block reserved last (plant-ids.ts, VERSION_BLOCK): every value handed out
  // is at or below it, so counting on above it after a restart still never gives one twice.
  // The tag filter pages through (tag, id), partial so that untagged plants cost nothing.
  sql: `
      ALTER TABLE plants ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE plant_ids ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE idempotency_keys ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX plants_tag ON plants (tag, id) WHERE tag IS NOT NULL;
    `,
};
