import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DEFAULT_IDEMPOTENCY_TTL_SECONDS } from '@plant-store/domain';
import Database from 'better-sqlite3';
import type { Store } from '../../ports/store.js';
import {
  DEFAULT_CHECKPOINT_INTERVAL_MS,
  DEFAULT_WAL_TRUNCATE_BYTES,
  startCheckpointWorker,
  type CheckpointOptions,
  type CheckpointWorker,
} from './checkpoint-worker.js';
import { GroupCommit, type StoreLogger } from './group-commit.js';
import { SearchIndexer } from './search-index.js';
import { WalSync } from './wal-sync.js';
import { WAL_HOLD_FACTOR, WalHold } from './wal-hold.js';
import { migrateSqlite, refoldSqlite } from './migrations.js';
import { PlantIds, preparePlantIdStatements } from './plant-ids.js';
import { closedError } from './attempt.js';
import { SqliteBatch } from './batch.js';
import { SqliteOutbox } from './outbox.js';
import { createSqlitePlantStore } from './plant-store.js';
import { createSqliteChangeLog } from './change-log.js';
import { createSqliteTokenStore } from './token-store.js';
import { createSqliteWebhookStore } from './webhook-store.js';
import type { StoreObserver } from '../../ports/store-observer.js';

export type { StoreLogger } from './group-commit.js';
export type { CheckpointOptions } from './checkpoint-worker.js';

export interface SqliteStoreOptions {
  /** A file path (parent folders are created) or `:memory:` (one private database per store). */
  readonly file: string;
  /**
   * `FULL` (default): every commit is fsynced before it is answered, so an acknowledged write
   * survives power loss (for files the fsync runs off the event loop: see WalSync).
   * `NORMAL`: with WAL, survives a crash of the process but may lose the last commits on power
   * loss or an OS crash; faster on slow disks.
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * With FULL on a file: sync the WAL off the event loop (WalSync; default true), or let SQLite
   * sync it inside COMMIT (false: one-shot tools such as the tokens CLI, whose commit must be on
   * disk before a running server can read it, and which have no event loop to spare).
   */
  readonly syncOffEventLoop?: boolean;
  readonly logger?: StoreLogger;
  /** Told the size of every group-commit batch (metrics). */
  readonly observer?: StoreObserver;
  /** How long a write waits for another connection's lock before failing; default 5000 ms. */
  readonly busyTimeoutMs?: number;
  /** Most writes per group-commit transaction; default 1000. */
  readonly maxBatchSize?: number;
  /** The WAL checkpoint worker's settings (files only; `:memory:` has no WAL). */
  readonly checkpoint?: CheckpointOptions;
  /** How long a keyed create's outcome is kept, from its commit (IDEMPOTENCY_TTL_SECONDS); default 86400. */
  readonly idempotencyTtlSeconds?: number;
  /** Called after a commit that wrote webhook deliveries is durable (wakes the dispatcher). */
  readonly onEvents?: () => void;
}

const SYNCHRONOUS = ['FULL', 'NORMAL'] as const;

const nonNegativeInteger = (name: string, value: number | undefined, fallback: number): number => {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 0)
    throw new TypeError(`openSqliteStore: ${name} must be a non-negative integer, got ${String(value)}`);
  return n;
};

/**
 * Opens (creating if needed) the SQLite store: WAL mode, `synchronous` FULL by default,
 * `busy_timeout`, `foreign_keys`, migrations applied, writes group-committed (see GroupCommit),
 * WAL checkpoints on a worker thread. Bad options or an unusable file throw (a defect at start-up).
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const { file, logger } = options;
  const synchronous = options.synchronous ?? 'FULL';
  if (!SYNCHRONOUS.includes(synchronous)) {
    throw new TypeError(`openSqliteStore: synchronous must be FULL or NORMAL, got ${String(synchronous)}`);
  }
  if (typeof file !== 'string' || file === '') throw new TypeError('openSqliteStore: file must be a path or :memory:');
  const busyTimeoutMs = nonNegativeInteger('busyTimeoutMs', options.busyTimeoutMs, 5000);
  const maxBatchSize = Math.max(1, nonNegativeInteger('maxBatchSize', options.maxBatchSize, 1000));
  const intervalMs = Math.max(
    1,
    nonNegativeInteger('checkpoint.intervalMs', options.checkpoint?.intervalMs, DEFAULT_CHECKPOINT_INTERVAL_MS),
  );
  const truncateAboveBytes = nonNegativeInteger(
    'checkpoint.truncateAboveBytes',
    options.checkpoint?.truncateAboveBytes,
    DEFAULT_WAL_TRUNCATE_BYTES,
  );
  const ttlMs =
    1000 *
    Math.max(
      1,
      nonNegativeInteger('idempotencyTtlSeconds', options.idempotencyTtlSeconds, DEFAULT_IDEMPOTENCY_TTL_SECONDS),
    );
  const memory = file === ':memory:';
  const offloaded = !memory && synchronous === 'FULL' && options.syncOffEventLoop !== false;
  const path = memory ? file : resolve(file);
  if (!memory) mkdirSync(dirname(path), { recursive: true });

  const db = new Database(path, { timeout: busyTimeoutMs });
  let wal: WalSync | undefined;
  try {
    if (!memory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal')
        throw new TypeError(`openSqliteStore: ${path} cannot use WAL mode (journal_mode is ${String(mode)})`);
      // No checkpoint on the request path: the worker below does it. The WAL file is cut back
      // to this size whenever it restarts.
      db.pragma('wal_autocheckpoint = 0');
      db.pragma(`journal_size_limit = ${truncateAboveBytes}`);
    }
    // FULL on a file: the WAL is synced by WalSync off the event loop, so SQLite itself need not.
    db.pragma(`synchronous = ${offloaded ? 'NORMAL' : synchronous}`);
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma('foreign_keys = ON');
    migrateSqlite(db);
    refoldSqlite(db);
    // After the migrations: the WAL file exists, and their commits are synced with it.
    if (offloaded) wal = WalSync.open(path);
  } catch (error) {
    db.close();
    throw error;
  }

  let closed = false;
  const isClosed = () => closed;
  const plantIds = new PlantIds(preparePlantIdStatements(db));
  const outbox = new SqliteOutbox(db);
  // Inside each write transaction: whether another connection committed since our last one.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const onEvents = options.onEvents ?? (() => undefined);
  // Every batch may leave plants for the search index (created below, once the queue exists).
  const indexing: { indexer?: SearchIndexer<SqliteBatch> } = {};
  // The checkpoint thread, while it runs (started below, once the queue exists).
  const checkpoints: { worker?: CheckpointWorker | undefined } = {};
  const walHold = memory
    ? undefined
    : new WalHold(
        `${path}-wal`,
        nonNegativeInteger(
          'checkpoint.holdAboveBytes',
          options.checkpoint?.holdAboveBytes,
          Math.round(truncateAboveBytes * WAL_HOLD_FACTOR),
        ),
        () => checkpoints.worker,
        logger,
      );
  const commits = new GroupCommit({
    db,
    sync: wal,
    openBatch: () => new SqliteBatch(plantIds.open(dataVersion.get()), outbox.open(Date.now()), onEvents),
    maxBatchSize,
    logger,
    onBatch: (size) => {
      options.observer?.batch?.(size);
      indexing.indexer?.wrote();
    },
    tracing: options.observer?.tracing,
    hold: walHold === undefined ? undefined : () => walHold.check(),
  });
  const searchIndex = new SearchIndexer(db, commits, logger);
  indexing.indexer = searchIndex;

  const worker: CheckpointWorker | undefined = memory
    ? undefined
    : startCheckpointWorker({
        file: path,
        intervalMs,
        truncateAboveBytes,
        synchronous,
        logger,
        onLost: () => {
          checkpoints.worker = undefined;
          if (!closed) db.pragma('wal_autocheckpoint = 1000');
        },
      });
  checkpoints.worker = worker;

  const plants = createSqlitePlantStore(db, commits, isClosed, wal, ttlMs);
  const tokens = createSqliteTokenStore(db, commits, isClosed);
  const webhooks = createSqliteWebhookStore(db, commits, isClosed, outbox);
  const changes = createSqliteChangeLog(db, commits, isClosed, wal);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      searchIndex.close();
      commits.close(closedError());
      closed = true;
      await wal?.close();
      await worker?.stop();
      try {
        if (!memory) db.pragma('wal_checkpoint(TRUNCATE)');
      } catch (err) {
        logger?.warn({ err }, 'final WAL checkpoint failed; SQLite will replay the WAL on the next open');
      }
      db.close();
    })();
    return closing;
  };

  return { plants, changes, tokens, webhooks, close };
}
