import { DEFAULT_IDEMPOTENCY_TTL_SECONDS } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
// The `postgres` driver (porsager), configured and its gaps listed in driver.ts.
import postgres from 'postgres';
import type { Store } from '../../ports/store.js';
import { driverOptions } from './driver.js';
import { Fence, identifyOver } from './fence.js';
import { isAnswer, PostgresGate, PostgresStoreError, type PostgresStoreLogger } from './gate.js';
import { backfillFoldedNames, REFOLD_INTERVAL_MS } from './plant-pages.js';
import { migratePostgres } from './migrations.js';
import { SilenceWatch } from './silence.js';
import { StoreSockets } from './sockets.js';
import { readConnectionUrl } from './tls.js';
import { PostgresWriteQueue } from './write-queue.js';
import { createPostgresChangeLog } from './change-log.js';
import { createPostgresPlantStore } from './plant-store.js';
import { createPostgresPlantBatches } from './plant-batch.js';
import { createPostgresTokenStore } from './token-store.js';
import { createPostgresWebhookStore } from './webhook-store.js';
import type { StoreObserver } from '../../ports/store-observer.js';

export type { PostgresStoreLogger } from './gate.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database?…` (libpq-style query parameters allowed). */
  readonly url: string;
  /**
   * The database itself, when `url` goes through a pooler in transaction mode: what needs a
   * session of its own uses it (DATABASE_DIRECT_URL). Today that is the migrations at start-up,
   * run over one connection of their own and closed.
   */
  readonly directUrl?: string;
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
  let connection: ReturnType<typeof readConnectionUrl>;
  try {
    connection = readConnectionUrl(url);
  } catch (cause) {
    throw new TypeError(`openPostgresStore: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  // Every connection of the pool and the probe is made only to a host that is not a former
  // primary (fence.ts); a newer timeline seen moves every connection made before.
  const fence = new Fence({
    identify: identifyOver(connection.driverUrl, connection.tls, connectTimeoutSeconds),
    timeoutMs: connectTimeoutSeconds * 1000,
    logger,
    onNewer: () => {
      sockets.cut();
      probeSockets.cut();
    },
    // With several hosts the driver keeps a failed connect to itself: tell the gate.
    onRefused: () => gate.connectFailed(),
  });
  const admit = (host: string, port: number) => fence.admit(host, port);
  const sockets = new StoreSockets(connection.tls, connectTimeoutSeconds * 1000, admit);
  const probeSockets = new StoreSockets(connection.tls, connectTimeoutSeconds * 1000, admit);
  /**
   * What a direct connection asks for at start-up. Behind a pooler (driver.ts, `pooled`) none of
   * it holds, and the statement bound is then the gate's alone (docs/guides/operations.md,
   * "Through a pooler").
   */
  const session = {
    // Every statement is cancelled by the server past this (SQLSTATE 57014 → 503).
    statement_timeout: statementTimeoutMs,
    // No JIT: every statement of this store is short, and a row estimate gone wrong (a table not
    // yet analysed) can take one past jit_above_cost, to spend far longer compiling a statement
    // than running it.
    jit: 'off',
    // The backend's own keepalive: a connection this store cut in a partition (its reset lost)
    // ends on the database's side within about 15 s of the network coming back, not 2 hours.
    tcp_keepalives_idle: 5,
    tcp_keepalives_interval: 5,
    tcp_keepalives_count: 2,
    ...(schema === undefined ? {} : { search_path: schema }),
  };
  const optionsFor = (pooled: boolean, on: StoreSockets) =>
    driverOptions({ sockets: on, connectTimeoutSeconds, applicationName: 'plant-store', pooled, session });
  const connect = (pooled: boolean): { sql: postgres.Sql; probeSql: postgres.Sql } => {
    try {
      return {
        sql: postgres(connection.driverUrl, { ...optionsFor(pooled, sockets), max: poolSize }),
        // The silence watch's probe: one connection of its own, so it never queues behind the pool's.
        probeSql: postgres(connection.driverUrl, { ...optionsFor(pooled, probeSockets), max: 1 }),
      };
    } catch (cause) {
      throw new TypeError(`openPostgresStore: cannot use the URL ${redact(url)}`, { cause });
    }
  };
  let { sql, probeSql } = connect(false);
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
    // A write met a read-only server (a failover): every connection moves, probe's included.
    onReadOnly: () => {
      const cut = sockets.cut() + probeSockets.cut();
      logger?.warn({ connections: cut }, 'PostgreSQL refused a write as read-only; reconnecting to find the primary');
    },
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
      // Converted, not decoded: pg_stat_activity's own columns (int4, boolean, float8), not our
      // data. A row read wrong could only cut a connection that owes an answer (the pool connects
      // again) or leave it to its statement_timeout; nothing of it is stored or answered.
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

  // The statement timeout each connection asked for at start-up, as the session holds it: not
  // ours when something between drops start-up parameters (a pooler told to ignore them).
  const heldTimeout = () =>
    sql`SELECT (extract(epoch FROM current_setting('statement_timeout')::interval) * 1000)::int8::text AS ms`;
  // Every host of the URL first, so that the first connection already knows the newest timeline.
  const path: unknown = sql.options.path; // false, not undefined, without a Unix socket
  if (typeof path !== 'string' || path === '')
    await fence.survey(sql.options.host.map((host, i) => ({ host, port: sql.options.port[i] ?? 5432 })));
  let reachable = await gate.run('connect', heldTimeout);
  const refusedParameters =
    E.isLeft(reachable) &&
    /unsupported startup parameter/i.test(reachable.left.cause instanceof Error ? reachable.left.cause.message : '');
  const droppedParameters = E.isRight(reachable) && reachable.right[0]?.['ms'] !== String(statementTimeoutMs);
  if (refusedParameters || droppedParameters) {
    if (schema !== undefined) {
      silence.close();
      await endAll().catch(() => undefined);
      throw new Error(
        `PostgreSQL at ${redact(url)} is behind a pooler, where a schema cannot be chosen per connection: set the role's search_path instead`,
      );
    }
    logger?.warn?.(
      { how: refusedParameters ? 'refused start-up parameters' : 'dropped start-up parameters' },
      'PostgreSQL is behind a pooler in transaction mode: no session settings, no prepared statements; statements are bounded by the acquire timeout (see docs/guides/operations.md)',
    );
    await endAll().catch(() => undefined);
    ({ sql, probeSql } = connect(true));
    reachable = await gate.run('connect', () => sql`SELECT 1 AS one`);
  }
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
  // The migrations hold a transaction-level lock only, so they run through a pooler too; with
  // DATABASE_DIRECT_URL they go to the database itself, over one connection of their own.
  const { directUrl } = options;
  const overDirect = async <T>(work: (db: postgres.Sql) => Promise<T>): Promise<T> => {
    if (directUrl === undefined) return work(sql);
    const direct = readConnectionUrl(directUrl);
    const db = postgres(direct.driverUrl, {
      ...driverOptions({
        sockets: new StoreSockets(direct.tls, connectTimeoutSeconds * 1000),
        connectTimeoutSeconds,
        applicationName: 'plant-store-direct',
        pooled: false,
        session,
      }),
      max: 1,
    });
    try {
      return await work(db);
    } finally {
      await db.end({ timeout: 0 }).catch(() => undefined);
    }
  };
  try {
    const applied = await overDirect((db) => migratePostgres(db, schema));
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
    const over = directUrl === undefined ? redact(url) : `${redact(directUrl)} (DATABASE_DIRECT_URL)`;
    throw new Error(`migrating PostgreSQL at ${over} failed: ${message}`);
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
  const batches = createPostgresPlantBatches(sql, gate, {
    idempotencyTtlSeconds,
    tracing: options.observer?.tracing,
  });
  const plants = createPostgresPlantStore(sql, gate, writes, logger, batches);
  const tokens = createPostgresTokenStore(sql, gate, logger, tokenCacheMs);
  const webhooks = createPostgresWebhookStore(sql, gate);
  const changes = createPostgresChangeLog(sql, gate);

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

  return { plants, changes, tokens, webhooks, close };
}
