import * as E from 'fp-ts/lib/Either.js';
import {
  idempotencyKeyReused,
  type CreateResult,
  type IdempotencyClaim,
  type IdempotencyKeyReused,
  type KeyedCreate,
} from '../ports/plant-store.js';

/**
 * What a store keeps under a key: the request (canonical JSON, see canonical-request.ts) and the
 * outcome it got.
 */
export interface SavedCreate {
  readonly request: string;
  readonly result: CreateResult;
}

/** The answer to a keyed create that found `saved` under its key: the replay, or 422 for another request. */
export const replayOf = (saved: SavedCreate, claim: IdempotencyClaim): E.Either<IdempotencyKeyReused, KeyedCreate> =>
  saved.request === claim.request
    ? E.right({ result: saved.result, replayed: true })
    : E.left(idempotencyKeyReused(claim.key));
