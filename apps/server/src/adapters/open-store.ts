import type { StoreLocation } from '../config/store-location.js';
import type { Store } from '../ports/store.js';
import type { StoreObserver } from '../ports/store-observer.js';
import { openSqliteStore, type StoreLogger } from './sqlite/open.js';

export type { StoreLogger } from './sqlite/open.js';

/** Options for whichever adapter the location picks; each takes what applies to it. */
export interface OpenStoreOptions {
  readonly logger?: StoreLogger;
  /** What the adapter reports for metrics (group-commit batches, pool waits). */
  readonly observer?: StoreObserver;
  /** SQLite only: `FULL` (default, durable against power loss) or `NORMAL`. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** SQLite only: sync the WAL off the event loop (default) or inside COMMIT (false; see SqliteStoreOptions). */
  readonly syncOffEventLoop?: boolean;
  /** PostgreSQL only: the database itself when the URL is a pooler's (DATABASE_DIRECT_URL); see PostgresStoreOptions. */
  readonly directUrl?: string;
  /** PostgreSQL only: connections in the pool (PG_POOL_SIZE); the adapter's default 10. */
  readonly poolSize?: number;
  /** PostgreSQL only: longest wait for the pool before a 503 (PG_ACQUIRE_TIMEOUT_MS); default 5000. */
  readonly acquireTimeoutMs?: number;
  /** PostgreSQL only: `statement_timeout` (PG_STATEMENT_TIMEOUT_MS); default 10000. */
  readonly statementTimeoutMs?: number;
  /** PostgreSQL only: how long a found token is reused (PG_TOKEN_CACHE_MS); default 1000, 0 = off. */
  readonly tokenCacheMs?: number;
  /** How long a keyed create's outcome is kept (IDEMPOTENCY_TTL_SECONDS); default 86400. */
  readonly idempotencyTtlSeconds?: number;
  /** SQLite only: called after a commit that wrote webhook deliveries is durable. */
  readonly onEvents?: () => void;
}

/** Opens the store at `location` (DATABASE_URL, decoded by config/store-location.ts). */
export async function openStore(location: StoreLocation, options: OpenStoreOptions = {}): Promise<Store> {
  if (location.kind === 'postgres') {
    // Loaded only when asked for, so a SQLite deployment never loads the PostgreSQL driver.
    const { openPostgresStore } = await import('./postgres/open.js');
    const {
      logger,
      observer,
      directUrl,
      poolSize,
      acquireTimeoutMs,
      statementTimeoutMs,
      tokenCacheMs,
      idempotencyTtlSeconds,
    } = options;
    return openPostgresStore({
      url: location.url,
      ...(directUrl === undefined ? {} : { directUrl }),
      ...(logger === undefined ? {} : { logger }),
      ...(observer === undefined ? {} : { observer }),
      ...(poolSize === undefined ? {} : { poolSize }),
      ...(acquireTimeoutMs === undefined ? {} : { acquireTimeoutMs }),
      ...(statementTimeoutMs === undefined ? {} : { statementTimeoutMs }),
      ...(tokenCacheMs === undefined ? {} : { tokenCacheMs }),
      ...(idempotencyTtlSeconds === undefined ? {} : { idempotencyTtlSeconds }),
    });
  }
  const { logger, observer, synchronous, syncOffEventLoop, idempotencyTtlSeconds, onEvents } = options;
  return openSqliteStore({
    file: location.file,
    ...(onEvents === undefined ? {} : { onEvents }),
    ...(logger === undefined ? {} : { logger }),
    ...(observer === undefined ? {} : { observer }),
    ...(synchronous === undefined ? {} : { synchronous }),
    ...(syncOffEventLoop === undefined ? {} : { syncOffEventLoop }),
    ...(idempotencyTtlSeconds === undefined ? {} : { idempotencyTtlSeconds }),
  });
}
