import type { CreatePlantRequest, PlantId } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { pipe } from 'fp-ts/lib/function.js';
import type {
  IdempotencyClaim,
  IdempotencyKeyReused,
  KeyedBatch,
  PlantStore,
  StoreError,
} from '../ports/plant-store.js';

/** An array of creates gave one id to two of its elements (→ 409, decided before the store, never saved with a key). */
export interface IdRepeated {
  readonly _tag: 'IdRepeated';
  readonly id: PlantId;
  /** The two elements, counted from 0: the first that gives the id, and the next. */
  readonly at: readonly [number, number];
}
export const idRepeated = (id: PlantId, at: readonly [number, number]): IdRepeated => ({ _tag: 'IdRepeated', id, at });

/** The first id that two elements of `requests` give, in array order of the second one; none: Right. */
export const distinctIds = (requests: readonly CreatePlantRequest[]): E.Either<IdRepeated, void> => {
  const seen = new Map<number, number>();
  for (const [i, { id }] of requests.entries()) {
    if (id === undefined) continue;
    const first = seen.get(id);
    if (first !== undefined) return E.left(idRepeated(id, [first, i]));
    seen.set(id, i);
  }
  return E.right(undefined);
};

/**
 * An array of creates (POST /plants/batch): refused whole when two elements give one id, else
 * handed to the store as one transaction (PlantStore.createMany), keyed or not.
 */
export const createMany =
  (store: PlantStore) =>
  (
    requests: readonly CreatePlantRequest[],
    claim?: IdempotencyClaim,
  ): TE.TaskEither<IdRepeated | IdempotencyKeyReused | StoreError, KeyedBatch> =>
    pipe(
      TE.fromEither(distinctIds(requests)),
      TE.chainW(() => store.createMany(requests, claim)),
    );
