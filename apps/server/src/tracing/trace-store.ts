import type { ChangeLog } from '../ports/change-log.js';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { PlantStore } from '../ports/plant-store.js';
import type { Store } from '../ports/store.js';
import type { TokenStore } from '../ports/token-store.js';
import type { TracedSystem, Tracing } from './tracing.js';

/** Only a store failure makes a store span an error; a 404 or a 409 is the store answering. */
const storeFailure = <L, A>(outcome: E.Either<L, A>): unknown =>
  E.isLeft(outcome) && (outcome.left as { _tag?: unknown })._tag === 'StoreUnavailable' ? outcome.left : undefined;

/**
 * `store` with each plant and token operation a request makes in a span of its own: its SQL verb
 * and table (`INSERT plants`), `db.system.name`, never a value. A write's span lasts until it is
 * committed (and durable), so the wait for the group commit or the write batch is in it; the
 * batch's own span (the stores start it) is linked from each write it carried.
 */
export const traceStore = (store: Store, tracing: Tracing, kind: 'sqlite' | 'postgres'): Store => {
  const system: TracedSystem = kind === 'sqlite' ? 'sqlite' : 'postgresql';
  const traced =
    (operation: string, collection: string) =>
    <L, A>(task: TaskEither<L, A>): TaskEither<L, A> =>
    () =>
      tracing.storeOperation(system, operation, collection, task, storeFailure);
  const plantOp = (operation: string) => traced(operation, 'plants');
  const tokenOp = (operation: string) => traced(operation, 'tokens');
  const { plants, tokens } = store;
  const tracedPlants: PlantStore = {
    create: (plant) => plantOp('INSERT')(plants.create(plant)),
    createOnce: (plant, claim) => plantOp('INSERT')(plants.createOnce(plant, claim)),
    createMany: (many, claim) => plantOp('INSERT')(plants.createMany(many, claim)),
    purgeExpiredKeys: (limit) => plants.purgeExpiredKeys(limit),
    get: (id) => plantOp('SELECT')(plants.get(id)),
    update: (id, patch, condition) => plantOp('UPDATE')(plants.update(id, patch, condition)),
    // An insert or an update, decided in the store (PUT): the verb of both, as SQL has it.
    replace: (id, plant, condition) => plantOp('UPSERT')(plants.replace(id, plant, condition)),
    delete: (id, condition) => plantOp('DELETE')(plants.delete(id, condition)),
    list: (query) => plantOp('SELECT')(plants.list(query)),
    count: (filter) => plantOp('SELECT')(plants.count(filter)),
    ping: () => plantOp('SELECT')(plants.ping()),
  };
  const tracedTokens: TokenStore = {
    insert: (token) => tokenOp('INSERT')(tokens.insert(token)),
    findByHash: (hash) => tokenOp('SELECT')(tokens.findByHash(hash)),
    list: () => tokenOp('SELECT')(tokens.list()),
    revoke: (idOrName, at) => tokenOp('UPDATE')(tokens.revoke(idOrName, at)),
    count: () => tokenOp('SELECT')(tokens.count()),
  };
  const { changes } = store;
  const tracedChanges: ChangeLog = {
    above: (since, limit, expiredBefore) =>
      traced('SELECT', 'plant_changes')(changes.above(since, limit, expiredBefore)),
    aboveTagged: (since, tag, limit, expiredBefore) =>
      traced('SELECT', 'plant_changes')(changes.aboveTagged(since, tag, limit, expiredBefore)),
    newest: () => changes.newest(),
    forget: (before, limit) => changes.forget(before, limit),
  };
  return {
    plants: tracedPlants,
    changes: tracedChanges,
    tokens: tracedTokens,
    webhooks: store.webhooks,
    close: () => store.close(),
  };
};
