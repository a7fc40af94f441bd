import { fold, type Plant, type PlantId } from '@plant-store/domain';
import type Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import { replayBatchOf, savedBatchText } from '../../idempotency/batch-request.js';
import {
  idsTaken,
  storeUnavailable,
  type BatchResult,
  type IdempotencyClaim,
  type IdempotencyKeyReused,
  type KeyedBatch,
  type NewPlant,
  type PlantStore,
  type StoreError,
} from '../../ports/plant-store.js';
import { PLANT_FIELDS, plantColumnList, plantValues } from '../plant-columns.js';
import { changeStateFromRow } from '../store-rows.js';
import type { SqliteBatch } from './batch.js';
import type { GroupCommit } from './group-commit.js';

/**
 * Arrays of creates (POST /plants/batch) in SQLite: one group-commit write each, so an array
 * shares its transaction (and its fsync) with the other writes of its turn, and runs inside a
 * savepoint of its own, all or nothing, whatever its neighbours do.
 *
 * The plants that give an id are inserted first (ON CONFLICT DO NOTHING: a taken id inserts
 * nothing, and every taken id is named), then, once none was taken, the server-assigned ones,
 * which take ids above the high-water mark those raised: they never collide with an id of the
 * array. Any taken id, or a statement that throws, rolls the savepoint back and puts the id
 * allocator back as it was (PlantIdAllocator.mark), so nothing of the array stays: no plant, no
 * change, no event. The change log's triggers give each plant its change; the newest number
 * (the state row, read inside the transaction) is the array's X-Change-Seq.
 *
 * A key is looked up first (BEGIN IMMEDIATE: every other writer's key is committed or not yet
 * begun), and its outcome — the 201 with its ids and change number, or the 409 — saved in the same
 * savepoint (idempotency/batch-request.ts for the row's form).
 */
export const createSqlitePlantBatches = (
  db: Database.Database,
  commits: GroupCommit<SqliteBatch>,
  ttlMs: number,
): PlantStore['createMany'] => {
  const columns = plantColumnList();
  const insert = db.prepare<unknown[]>(
    `INSERT INTO plants (id, ${columns}, version, name_folded) VALUES (?, ${PLANT_FIELDS.map(() => '?').join(', ')}, ?, ?)
     ON CONFLICT (id) DO NOTHING`,
  );
  const lastSeq = db.prepare('SELECT last_seq FROM plant_change_state');
  const savedKey = db.prepare<[string, string, number]>(
    'SELECT request FROM idempotency_keys WHERE owner = ? AND key = ? AND expires_at > ?',
  );
  const saveKey = db.prepare<[string, string, string, number, number, number]>(
    `INSERT INTO idempotency_keys (owner, key, request, status, plant_id, version, expires_at) VALUES (?, ?, ?, ?, ?, 0, ?)
     ON CONFLICT (owner, key) DO UPDATE SET
       request = excluded.request, status = excluded.status, plant_id = excluded.plant_id,
       version = excluded.version, expires_at = excluded.expires_at`,
  );
  const savepoint = db.prepare('SAVEPOINT plant_batch');
  const release = db.prepare('RELEASE plant_batch');
  const rollbackTo = db.prepare('ROLLBACK TO plant_batch');

  /** Stores the array in the savepoint; a Left or a throw leaves it to the caller to roll back. */
  const store = (plants: readonly NewPlant[], batch: SqliteBatch): E.Either<StoreError, BatchResult> => {
    const stored: Plant[] = new Array<Plant>(plants.length);
    const taken: PlantId[] = [];
    const put = (i: number, id: PlantId, plant: NewPlant): boolean => {
      if (insert.run(id, ...plantValues(plant), batch.ids.nextVersion(), fold(plant.name)).changes === 0) return false;
      batch.ids.stored(id);
      stored[i] = { ...plant, id };
      return true;
    };
    for (const [i, plant] of plants.entries()) {
      if (plant.id !== undefined && !put(i, plant.id, plant)) taken.push(plant.id);
    }
    if (taken.length > 0) return E.right(E.left(idsTaken(taken)));
    for (const [i, plant] of plants.entries()) {
      if (plant.id !== undefined) continue;
      // PlantIdAllocator only hands out ids from 1 to MAX_PLANT_ID.
      const id = batch.ids.next() as PlantId | undefined;
      if (id === undefined) return E.left(storeUnavailable(new Error('every plant id from 1 to 2^53-1 is in use')));
      // A server-assigned id cannot be taken while the high-water mark holds; refuse rather than guess.
      if (!put(i, id, plant)) return E.left(storeUnavailable(new Error(`assigned plant id ${id} is already taken`)));
    }
    for (const plant of stored) batch.outbox.created(plant);
    const state = changeStateFromRow(lastSeq.get());
    if (E.isLeft(state)) return state;
    return E.right(E.right({ plants: stored, changeSeq: state.right.lastSeq }));
  };

  const createMany = (
    plants: readonly NewPlant[],
    claim: IdempotencyClaim | undefined,
    batch: SqliteBatch,
  ): E.Either<IdempotencyKeyReused | StoreError, KeyedBatch> => {
    const now = Date.now();
    if (claim !== undefined) {
      const saved = savedKey.get(claim.owner, claim.key, now) as { request?: unknown } | undefined;
      if (saved !== undefined) {
        if (typeof saved.request !== 'string')
          return E.left(storeUnavailable(new TypeError('a row of idempotency_keys holds no request')));
        return replayBatchOf(saved.request, claim);
      }
    }
    const restore = batch.ids.mark();
    savepoint.run();
    let outcome: E.Either<StoreError, BatchResult>;
    try {
      outcome = store(plants, batch);
      if (E.isRight(outcome) && E.isLeft(outcome.right)) {
        // Taken ids: none of the array stays, and the 409 is the outcome the key saves.
        rollbackTo.run();
        restore();
      }
      if (E.isRight(outcome) && claim !== undefined) {
        const result = outcome.right;
        const first = E.isLeft(result) ? result.left.ids[0] : result.right.plants[0]?.id;
        saveKey.run(
          claim.owner,
          claim.key,
          savedBatchText(claim.request, result),
          E.isLeft(result) ? 409 : 201,
          first ?? 0,
          now + ttlMs,
        );
      }
    } catch (cause) {
      // After an error that rolled the whole transaction back (SQLITE_FULL…) there is no savepoint
      // left: GroupCommit fails the batch.
      if (db.inTransaction) {
        rollbackTo.run();
        release.run();
      }
      restore();
      throw cause;
    }
    if (E.isLeft(outcome)) {
      rollbackTo.run();
      restore();
    }
    release.run();
    return E.isLeft(outcome) ? outcome : E.right({ result: outcome.right, replayed: false });
  };

  return (plants, claim) => () => commits.submit((batch) => createMany(plants, claim, batch));
};
