import { plantNotFound, type IdTaken } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type postgres from 'postgres';
import {
  storeUnavailable,
  type AtChange,
  type PlantNotFoundAt,
  type PlantPage,
  type PlantStore,
  type StoreError,
  type VersionedPlant,
  type WrittenPlant,
} from '../../ports/plant-store.js';
import { PostgresStoreError, type PostgresGate, type PostgresStoreLogger } from './gate.js';
import { atChange, countStatement, matchesStatement, pageStatement, splitAtChange } from './plant-pages.js';
import { logDecodeFailure, plantsFromRows, versionedPlantFromRow } from './rows.js';
import { changeStateFromRow, countFromTextRow } from '../store-rows.js';
import type { PostgresWriteQueue } from './write-queue.js';
import { plantColumnList } from '../plant-columns.js';

/**
 * A read by id with the change log's newest number (one statement, one snapshot), every plant
 * column (plant-columns.ts) selected. Its text is made once: a fragment for the column list in a
 * tagged template would build the statement again on every read, the hottest one.
 */
const GET_BY_ID = `
  SELECT s.last_seq::float8 AS last_seq, p.id, ${plantColumnList('p')}, p.version::text AS version
    FROM plant_change_state s LEFT JOIN plants p ON p.id = $1::int8`;

/**
 * Plants and idempotency keys in PostgreSQL: creates, updates and deletes go through the write
 * queue (group commit), reads and the key purge are single statements through the gate.
 */
export const createPostgresPlantStore = (
  sql: postgres.Sql,
  gate: PostgresGate,
  writes: PostgresWriteQueue,
  logger: PostgresStoreLogger | undefined,
  /** Arrays of creates (plant-batch.ts). */
  createMany: PlantStore['createMany'],
): PlantStore => ({
  createMany,
  create: (plant) => async (): Promise<E.Either<IdTaken | StoreError, WrittenPlant>> => {
    const outcome = await writes.create(plant);
    if (E.isRight(outcome)) {
      const { result } = outcome.right;
      if (E.isLeft(result)) return result;
      const { changeSeq } = result.right;
      // An unkeyed create is never a replay, so it always has its change number.
      return changeSeq === undefined
        ? E.left(storeUnavailable(new PostgresStoreError('a create came back without its change number', 'BAD_RESULT')))
        : E.right({ ...result.right, changeSeq });
    }
    // Without a key no key can be reused; should the queue say otherwise, that is a defect.
    const failure = outcome.left;
    return E.left(
      failure._tag === 'StoreUnavailable'
        ? failure
        : storeUnavailable(new PostgresStoreError('an unkeyed create met a key', 'BAD_RESULT')),
    );
  },
  createOnce: (plant, claim) => () => writes.create(plant, claim),
  // One short statement per step; the index on expires_at finds the rows without a scan.
  purgeExpiredKeys: (limit) => async () =>
    pipe(
      await gate.run(
        'purge idempotency keys',
        () => sql`
          DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
            SELECT ctid FROM idempotency_keys WHERE expires_at <= now() ORDER BY expires_at LIMIT ${limit}::int4))`,
      ),
      E.map((rows) => ({ forgotten: rows.count, more: rows.count === limit })),
    ),
  update: (id, patch, condition) => () => writes.update(id, patch, condition),
  replace: (id, plant, condition) => () => writes.replace(id, plant, condition),
  delete: (id, condition) => () => writes.delete(id, condition),
  get:
    (id): TaskEither<PlantNotFoundAt | StoreError, VersionedPlant & AtChange> =>
    async () =>
      pipe(
        await gate.run(
          'get plant',
          // With the change log's newest number, in the same statement (one snapshot).
          () => sql.unsafe(GET_BY_ID, [id], { prepare: true }),
        ),
        E.chainW((rows): E.Either<PlantNotFoundAt | StoreError, VersionedPlant & AtChange> => {
          const row = rows[0] as { id?: unknown } | undefined;
          const state = changeStateFromRow(row);
          if (E.isLeft(state)) return state;
          if (row?.id === null) return E.left({ ...plantNotFound(id), changeSeq: state.right.lastSeq });
          return pipe(
            logDecodeFailure(logger, 'get plant')(versionedPlantFromRow(row)),
            E.map((read) => ({ ...read, changeSeq: state.right.lastSeq })),
          );
        }),
      ),
  list: (query) => async () => {
    const { q } = query;
    let rows = await gate.run('list plants', () => atChange(sql, pageStatement(sql, query)));
    // A `q` page the bounded walk left short: from the matches (see directScanRows).
    if (q !== undefined && E.isRight(rows) && splitAtChange(rows.right).page.length < query.limit)
      rows = await gate.run('list plants', () => atChange(sql, matchesStatement(sql, { ...query, q })));
    return pipe(
      rows,
      E.chain((found) => {
        const { state: row, page } = splitAtChange(found);
        const state = changeStateFromRow(row);
        if (E.isLeft(state)) return state;
        return pipe(
          logDecodeFailure(logger, 'list plants')(plantsFromRows(page)),
          E.map((plants): PlantPage => ({ plants, changeSeq: state.right.lastSeq })),
        );
      }),
    );
  },
  count: (filter) => async () =>
    pipe(
      await gate.run('count plants', () => countStatement(sql, filter)),
      E.chain((rows) => logDecodeFailure(logger, 'count plants')(countFromTextRow(rows[0]))),
    ),
  // Not ready either when connections dropped while the ping ran: during a short restart a ping
  // can wait for the reconnect and succeed, and /readyz would never show the outage.
  ping: () => async () => {
    const before = gate.outageErrors;
    return pipe(
      await gate.run('ping', () => sql`SELECT 1 AS one`),
      E.chain((rows) =>
        rows.length === 1
          ? E.right(undefined)
          : E.left(storeUnavailable(new PostgresStoreError('SELECT 1 returned no row', undefined))),
      ),
      E.chain(() =>
        gate.outageErrors === before
          ? E.right(undefined)
          : E.left(
              storeUnavailable(
                new PostgresStoreError('connections to PostgreSQL dropped during the ping', 'CONNECTION_DROPPED'),
              ),
            ),
      ),
    );
  },
});
