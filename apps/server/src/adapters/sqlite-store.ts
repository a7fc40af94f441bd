import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { idTaken, plantNotFound, type IdTaken, type Plant, type PlantId, type PlantNotFound } from '@plant-store/domain';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { storeUnavailable, type NewPlant, type PlantStore, type StoreError } from '../ports/plant-store.js';
import type { Store } from '../ports/store.js';
import type { NewToken, TokenRecord, TokenStore } from '../ports/token-store.js';
import {
  DEFAULT_CHECKPOINT_INTERVAL_MS,
  DEFAULT_WAL_TRUNCATE_BYTES,
  startCheckpointWorker,
  type CheckpointOptions,
  type CheckpointWorker,
} from './sqlite-checkpoint-worker.js';
import { GroupCommit, type StoreLogger } from './sqlite-group-commit.js';
import { WalSync } from './sqlite-wal-sync.js';
import { migrateSqlite } from './sqlite-migrations.js';
import { PlantIdAllocator, preparePlantIdStatements } from './sqlite-plant-ids.js';
import { TokenCache, tokenCacheKey, type FoundToken } from './token-cache.js';
import { plantFromRow, plantsFromRows, scopesToColumn, tokenFromRow, tokenRecordFromRow } from './sqlite-rows.js';
import { countFromRow } from './store-rows.js';
import type { StoreObserver } from '../ports/store-observer.js';

export type { StoreLogger } from './sqlite-group-commit.js';
export type { CheckpointOptions } from './sqlite-checkpoint-worker.js';

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
}

const SYNCHRONOUS = ['FULL', 'NORMAL'] as const;
const closedError = (): Error => new Error('the store is closed');

/** Runs a read (or any synchronous step) and turns a thrown SQLite error into StoreUnavailable. */
const attempt = <Err, A>(closed: () => boolean, run: () => E.Either<Err, A>): E.Either<Err | StoreError, A> => {
  if (closed()) return E.left(storeUnavailable(closedError()));
  try {
    return run();
  } catch (cause) {
    return E.left(storeUnavailable(cause));
  }
};

/**
 * A plant read's result, released only once every commit it could have seen is on disk (see
 * WalSync.readBarrier): a response never shows a write that a power loss could still undo.
 */
const whenDurable = <Err, A>(wal: WalSync | undefined, result: E.Either<Err, A>): E.Either<Err | StoreError, A> | Promise<E.Either<Err | StoreError, A>> => {
  const barrier = wal?.readBarrier();
  return barrier === undefined ? result : barrier.then(() => result, (cause: unknown) => E.left(storeUnavailable(cause)));
};

const nonNegativeInteger = (name: string, value: number | undefined, fallback: number): number => {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`openSqliteStore: ${name} must be a non-negative integer, got ${String(value)}`);
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
  const intervalMs = Math.max(1, nonNegativeInteger('checkpoint.intervalMs', options.checkpoint?.intervalMs, DEFAULT_CHECKPOINT_INTERVAL_MS));
  const truncateAboveBytes = nonNegativeInteger('checkpoint.truncateAboveBytes', options.checkpoint?.truncateAboveBytes, DEFAULT_WAL_TRUNCATE_BYTES);
  const memory = file === ':memory:';
  const offloaded = !memory && synchronous === 'FULL' && options.syncOffEventLoop !== false;
  const path = memory ? file : resolve(file);
  if (!memory) mkdirSync(dirname(path), { recursive: true });

  const db = new Database(path, { timeout: busyTimeoutMs });
  let wal: WalSync | undefined;
  try {
    if (!memory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new TypeError(`openSqliteStore: ${path} cannot use WAL mode (journal_mode is ${String(mode)})`);
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
    // After the migrations: the WAL file exists, and their commits are synced with it.
    if (offloaded) wal = WalSync.open(path);
  } catch (error) {
    db.close();
    throw error;
  }

  let closed = false;
  const isClosed = () => closed;
  const idStatements = preparePlantIdStatements(db);
  const commits = new GroupCommit({
    db,
    sync: wal,
    openBatch: () => new PlantIdAllocator(idStatements),
    maxBatchSize,
    logger,
    onBatch: options.observer?.batch,
  });

  const worker: CheckpointWorker | undefined = memory
    ? undefined
    : startCheckpointWorker({
        file: path,
        intervalMs,
        truncateAboveBytes,
        synchronous,
        logger,
        onLost: () => {
          if (!closed) db.pragma('wal_autocheckpoint = 1000');
        },
      });

  const plants = createSqlitePlantStore(db, commits, isClosed, wal);
  const tokens = createSqliteTokenStore(db, commits, isClosed);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
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

  return { plants, tokens, close };
}

const createSqlitePlantStore = (
  db: Database.Database,
  commits: GroupCommit<PlantIdAllocator>,
  isClosed: () => boolean,
  wal: WalSync | undefined,
): PlantStore => {
  const insert = db.prepare<[number, string, string | null]>(
    'INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
  );
  const remove = db.prepare<[number]>('DELETE FROM plants WHERE id = ?');
  const byId = db.prepare<[number]>('SELECT id, name, tag FROM plants WHERE id = ?');
  const page = db.prepare<[number, number]>('SELECT id, name, tag FROM plants WHERE id > ? ORDER BY id LIMIT ?');
  const ping = db.prepare('SELECT 1').pluck();

  // What was just stored, built from the already-decoded request rather than read back: the
  // name and tag are the caller's branded values and the id is in range (checked or assigned).
  const stored = (id: PlantId, plant: NewPlant): E.Either<StoreError, Plant> =>
    E.right(plant.tag === undefined ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag });

  const create = (plant: NewPlant, ids: PlantIdAllocator): E.Either<IdTaken | StoreError, Plant> => {
    if (plant.id !== undefined) {
      if (insert.run(plant.id, plant.name, plant.tag ?? null).changes === 0) return E.left(idTaken(plant.id));
      ids.stored(plant.id);
      return stored(plant.id, plant);
    }
    const next = ids.next();
    if (next === undefined) return E.left(storeUnavailable(new Error('every plant id from 1 to 2^53-1 is in use')));
    const id = next as PlantId; // PlantIdAllocator only hands out ids from 1 to MAX_PLANT_ID
    if (insert.run(id, plant.name, plant.tag ?? null).changes === 0) {
      // Cannot happen while the high-water mark holds; refuse rather than guess.
      return E.left(storeUnavailable(new Error(`assigned plant id ${id} is already taken`)));
    }
    ids.stored(id);
    return stored(id, plant);
  };

  return {
    create: (plant): TaskEither<IdTaken | StoreError, Plant> => () => commits.submit((ids) => create(plant, ids)),
    delete: (id): TaskEither<PlantNotFound | StoreError, void> => () =>
      commits.submit(() => (remove.run(id).changes === 0 ? E.left(plantNotFound(id)) : E.right(undefined))),
    get: (id) => async () =>
      whenDurable(
        wal,
        attempt(isClosed, (): E.Either<PlantNotFound | StoreError, Plant> => {
          const row = byId.get(id);
          return row === undefined ? E.left(plantNotFound(id)) : plantFromRow(row);
        }),
      ),
    list: ({ limit, after }) => async () => whenDurable(wal, attempt(isClosed, () => plantsFromRows(page.all(after, limit)))),
    ping: () => async () =>
      attempt(isClosed, () => {
        if (wal?.failure !== undefined) return E.left(storeUnavailable(wal.failure));
        return ping.get() === 1 ? E.right(undefined) : E.left(storeUnavailable(new Error('SELECT 1 did not answer 1')));
      }),
  };
};

const createSqliteTokenStore = (
  db: Database.Database,
  commits: GroupCommit<PlantIdAllocator>,
  isClosed: () => boolean,
): TokenStore => {
  const columns = 'id, name, scopes, hash, created_at, expires_at, revoked_at';
  const insert = db.prepare<[string, string, string, Uint8Array, number, number | null]>(
    `INSERT INTO tokens (id, name, scopes, hash, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)
     RETURNING ${columns}`,
  );
  const byHash = db.prepare<[Uint8Array]>(`SELECT ${columns} FROM tokens WHERE hash = ?`);
  const all = db.prepare(`SELECT ${columns} FROM tokens ORDER BY created_at, id`);
  const revoke = db.prepare<[number, string, string]>(
    'UPDATE tokens SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL',
  );
  const count = db.prepare('SELECT count(*) AS n FROM tokens');
  // Changes when another connection commits to the file; see TokenCache.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const cache = new TokenCache();

  return {
    insert: (token: NewToken): TaskEither<StoreError, TokenRecord> => () =>
      commits.submit(() => {
        cache.clear();
        return tokenRecordFromRow(
          insert.get(
            token.id,
            token.name,
            scopesToColumn(token.scopes),
            Buffer.from(token.hash),
            Date.now(),
            token.expiresAt === null ? null : token.expiresAt.getTime(),
          ),
        );
      }),
    findByHash: (hash) => async () =>
      attempt(isClosed, (): E.Either<StoreError, FoundToken | undefined> => {
        // data_version first: a commit by another connection between the two reads then makes
        // this entry stale at once instead of caching a row older than its version.
        const version = dataVersion.get() as number;
        const key = tokenCacheKey(hash);
        const cached = cache.get(key, version);
        if (cached !== undefined) return E.right(cached);
        const row = byHash.get(Buffer.from(hash));
        if (row === undefined) return E.right(undefined);
        const found = tokenFromRow(row);
        if (E.isRight(found)) cache.set(key, version, found.right);
        return found;
      }),
    list: () => async () =>
      attempt(isClosed, () => {
        const records: TokenRecord[] = [];
        for (const row of all.all()) {
          const record = tokenRecordFromRow(row);
          if (E.isLeft(record)) return record;
          records.push(record.right);
        }
        return E.right(records);
      }),
    revoke: (idOrName, at) => () =>
      commits.submit(() => {
        // Our own commits do not change data_version: forget every cached token ourselves.
        cache.clear();
        return E.right(revoke.run(at.getTime(), idOrName, idOrName).changes > 0);
      }),
    count: () => async () => attempt(isClosed, () => countFromRow(count.get())),
  };
};
