import * as E from 'fp-ts/lib/Either.js';
import { storeUnavailable, type StoreError } from '../../ports/plant-store.js';

export const closedError = (): Error => new Error('the store is closed');

/** Runs a read (or any synchronous step) and turns a thrown SQLite error into StoreUnavailable. */
export const attempt = <Err, A>(closed: () => boolean, run: () => E.Either<Err, A>): E.Either<Err | StoreError, A> => {
  if (closed()) return E.left(storeUnavailable(closedError()));
  try {
    return run();
  } catch (cause) {
    return E.left(storeUnavailable(cause));
  }
};
