import type { Plant } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { PlantStoreError } from './client-error.js';
import type {
  CreatedPlant,
  CreateOptions,
  CreatePlantInput,
  ListPlantsQuery,
  PlantListPage,
  PlantsApi,
} from './create-plant-store-client.js';
import type { CallOptions } from './transport.js';

/**
 * The plant operations as `TaskEither<PlantStoreError, A>`: a thin adapter over the promise API.
 * Every `PlantStoreError` becomes a `Left`; anything else (a defect such as a hook that throws, or
 * a `TypeError` for a bad option) still rejects the task, as fp-ts expects of defects.
 */
export interface PlantsTaskEither {
  /** `replayed`, as in the promise API, is a non-enumerable property of the `Right`'s plant. */
  create(input: CreatePlantInput, options?: CreateOptions): TE.TaskEither<PlantStoreError, CreatedPlant>;
  delete(id: number, options?: CallOptions): TE.TaskEither<PlantStoreError, void>;
  get(id: number, options?: CallOptions): TE.TaskEither<PlantStoreError, Plant>;
  list(query?: ListPlantsQuery, options?: CallOptions): TE.TaskEither<PlantStoreError, PlantListPage>;
  /** Every plant, following the `Link` headers page after page, collected into one array. */
  listAll(query?: { readonly limit?: number }, options?: CallOptions): TE.TaskEither<PlantStoreError, readonly Plant[]>;
}

const toTaskEither =
  <A>(run: () => Promise<A>): TE.TaskEither<PlantStoreError, A> =>
  () =>
    run().then(E.right, (error: unknown) => {
      if (error instanceof PlantStoreError) return E.left(error);
      throw error;
    });

export const createPlantsTaskEither = (plants: PlantsApi): PlantsTaskEither => ({
  create: (input, options) => toTaskEither(() => plants.create(input, options)),
  delete: (id, options) => toTaskEither(() => plants.delete(id, options)),
  get: (id, options) => toTaskEither(() => plants.get(id, options)),
  list: (query, options) => toTaskEither(() => plants.list(query, options)),
  listAll: (query, options) =>
    toTaskEither(async () => {
      const all: Plant[] = [];
      for await (const plant of plants.all(query, options)) all.push(plant);
      return all;
    }),
});
