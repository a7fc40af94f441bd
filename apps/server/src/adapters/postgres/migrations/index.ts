import { migration0001 } from './0001-plants-and-tokens.js';
import { migration0002 } from './0002-gap-cursor.js';
import { migration0003 } from './0003-idempotency-keys.js';
import { migration0004 } from './0004-webhooks.js';
import { migration0005 } from './0005-plant-versions.js';
import { migration0006 } from './0006-folded-names.js';
import { migration0007 } from './0007-trace-context.js';
import { migration0008 } from './0008-change-log.js';
import { migration0009 } from './0009-whole-plant.js';
import { migration0010, MIGRATION_10_COLUMNS } from './0010-write-positions.js';
import { migration0011 } from './0011-left-tags.js';
import { migration0012, MIGRATION_12_COLUMNS } from './0012-plant-batches.js';
import type { PostgresMigration } from './postgres-migration.js';

/**
 * The schema, as an append-only list, one migration per file: a released migration is never
 * edited, a change is a new version in a new file (index.test.ts holds each released one's text).
 * `schema_migrations` records which versions ran.
 *
 * - `plants.id` is `int8` kept within the contract's 1 … 2^53−1 by a CHECK.
 * - `plant_id_counter` is the high-water mark for server-assigned ids: one row, `next_id` one
 *   more than the largest id ever stored (client-chosen ids included, deletes never lower it), so
 *   an assigned id never collides and never reuses a deleted id. A sequence would not do: an
 *   explicit id does not advance it, and `setval` races with `nextval`.
 * - `tokens` live here too, so a token issued with the CLI works on every instance.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0010,
  migration0011,
  migration0012,
];

/**
 * The write function this release calls for keys, updates, replaces, deletes and conditions, and the plant
 * columns it was made for (plant-columns.test.ts: they must be the codec's members). A migration
 * that adds a plant column makes a new version of the function and names it here.
 */
export const PLANT_WRITE_FUNCTION = { name: 'plant_store_write_v4', columns: MIGRATION_10_COLUMNS } as const;

/**
 * The function this release calls for an array of creates (POST /plants/batch) and the plant
 * columns it was made for (plant-columns.test.ts: they must be the codec's members). A migration
 * that adds a plant column makes a new version of it and names it here.
 */
export const PLANT_BATCH_FUNCTION = { name: 'plant_store_create_batch_v1', columns: MIGRATION_12_COLUMNS } as const;
