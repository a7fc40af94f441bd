import { fileURLToPath } from 'node:url';
import type { Store } from '../ports/store.js';
import type { StoreObserver } from '../ports/store-observer.js';
import { openSqliteStore, type StoreLogger } from './sqlite/open.js';

export type { StoreLogger } from './sqlite/open.js';

/** Options for whichever adapter the URL picks; each takes what applies to it. */
export interface OpenStoreOptions {
  readonly logger?: StoreLogger;
  /** What the adapter reports for metrics (group-commit batches, pool waits). */
  readonly observer?: StoreObserver;
  /** SQLite only: `FULL` (default, durable against power loss) or `NORMAL`. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** SQLite only: sync the WAL off the event loop (default) or inside COMMIT (false; see SqliteStoreOptions). */
  readonly syncOffEventLoop?: boolean;
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

/** Where a DATABASE_URL points. */
export type StoreLocation =
  | { readonly kind: 'sqlite'; readonly file: string }
  | { readonly kind: 'postgres'; readonly url: string };

/**
 * Reads a DATABASE_URL: `sqlite:<path>`, `sqlite://<path>` (so `sqlite:///abs/file.db` is an
 * absolute path), `sqlite::memory:`, `file:` URLs, or a plain file path → SQLite;
 * `postgres://…` / `postgresql://…` → PostgreSQL. Anything else throws a TypeError naming it.
 */
export const parseDatabaseUrl = (databaseUrl: string): StoreLocation => {
  const url = databaseUrl.trim();
  if (url === '') throw new TypeError('DATABASE_URL is empty: expected sqlite:<path>, a file path or postgres://…');
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', url };
  const sqlite = /^sqlite:(.*)$/is.exec(url);
  if (sqlite !== null) {
    const rest = sqlite[1] ?? '';
    const file = rest.startsWith('//') ? rest.slice(2) : rest;
    if (file === '') throw new TypeError(`DATABASE_URL ${url} names no file: expected sqlite:<path> or sqlite::memory:`);
    return { kind: 'sqlite', file };
  }
  if (/^file:/i.test(url)) return { kind: 'sqlite', file: fileURLToPath(url) };
  // A scheme we do not know (but not a Windows drive letter such as C:\).
  if (/^[a-z][a-z0-9+.-]+:/i.test(url)) {
    throw new TypeError(`DATABASE_URL has an unsupported scheme (${url.split(':')[0]}:): expected sqlite:, postgres:// or a file path`);
  }
  return { kind: 'sqlite', file: url };
};

/** Opens the store DATABASE_URL names (see parseDatabaseUrl). */
export async function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'postgres') {
    // Loaded only when asked for, so a SQLite deployment never loads the PostgreSQL driver.
    const { openPostgresStore } = await import('./postgres/open.js');
    const { logger, observer, poolSize, acquireTimeoutMs, statementTimeoutMs, tokenCacheMs, idempotencyTtlSeconds } = options;
    return openPostgresStore({
      url: location.url,
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
