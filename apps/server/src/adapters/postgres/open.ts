import { DEFAULT_IDEMPOTENCY_TTL_SECONDS } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
// The `postgres` driver (porsager), not `pg`: it pipelines queries over each connection (a
// request's query need not wait for the previous one's answer, so a small pool serves many
// concurrent requests), prepares statements automatically, and has no pool-level 'error' event
// that crashes the process when the database restarts (failures reject the query's own promise).
// Its gaps in 3.4.9 (unbounded waits for a connection, crash-prone begin()/reserve() and
// fetch_types when connections die, a replayed FATAL) are worked around here and in
// gate.ts / write-queue.ts; see docs/explanation/storage.md.
import postgres from 'postgres';
import type { Store } from '../../ports/store.js';
import { isAnswer, PostgresGate, PostgresStoreError, type PostgresStoreLogger } from './gate.js';
import { backfillFoldedNames, REFOLD_INTERVAL_MS } from './plant-pages.js';
import { migratePostgres } from './migrations.js';
import { SilenceWatch } from './silence.js';
import { StoreSockets } from './sockets.js';
import { PostgresWriteQueue } from './write-queue.js';
import { createPostgresPlantStore } from './plant-store.js';
import { createPostgresTokenStore } from './token-store.js';
import { createPostgresWebhookStore } from './webhook-store.js';
import type { StoreObserver } from '../../ports/store-observer.js';

export type { PostgresStoreLogger } from './gate.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database?…` (libpq-style query parameters allowed). */
  readonly url: string;
  /** Connections in the pool; default 10. */
  readonly poolSize?: number;
  /**
   * How long an operation may wait for the pool (a free pipeline slot or the write queue)
   * before it resolves to StoreUnavailable (503); also the TCP connect timeout. Default 5000.
   */
  readonly acquireTimeoutMs?: number;
  /** PostgreSQL's `statement_timeout` for every statement of this store; default 10000. */
  readonly statementTimeoutMs?: number;
  /** A schema to keep the tables in (created if missing); default: the URL's search_path. */
  readonly schema?: string;
  readonly logger?: PostgresStoreLogger;
  /** Told how long operations wait for the pool (metrics). */
  readonly observer?: StoreObserver;
  /** Most writes per group-commit statement; default 1000. */
  readonly maxBatchSize?: number;
  /**
   * How long a token found by its hash is reused without reading its row again, in ms; default
   * 1000, 0 = every request reads it. Bounds how late a revocation made elsewhere (the tokens CLI,
   * another instance) takes effect here; this store's own revocations take effect at once.
   */
  readonly tokenCacheMs?: number;
  /** How long a keyed create's outcome is kept, from its commit (IDEMPOTENCY_TTL_SECONDS); default 86400. */
  readonly idempotencyTtlSeconds?: number;
}

/** Queries handed to the driver per connection before more wait in the gate. */
export const PIPELINE_DEPTH = 8;

const integerOption = (name: string, value: number | undefined, fallback: number, min: number, max: number): number => {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new TypeError(`openPostgresStore: ${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return n;
};

/** The URL without its password, for messages. */
const redact = (url: string): string => url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');

const closedError = (): PostgresStoreError => new PostgresStoreError('the store is closed', 'STORE_CLOSED');

/**
 * Opens the PostgreSQL store: a bounded pool, migrations applied under an advisory lock, plant
 * writes group-committed, every operation bounded in time. Rejects with an Error naming the
 * cause when the database cannot be reached or migrated (start-up fails rather than serving 503s
 * forever); a TypeError for bad options. Once open, it never rejects and never crashes the
 * process on a database outage: operations resolve to StoreUnavailable until the database is
 * back, then the pool reconnects by itself.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const { url, schema, logger } = options;
  if (typeof url !== 'string' || !/^postgres(ql)?:\/\//i.test(url)) {
    throw new TypeError('openPostgresStore: url must be a postgres:// or postgresql:// URL');
  }
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new TypeError(`openPostgresStore: schema must be a plain identifier, got ${JSON.stringify(schema)}`);
  }
  const poolSize = integerOption('poolSize', options.poolSize, 10, 1, 1000);
  const acquireTimeoutMs = integerOption('acquireTimeoutMs', options.acquireTimeoutMs, 5000, 1, 600_000);
  const statementTimeoutMs = integerOption('statementTimeoutMs', options.statementTimeoutMs, 10_000, 1, 3_600_000);
  const maxBatchSize = integerOption('maxBatchSize', options.maxBatchSize, 1000, 1, 10_000);
  const tokenCacheMs = integerOption('tokenCacheMs', options.tokenCacheMs, 1000, 0, 60_000);
  const idempotencyTtlSeconds = integerOption(
    'idempotencyTtlSeconds',
    options.idempotencyTtlSeconds,
    DEFAULT_IDEMPOTENCY_TTL_SECONDS,
    1,
    2 ** 31 - 1,
  );

  const connectTimeoutSeconds = Math.max(1, Math.ceil(acquireTimeoutMs / 1000));
  const sockets = new StoreSockets();
  const probeSockets = new StoreSockets();
  const driverOptions = {
    // Seconds. Without it a connect to an unreachable host waits for the OS (minutes).
    connect_timeout: connectTimeoutSeconds,
    // Off: the driver's array-type lookup runs on every new connection, and when that query
    // fails (a connection killed while starting, or cancelled) its promise rejects unhandled
    // and crashes the process (porsager/postgres#1192, #1223). We pass no array parameters.
    fetch_types: false,
    // `CREATE … IF NOT EXISTS` notices would otherwise go to console.log.
    onnotice: () => undefined,
    // Seconds between reconnect attempts after failures. The driver's default grows to 20 s
    // during a long outage, which would delay recovery by as much once the database is back; a
    // connect into a partition lasts connect_timeout and retries the SYN once a second, so short
    // pauses keep a SYN going out at least every 1.25 s.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.25) * (0.5 + Math.random() / 2),
    // The driver's `socket` option (not in its type declarations): connections the store can cut.
    socket: sockets.open,
    connection: {
      application_name: 'plant-store',
      // Every statement is cancelled by the server past this (SQLSTATE 57014 → 503).
      statement_timeout: statementTimeoutMs,
      // No JIT: every statement of this store is short, and a row estimate gone wrong (a
      // table not yet analysed) can take one past jit_above_cost, to spend far longer
      // compiling a statement than running it.
      jit: 'off',
      // The backend's own keepalive: a connection this store cut in a partition (its reset lost)
      // ends on the database's side within about 15 s of the network coming back, not 2 hours.
      tcp_keepalives_idle: 5,
      tcp_keepalives_interval: 5,
      tcp_keepalives_count: 2,
      ...(schema === undefined ? {} : { search_path: schema }),
    },
  } as postgres.Options<Record<string, never>>;
  let sql: postgres.Sql;
  // The silence watch's probe: one connection of its own, so it never queues behind the pool's.
  let probeSql: postgres.Sql;
  try {
    sql = postgres(url, { ...driverOptions, max: poolSize });
    probeSql = postgres(url, { ...driverOptions, socket: probeSockets.open, max: 1 } as postgres.Options<
      Record<string, never>
    >);
  } catch (cause) {
    throw new TypeError(`openPostgresStore: cannot use the URL ${redact(url)}`, { cause });
  }
  const endAll = () => Promise.all([sql.end({ timeout: 0 }), probeSql.end({ timeout: 0 })]);

  const gate = new PostgresGate({
    slots: poolSize * PIPELINE_DEPTH,
    acquireTimeoutMs,
    outageBudgetMs: Math.ceil(acquireTimeoutMs / 2),
    runTimeoutMs: acquireTimeoutMs + 2 * statementTimeoutMs + 1000,
    // A reconnect begun in an outage ends within connect_timeout; an operation that met it then
    // within the acquire timeout; a second to spare.
    outageHoldMs: acquireTimeoutMs + connectTimeoutSeconds * 1000 + 1000,
    logger,
    onWait: options.observer?.poolWait,
  });
  const silence = new SilenceWatch({
    // A quarter of the acquire timeout (0.5–1 s) of silence, as long again for the probe: a
    // request caught in a partition gets its 503 well within the acquire timeout + 1 s.
    afterMs: Math.min(1000, Math.max(500, acquireTimeoutMs / 4)),
    sockets: () => sockets.all(),
    // The pool's backends by client port (the probe's own excluded). A backend waiting to write
    // to its client is stuck in the same network, not running.
    probe: async (ports) => {
      const rows = await probeSql`
        SELECT client_port AS port,
               (state = 'active' AND wait_event_type IS DISTINCT FROM 'Client') AS running,
               coalesce(extract(epoch FROM clock_timestamp() - state_change) * 1000, 0)::float8 AS since_change_ms
        FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND client_port = ANY (string_to_array(${ports.join(',')}, ',')::int[])`;
      return rows.map((row) => ({
        port: Number(row['port']),
        running: row['running'] === true,
        sinceChangeMs: Number(row['since_change_ms']),
      }));
    },
    cutAll: () => sockets.cut() + probeSockets.cut(),
    isAnswer,
    logger,
  });

  const reachable = await gate.run('connect', () => sql`SELECT 1 AS one`);
  if (E.isLeft(reachable)) {
    silence.close();
    await endAll().catch(() => undefined);
    const cause = reachable.left.cause;
    throw new Error(
      `PostgreSQL at ${redact(url)} is not reachable: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        cause,
      },
    );
  }
  try {
    const applied = await migratePostgres(sql, schema);
    if (applied.length > 0) logger?.info?.({ versions: applied }, 'applied PostgreSQL migrations');
    const folded = await backfillFoldedNames(sql);
    if (folded > 0) logger?.info?.({ plants: folded }, 'folded the names of plants stored without a folded name');
    const [search] = await sql`SELECT to_regclass('plants_name_trgm') IS NOT NULL AS indexed`;
    if (search?.['indexed'] !== true) {
      logger?.warn?.(
        { index: 'plants_name_trgm' },
        'no pg_trgm index on plant names (the extension could not be created: see docs/guides/operations.md); searches with q read the whole table',
      );
    }
  } catch (error) {
    silence.close();
    await endAll().catch(() => undefined);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`migrating PostgreSQL at ${redact(url)} failed: ${message}`);
  }

  // While an instance of the previous release still writes (a rolling upgrade), its plants
  // arrive without a folded name: fold them every few seconds, not only at the next start.
  // A failure (the database unreachable) is logged once, until a pass succeeds again.
  let folding: Promise<unknown> | undefined;
  let failing = false;
  const refold = setInterval(() => {
    folding ??= backfillFoldedNames(sql)
      .then(
        (n) => {
          failing = false;
          if (n > 0) logger?.info?.({ plants: n }, 'folded the names of plants stored without a folded name');
        },
        (cause: unknown) => {
          if (!failing) logger?.warn?.({ err: cause }, 'folding stored names failed; trying again');
          failing = true;
        },
      )
      .finally(() => {
        folding = undefined;
      });
  }, REFOLD_INTERVAL_MS);
  refold.unref();

  const writes = new PostgresWriteQueue({
    sql,
    gate,
    acquireTimeoutMs,
    maxBatchSize,
    idempotencyTtlSeconds,
    tracing: options.observer?.tracing,
  });
  const plants = createPostgresPlantStore(sql, gate, writes, logger);
  const tokens = createPostgresTokenStore(sql, gate, logger, tokenCacheMs);
  const webhooks = createPostgresWebhookStore(sql, gate);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(refold);
      await writes.close();
      await gate.close(closedError());
      silence.close();
      // Every operation has been answered by now, so nothing in flight needs waiting for; a
      // graceful end could wait forever on a connection the server killed mid-query (the driver
      // keeps that query marked active until the connection is reused).
      await endAll();
    })();
    return closing;
  };

  return { plants, tokens, webhooks, close };
}
