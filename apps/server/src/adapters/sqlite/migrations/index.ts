import { migration0001 } from './0001-plants-and-tokens.js';
import { migration0002 } from './0002-idempotency-keys.js';
import { migration0003 } from './0003-webhooks.js';
import { migration0004 } from './0004-plant-versions.js';
import { migration0005 } from './0005-folded-names.js';
import { migration0006 } from './0006-trace-context.js';
import { migration0007 } from './0007-search-index-behind-writes.js';
import { migration0008 } from './0008-change-log.js';
import { migration0009 } from './0009-whole-plant-changes.js';
import { migration0010 } from './0010-key-change-numbers.js';
import { migration0011 } from './0011-left-tags.js';
import type { SqliteMigration } from './sqlite-migration.js';

/**
 * The schema, oldest first, one migration per file: a released migration is never edited, a
 * change is a new version in a new file (index.test.ts holds each released one's text). Ids are
 * INTEGER PRIMARY KEY (the rowid: seeks by id and `id > ?` ranges use the table's own b-tree).
 * `plant_ids` keeps the high-water mark of every id ever stored, so server-assigned ids never
 * collide with client-chosen ones nor reuse deleted ones. Timestamps are milliseconds since the
 * epoch; token scopes are space-separated.
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
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
];
