import type { IdTaken, Plant, PlantId, PlantName, PlantNotFound, PlantTag, ListQuery } from '@plant-store/domain';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';

/** The store could not be reached or did not answer in time (pool exhausted, timeout, outage): 503. */
export interface StoreUnavailable {
  readonly _tag: 'StoreUnavailable';
  readonly cause: unknown;
}
export const storeUnavailable = (cause: unknown): StoreUnavailable => ({ _tag: 'StoreUnavailable', cause });

export type StoreError = StoreUnavailable;

/** What a create asks the store to keep; `id` absent means the store assigns one. */
export interface NewPlant {
  readonly id?: PlantId;
  readonly name: PlantName;
  readonly tag?: PlantTag;
}

/**
 * The storage port. Every method resolves only after its change is committed (durable), and
 * never rejects: expected outcomes and store failures are values. Adapters: SQLite, PostgreSQL.
 */
export interface PlantStore {
  /** Adds a plant. A server-assigned id never collides with any existing id, client-chosen ones included. */
  create(plant: NewPlant): TaskEither<IdTaken | StoreError, Plant>;
  get(id: PlantId): TaskEither<PlantNotFound | StoreError, Plant>;
  /** Of concurrent deletes of one plant exactly one succeeds; the others get PlantNotFound. */
  delete(id: PlantId): TaskEither<PlantNotFound | StoreError, void>;
  /** Plants with id > query.after, ascending, at most query.limit; cost independent of store size. */
  list(query: ListQuery): TaskEither<StoreError, readonly Plant[]>;
  /** Succeeds when the store answers (for /readyz). */
  ping(): TaskEither<StoreError, void>;
}
