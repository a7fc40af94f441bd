import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  idTaken,
  plantNotFound,
  preconditionFailed,
  type IdTaken,
  type Plant,
  type PlantId,
  type PlantNotFound,
  type PreconditionFailed,
  type UpdatePlantRequest,
} from '@plant-store/domain';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import {
  failedPrecondition,
  isConditional,
  storeUnavailable,
  type IdempotencyClaim,
  type IdempotencyKeyReused,
  type KeyedCreate,
  type NewPlant,
  type PlantStore,
  type StoreError,
  type VersionedPlant,
  type WriteCondition,
} from '../../ports/plant-store.js';
import type { Store } from '../../ports/store.js';
import type { NewToken, TokenRecord, TokenStore } from '../../ports/token-store.js';
import {
  DEFAULT_CHECKPOINT_INTERVAL_MS,
  DEFAULT_WAL_TRUNCATE_BYTES,
  startCheckpointWorker,
  type CheckpointOptions,
  type CheckpointWorker,
} from './checkpoint-worker.js';
import { GroupCommit, type StoreLogger } from './group-commit.js';
import { WalSync } from './wal-sync.js';
import { migrateSqlite } from './migrations.js';
import { PlantIds, preparePlantIdStatements, type PlantIdAllocator } from './plant-ids.js';
import { attempt, closedError } from './attempt.js';
import { SqliteBatch } from './batch.js';
import { SqliteOutbox } from './outbox.js';
import { createSqliteWebhookStore } from './webhook-store.js';
import { TokenCache, tokenCacheKey, type FoundToken } from '../token-cache.js';
import { plantsFromRows, savedCreateFromRow, scopesToColumn, tokenFromRow, tokenRecordFromRow, versionedPlantFromRow } from './rows.js';
import { replayOf, type SavedCreate } from '../../idempotency/replay.js';
import { countFromRow } from '../store-rows.js';
import type { StoreObserver } from '../../ports/store-observer.js';
import { oncePerTurn } from './once-per-turn.js';

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
  const ttlMs = 1000 * Math.max(1, nonNegativeInteger('idempotencyTtlSeconds', options.idempotencyTtlSeconds, DEFAULT_IDEMPOTENCY_TTL_SECONDS));
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
  const plantIds = new PlantIds(preparePlantIdStatements(db));
  const outbox = new SqliteOutbox(db);
  // Inside each write transaction: whether another connection committed since our last one.
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const onEvents = options.onEvents ?? (() => undefined);
  const commits = new GroupCommit({
    db,
    sync: wal,
    openBatch: () => {
      const version = dataVersion.get();
      return new SqliteBatch(plantIds.open(version), outbox.open(Date.now(), version), onEvents);
    },
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

  const plants = createSqlitePlantStore(db, commits, isClosed, wal, ttlMs);
  const tokens = createSqliteTokenStore(db, commits, isClosed);
  const webhooks = createSqliteWebhookStore(db, commits, isClosed, outbox);

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

  return { plants, tokens, webhooks, close };
}

const createSqlitePlantStore = (
  db: Database.Database,
  commits: GroupCommit<SqliteBatch>,
  isClosed: () => boolean,
  wal: WalSync | undefined,
  ttlMs: number,
): PlantStore => {
  const insert = db.prepare<[number, string, string | null, number]>(
    'INSERT INTO plants (id, name, tag, version) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  );
  // A patch in one statement: applied in SQL, and only where it changes the plant (IS NOT:
  // NULL-safe, code unit for code unit), the plant after it RETURNed.
  const changeWhereDifferent = db.prepare<[{ id: number; name: string | null; setTag: number; tag: string | null; version: number }]>(
    `UPDATE plants SET name = coalesce(@name, name), tag = CASE WHEN @setTag THEN @tag ELSE tag END, version = @version
      WHERE id = @id AND (name IS NOT coalesce(@name, name) OR tag IS NOT CASE WHEN @setTag THEN @tag ELSE tag END)
      RETURNING id, name, tag, version`,
  );
  const remove = db.prepare<[number]>('DELETE FROM plants WHERE id = ?');
  const versionOf = db.prepare<[number]>('SELECT version FROM plants WHERE id = ?').pluck();
  const byId = db.prepare<[number]>('SELECT id, name, tag, version FROM plants WHERE id = ?');
  const page = db.prepare<[number, number]>('SELECT id, name, tag FROM plants WHERE id > ? ORDER BY id LIMIT ?');
  // Served by the partial index plants_tag (tag, id): one seek, whatever the store holds.
  const tagPage = db.prepare<[string, number, number]>('SELECT id, name, tag FROM plants WHERE tag = ? AND id > ? ORDER BY id LIMIT ?');
  const ping = db.prepare('SELECT 1').pluck();
  const savedKey = db.prepare<[string, string]>('SELECT request, status, plant_id, version FROM idempotency_keys WHERE owner = ? AND key = ?');
  // Claims a key for a create, as its 201: a new key, or one whose saved outcome has expired
  // (overwritten). No change: the key holds an unexpired outcome, to be replayed.
  const claimKey = db.prepare<[string, string, string, number, number, number, number]>(
    `INSERT INTO idempotency_keys (owner, key, request, status, plant_id, version, expires_at) VALUES (?, ?, ?, 201, ?, ?, ?)
     ON CONFLICT (owner, key) DO UPDATE SET
       request = excluded.request, status = 201, plant_id = excluded.plant_id, version = excluded.version,
       expires_at = excluded.expires_at
     WHERE idempotency_keys.expires_at <= ?`,
  );
  const keyGotConflict = db.prepare<[string, string]>('UPDATE idempotency_keys SET status = 409 WHERE owner = ? AND key = ?');
  const forgetKey = db.prepare<[string, string]>('DELETE FROM idempotency_keys WHERE owner = ? AND key = ?');
  // The purge sweeps the keys in key order, `limit` at a time, from where the last step stopped.
  const keysAfter = db.prepare<[string, string, number]>(
    'SELECT owner, key, expires_at FROM idempotency_keys WHERE (owner, key) > (?, ?) ORDER BY owner, key LIMIT ?',
  );
  let sweptTo: readonly [string, string] = ['', ''];

  /** The id a create stores under: the caller's, or the next server-assigned one (undefined: none left). */
  const idFor = (plant: NewPlant, ids: PlantIdAllocator): PlantId | undefined =>
    // PlantIdAllocator only hands out ids from 1 to MAX_PLANT_ID.
    plant.id ?? (ids.next() as PlantId | undefined);
  const idsExhausted = (): StoreError => storeUnavailable(new Error('every plant id from 1 to 2^53-1 is in use'));

  // What was just stored, built from the already-decoded request rather than read back: the
  // name and tag are the caller's branded values and the id is in range (checked or assigned).
  // The plant.created event commits with it (the outbox writes nothing without subscribers).
  const insertAt = (id: PlantId, version: number, plant: NewPlant, batch: SqliteBatch): E.Either<IdTaken | StoreError, VersionedPlant> => {
    if (insert.run(id, plant.name, plant.tag ?? null, version).changes === 0) {
      // A server-assigned id cannot be taken while the high-water mark holds; refuse rather than guess.
      return E.left(plant.id !== undefined ? idTaken(id) : storeUnavailable(new Error(`assigned plant id ${id} is already taken`)));
    }
    batch.ids.stored(id);
    const stored: Plant = plant.tag === undefined ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag };
    batch.outbox.created(stored);
    return E.right({ plant: stored, version });
  };

  const create = (plant: NewPlant, batch: SqliteBatch): E.Either<IdTaken | StoreError, VersionedPlant> => {
    const id = idFor(plant, batch.ids);
    return id === undefined ? E.left(idsExhausted()) : insertAt(id, batch.ids.nextVersion(), plant, batch);
  };

  /** The plant as this transaction sees it, or PlantNotFound. */
  const current = (id: PlantId): E.Either<PlantNotFound | StoreError, VersionedPlant> => {
    const row = byId.get(id);
    return row === undefined ? E.left(plantNotFound(id)) : versionedPlantFromRow(row);
  };

  /**
   * A patch inside its batch's transaction, after every earlier write (BEGIN IMMEDIATE): a
   * precondition is checked against the committed version and the plant written in the same
   * transaction, so no other write can come between. The write is one statement that applies the
   * patch only where it changes the plant; an unconditional patch (the common path) reads
   * nothing first. Nothing changed (no row back): no write, the plant as it is, same version (the
   * version drawn for it is never used, which only leaves a gap), or PlantNotFound.
   */
  const update = (
    id: PlantId,
    patch: UpdatePlantRequest,
    condition: WriteCondition,
    batch: SqliteBatch,
  ): E.Either<PlantNotFound | PreconditionFailed | StoreError, VersionedPlant> => {
    if (isConditional(condition)) {
      const found = current(id);
      if (E.isLeft(found)) return found;
      const failed = failedPrecondition(condition, found.right.version);
      if (failed !== undefined) return E.left(preconditionFailed(id, failed));
    }
    const row = changeWhereDifferent.get({
      id,
      name: patch.name ?? null,
      setTag: patch.tag === undefined ? 0 : 1,
      tag: patch.tag ?? null,
      version: batch.ids.nextVersion(),
    });
    if (row === undefined) return current(id);
    const changed = versionedPlantFromRow(row);
    if (E.isRight(changed)) batch.outbox.updated(changed.right.plant);
    return changed;
  };

  const removeAt = (id: PlantId, condition: WriteCondition | undefined, batch: SqliteBatch): E.Either<PlantNotFound | PreconditionFailed | StoreError, void> => {
    if (isConditional(condition)) {
      const version = versionOf.get(id) as number | undefined;
      if (version === undefined) return E.left(plantNotFound(id));
      const failed = failedPrecondition(condition, version);
      if (failed !== undefined) return E.left(preconditionFailed(id, failed));
    }
    if (!batch.ids.removing(id, () => remove.run(id).changes > 0)) return E.left(plantNotFound(id));
    batch.outbox.deleted(id);
    return E.right(undefined);
  };

  /**
   * A keyed create inside its batch's transaction, after every earlier write of the batch and of
   * every other connection (BEGIN IMMEDIATE), so the key's state is exact. The key is claimed
   * first, as the 201 it will be: an unexpired saved outcome makes the claim change nothing, and
   * is replayed instead. Then the plant: stored (the claim stands), its id taken (the saved
   * outcome becomes the 409), or a failure, which forgets the claim; a statement that throws
   * forgets it too, so a plant is never stored without its key nor a key saved without its
   * outcome, and the batch's other writes are untouched. Two statements on the common path: no
   * lookup, no savepoint.
   */
  const createOnce = (plant: NewPlant, claim: IdempotencyClaim, batch: SqliteBatch): E.Either<IdempotencyKeyReused | StoreError, KeyedCreate> => {
    const { owner, key, request } = claim;
    const id = idFor(plant, batch.ids);
    if (id === undefined) return E.left(idsExhausted());
    const now = Date.now();
    const version = batch.ids.nextVersion();
    if (claimKey.run(owner, key, request, id, version, now + ttlMs, now).changes === 0) {
      return E.chainW((saved: SavedCreate) => replayOf(saved, claim))(savedCreateFromRow(savedKey.get(owner, key)));
    }
    try {
      const result = insertAt(id, version, plant, batch);
      if (E.isRight(result)) return E.right({ result, replayed: false });
      if (result.left._tag === 'IdTaken') {
        keyGotConflict.run(owner, key);
        return E.right({ result: E.left(result.left), replayed: false });
      }
      forgetKey.run(owner, key);
      return E.left(result.left);
    } catch (cause) {
      // After an error that rolled the whole transaction back (SQLITE_FULL…) nothing is left to
      // forget: GroupCommit fails the batch.
      if (db.inTransaction) forgetKey.run(owner, key);
      throw cause;
    }
  };

  return {
    create: (plant): TaskEither<IdTaken | StoreError, VersionedPlant> => () => commits.submit((batch) => create(plant, batch)),
    createOnce: (plant, claim) => () => commits.submit((batch) => createOnce(plant, claim, batch)),
    purgeExpiredKeys: (limit) => () =>
      commits.submit(() => {
        const now = Date.now();
        const rows = keysAfter.all(sweptTo[0], sweptTo[1], limit) as { owner: string; key: string; expires_at: number }[];
        let forgotten = 0;
        for (const row of rows) if (row.expires_at <= now) forgotten += forgetKey.run(row.owner, row.key).changes;
        const last = rows[rows.length - 1];
        const more = rows.length === limit && last !== undefined;
        sweptTo = more ? [last.owner, last.key] : ['', ''];
        return E.right({ forgotten, more });
      }),
    update: (id, patch, condition) => () => commits.submit((batch) => update(id, patch, condition, batch)),
    delete: (id, condition): TaskEither<PlantNotFound | PreconditionFailed | StoreError, void> => () =>
      commits.submit((batch) => removeAt(id, condition, batch)),
    get: (id) => async () => whenDurable(wal, attempt(isClosed, () => current(id))),
    list: ({ limit, after, tag }) => async () =>
      whenDurable(wal, attempt(isClosed, () => plantsFromRows(tag === undefined ? page.all(after, limit) : tagPage.all(tag, after, limit)))),
    ping: () => async () =>
      attempt(isClosed, () => {
        if (wal?.failure !== undefined) return E.left(storeUnavailable(wal.failure));
        return ping.get() === 1 ? E.right(undefined) : E.left(storeUnavailable(new Error('SELECT 1 did not answer 1')));
      }),
  };
};

const createSqliteTokenStore = (
  db: Database.Database,
  commits: GroupCommit<SqliteBatch>,
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
  // Changes when another connection commits to the file; see TokenCache. Read once per event-loop
  // turn, not per request: a commit by another process (the tokens CLI revoking a token) applies
  // from the next turn's requests on, and each request is spared a read transaction of its own.
  const dataVersionStatement = db.prepare('PRAGMA data_version').pluck();
  const dataVersion = oncePerTurn(() => dataVersionStatement.get() as number);
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
        const version = dataVersion();
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
