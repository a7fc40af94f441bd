import { formatErrors, Plant, PlantId, type CreatePlantRequest } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  idempotencyKeyReused,
  idsTaken,
  storeUnavailable,
  type BatchResult,
  type IdempotencyClaim,
  type IdempotencyKeyReused,
  type KeyedBatch,
  type StoreUnavailable,
} from '../ports/plant-store.js';
import { canonicalRequest, SavedRequest } from './canonical-request.js';

/**
 * How an array of creates (POST /plants/batch) is kept with its `Idempotency-Key`, in the same
 * `idempotency_keys` row a single create uses (one key space for both routes), with no column of
 * its own: the row's `request` holds the array's canonical request, a line feed, and the outcome
 * as JSON — `{"ids":[…],"seq":N}` for a 201 (the ids in the array's order and its newest change
 * number), `{"taken":[…]}` for a 409. `status` is 201 or 409 as for a single create, `plant_id`
 * the first id (created or taken). A replayed 201 is rebuilt from the requests and the ids, as a
 * single create's is from its request and `plant_id`. Canonical JSON never holds a raw line feed
 * (JSON.stringify escapes it), so the first one ends the request. docs/explanation/storage.md,
 * "Idempotency keys inside the stores".
 */

/** What every array's canonical request starts with, and no single create's (its canonical form is `[…]` or `{"id"…`/`{"name"…`). */
const BATCH_START = '{"batch":[';

/**
 * The array as its key compares it: each element's canonical request (canonical-request.ts), in
 * the array's order. Equal exactly for equal arrays, element for element, order included.
 */
export const canonicalBatchRequest = (requests: readonly CreatePlantRequest[]): string =>
  `${BATCH_START}${requests.map(canonicalRequest).join(',')}]}`;

/** Whether a saved `request` is an array's (else it is a single create's). */
export const isBatchText = (text: string): boolean => text.startsWith(BATCH_START);

/** The `request` column of an array's saved outcome: its canonical request, a line feed, the outcome. */
export const savedBatchText = (request: string, result: BatchResult): string =>
  `${request}\n${JSON.stringify(
    E.isLeft(result)
      ? { taken: result.left.ids }
      : { ids: result.right.plants.map((p) => p.id), seq: result.right.changeSeq },
  )}`;

/** What an array's saved outcome says once read: its request in today's canonical form, and the outcome. */
export interface SavedBatch {
  readonly request: string;
  readonly result: BatchResult;
}

const Requests = t.type({ batch: t.array(t.unknown) }, 'SavedBatchRequest');
const Ids = t.array(PlantId);
const Outcome = t.union([
  t.type({ ids: Ids, seq: t.number }, 'SavedBatchCreated'),
  t.type({ taken: Ids }, 'SavedBatchTaken'),
]);

const parse = (text: string): E.Either<string, unknown> => {
  try {
    return E.right(JSON.parse(text));
  } catch {
    return E.left('not JSON');
  }
};

const problem = (what: string): StoreUnavailable =>
  storeUnavailable(new TypeError(`a row of idempotency_keys does not decode: ${what}`));

/**
 * A saved array's `request` column as its request (compared in today's canonical form, so that a
 * key saved in an earlier form still replays) and its outcome; StoreUnavailable naming what does
 * not decode.
 */
export const savedBatchFromText = (text: string): E.Either<StoreUnavailable, SavedBatch> => {
  const end = text.indexOf('\n');
  if (!isBatchText(text) || end < 0) return E.left(problem('not the saved outcome of an array of creates'));
  const head = parse(text.slice(0, end));
  const tail = parse(text.slice(end + 1));
  if (E.isLeft(head) || E.isLeft(tail)) return E.left(problem('its request or its outcome is not JSON'));
  const requests = Requests.decode(head.right);
  if (E.isLeft(requests)) return E.left(problem(formatErrors(requests.left).join('; ')));
  const decoded: CreatePlantRequest[] = [];
  for (const element of requests.right.batch) {
    const one = SavedRequest.decode(JSON.stringify(element));
    if (E.isLeft(one)) return E.left(problem(formatErrors(one.left).join('; ')));
    decoded.push(one.right);
  }
  const request = canonicalBatchRequest(decoded);
  const outcome = Outcome.decode(tail.right);
  if (E.isLeft(outcome)) return E.left(problem(formatErrors(outcome.left).join('; ')));
  if ('taken' in outcome.right) return E.right({ request, result: E.left(idsTaken(outcome.right.taken)) });
  const { ids, seq } = outcome.right;
  if (ids.length !== decoded.length || !Number.isSafeInteger(seq) || seq < 1)
    return E.left(problem(`${ids.length} ids and change ${seq} for ${decoded.length} plants`));
  const plants: Plant[] = [];
  for (const [i, one] of decoded.entries()) {
    const plant = Plant.decode({ ...one, id: ids[i] });
    if (E.isLeft(plant)) return E.left(problem(formatErrors(plant.left).join('; ')));
    plants.push(plant.right);
  }
  return E.right({ request, result: E.right({ plants, changeSeq: seq }) });
};

/**
 * The answer to a keyed array that found `savedRequest` (a `request` column) under its key: the
 * replay of an equal array, or IdempotencyKeyReused for another array or a single create's key.
 */
export const replayBatchOf = (
  savedRequest: string,
  claim: IdempotencyClaim,
): E.Either<IdempotencyKeyReused | StoreUnavailable, KeyedBatch> => {
  if (!isBatchText(savedRequest)) return E.left(idempotencyKeyReused(claim.key));
  const saved = savedBatchFromText(savedRequest);
  if (E.isLeft(saved)) return saved;
  return saved.right.request === claim.request
    ? E.right({ result: saved.right.result, replayed: true })
    : E.left(idempotencyKeyReused(claim.key));
};
