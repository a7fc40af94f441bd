import { fold, PlantId } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type postgres from 'postgres';
import { replayBatchOf } from '../../idempotency/batch-request.js';
import {
  idsTaken,
  type IdempotencyClaim,
  type IdempotencyKeyReused,
  type KeyedBatch,
  type NewPlant,
  type PlantStore,
  type StoreError,
} from '../../ports/plant-store.js';
import type { StoreTracing } from '../../tracing/tracing.js';
import { plantColumnsOf } from '../plant-columns.js';
import type { PostgresGate } from './gate.js';
import { PLANT_BATCH_FUNCTION } from './migrations/index.js';
import { stored, unavailable } from './write-outcomes.js';

/** The one row plant_store_create_batch_v1 returns. */
const BatchRow = t.type(
  {
    batch_outcome: t.keyof({ created: null, taken: null, saved: null }),
    batch_ids: t.union([t.string, t.null]),
    // int8, as the driver hands it: text.
    batch_seq: t.union([t.string, t.null]),
    batch_saved: t.union([t.string, t.null]),
  },
  'BatchRow',
);

const Ids = t.array(PlantId);

const idsOf = (text: string | null): PlantId[] | undefined => {
  if (text === null) return undefined;
  try {
    const ids = Ids.decode(JSON.parse(text));
    return E.isRight(ids) ? ids.right : undefined;
  } catch {
    return undefined;
  }
};

export interface PostgresPlantBatchesOptions {
  /** How long a keyed array's outcome is kept (IDEMPOTENCY_TTL_SECONDS). */
  readonly idempotencyTtlSeconds: number;
  /** Tracing on: the array's events carry its trace, and its statement gets a span linked to it. */
  readonly tracing?: StoreTracing | undefined;
}

/**
 * Arrays of creates (POST /plants/batch) on PostgreSQL: ONE call of plant_store_create_batch_v1
 * (migrations/batch-function-v1.ts) per array, on a pooled connection through the gate — one
 * round trip, one transaction, one commit for up to a thousand plants. Not through the write
 * queue: an array is a batch by itself, and it takes turns with the queue's statements (and every
 * other instance's) on the writers' lock the function takes first.
 */
export const createPostgresPlantBatches = (
  sql: postgres.Sql,
  gate: PostgresGate,
  { idempotencyTtlSeconds, tracing }: PostgresPlantBatchesOptions,
): PlantStore['createMany'] => {
  const run = async (
    plants: readonly NewPlant[],
    claim: IdempotencyClaim | undefined,
  ): Promise<E.Either<IdempotencyKeyReused | StoreError, KeyedBatch>> => {
    const trace = tracing?.current();
    const saved = trace?.saved();
    let autos = 0;
    let maxExplicit = 0;
    const input = plants.map((plant, i) => {
      const { id, name } = plant;
      if (id !== undefined) maxExplicit = Math.max(maxExplicit, id);
      return {
        i,
        id: id ?? null,
        auto: id === undefined ? autos++ : null,
        ...plantColumnsOf(plant),
        folded: fold(name),
        ...(saved === undefined ? {} : { trace_parent: saved.traceparent, trace_state: saved.tracestate ?? null }),
      };
    });
    const span = tracing?.batch('postgresql', 'postgresql array of creates', [trace]);
    const rows = await gate.run(
      `create an array of ${plants.length}`,
      () => sql`
        SELECT * FROM ${sql.unsafe(PLANT_BATCH_FUNCTION.name)}(${sql.json(input)}, ${maxExplicit}::int8, ${autos}::int8,
          ${claim?.owner ?? null}::text, ${claim?.key ?? null}::text, ${claim?.request ?? null}::text,
          ${idempotencyTtlSeconds}::int4)`,
    );
    span?.end(E.isLeft(rows) ? rows.left : undefined);
    if (E.isLeft(rows)) return rows;
    const row = BatchRow.decode(rows.right[0]);
    if (E.isLeft(row)) return E.left(unavailable('the array statement returned an unexpected row', 'BAD_RESULT'));
    const { batch_outcome: outcome, batch_ids, batch_seq, batch_saved } = row.right;
    if (outcome === 'saved') {
      if (claim === undefined || batch_saved === null)
        return E.left(unavailable('the array statement replayed a key it was not given', 'BAD_RESULT'));
      return replayBatchOf(batch_saved, claim);
    }
    const ids = idsOf(batch_ids);
    if (outcome === 'taken') {
      return ids === undefined || ids.length === 0
        ? E.left(unavailable('the array statement named no taken id', 'BAD_RESULT'))
        : E.right({ result: E.left(idsTaken(ids)), replayed: false });
    }
    const seq = batch_seq === null ? NaN : Number(batch_seq);
    if (ids === undefined || ids.length !== plants.length || !Number.isSafeInteger(seq) || seq < 1)
      return E.left(unavailable('the array statement returned no id or change for a plant', 'BAD_RESULT'));
    // The plants as the caller decoded them, with their ids: not read back.
    const created = plants.map((plant, i) => stored(ids[i] as PlantId, plant));
    return E.right({ result: E.right({ plants: created, changeSeq: seq }), replayed: false });
  };
  return (plants, claim) => () => run(plants, claim);
};
