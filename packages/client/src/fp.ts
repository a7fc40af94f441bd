import type { Plant, PlantSort } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as TE from 'fp-ts/lib/TaskEither.js';
import { PlantStoreError } from './client-error.js';
import type {
  AllPlantsQuery,
  CountedPlantListPage,
  CreatedPlant,
  CreatedPlants,
  CreateOptions,
  CreatePlantInput,
  DeleteOptions,
  FetchedPlant,
  GetOptions,
  IdSort,
  ListOptions,
  ListPlantsQuery,
  NotModified,
  PlantListPage,
  PlantsApi,
  PutOptions,
  PutPlant,
  PutPlantInput,
  UpdatedPlant,
  UpdateOptions,
  UpdatePlantInput,
} from './plants-api.js';
import type { CallOptions } from './transport.js';

/**
 * The plant operations as `TaskEither<PlantStoreError, A>`: a thin adapter over the promise API.
 * Every `PlantStoreError` becomes a `Left`; anything else (a defect such as a hook that throws, or
 * a `TypeError` for a bad option) still rejects the task, as fp-ts expects of defects.
 */
export interface PlantsTaskEither {
  /** `replayed` and `etag`, as in the promise API, are non-enumerable properties of the `Right`'s plant. */
  create(input: CreatePlantInput, options?: CreateOptions): TE.TaskEither<PlantStoreError, CreatedPlant>;
  /** `replayed` and `changeSeq`, as in the promise API, are non-enumerable properties of the `Right`'s array. */
  createMany(
    plants: readonly CreatePlantInput[],
    options?: CreateOptions,
  ): TE.TaskEither<PlantStoreError, CreatedPlants>;
  /** `PreconditionFailedError` is a `Left` when `ifMatch` no longer names the plant's ETag. */
  delete(id: number, options?: DeleteOptions): TE.TaskEither<PlantStoreError, void>;
  get(
    id: number,
    options?: CallOptions & { readonly ifNoneMatch?: undefined },
  ): TE.TaskEither<PlantStoreError, FetchedPlant>;
  /** "Not modified" is a `Right` (`NotModified`), not an error. */
  get(id: number, options: GetOptions): TE.TaskEither<PlantStoreError, FetchedPlant | NotModified>;
  /** `PreconditionFailedError` is a `Left` when `ifMatch` no longer names the plant's ETag. */
  update(id: number, patch: UpdatePlantInput, options?: UpdateOptions): TE.TaskEither<PlantStoreError, UpdatedPlant>;
  /** `PreconditionFailedError` is a `Left` when `ifMatch` or `ifNoneMatch` does not hold. */
  put(id: number, plant: PutPlantInput, options?: PutOptions): TE.TaskEither<PlantStoreError, PutPlant>;
  list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions & { readonly count?: false },
  ): TE.TaskEither<PlantStoreError, PlantListPage<S>>;
  /** With `count: true`, the `Right` carries `total` too. */
  list<S extends PlantSort = IdSort>(
    query: ListPlantsQuery<S> | undefined,
    options: ListOptions & { readonly count: true },
  ): TE.TaskEither<PlantStoreError, CountedPlantListPage<S>>;
  list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions,
  ): TE.TaskEither<PlantStoreError, PlantListPage<S> & { readonly total?: number }>;
  /** Every plant (with `tag` and `q`: every plant that matches) in the order `sort`, following the `Link` headers page after page, collected into one array. */
  listAll(query?: AllPlantsQuery, options?: CallOptions): TE.TaskEither<PlantStoreError, readonly Plant[]>;
}

const toTaskEither =
  <A>(run: () => Promise<A>): TE.TaskEither<PlantStoreError, A> =>
  () =>
    run().then(E.right, (error: unknown) => {
      if (error instanceof PlantStoreError) return E.left(error);
      throw error;
    });

export const createPlantsTaskEither = (plants: PlantsApi): PlantsTaskEither => {
  function get(
    id: number,
    options?: CallOptions & { readonly ifNoneMatch?: undefined },
  ): TE.TaskEither<PlantStoreError, FetchedPlant>;
  function get(id: number, options: GetOptions): TE.TaskEither<PlantStoreError, FetchedPlant | NotModified>;
  function get(id: number, options?: GetOptions): TE.TaskEither<PlantStoreError, FetchedPlant | NotModified> {
    return toTaskEither(() => (options === undefined ? plants.get(id) : plants.get(id, options)));
  }
  function list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions & { readonly count?: false },
  ): TE.TaskEither<PlantStoreError, PlantListPage<S>>;
  function list<S extends PlantSort = IdSort>(
    query: ListPlantsQuery<S> | undefined,
    options: ListOptions & { readonly count: true },
  ): TE.TaskEither<PlantStoreError, CountedPlantListPage<S>>;
  function list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions,
  ): TE.TaskEither<PlantStoreError, PlantListPage<S> & { readonly total?: number }>;
  function list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions,
  ): TE.TaskEither<PlantStoreError, PlantListPage<S> & { readonly total?: number }> {
    return toTaskEither(() => plants.list(query, options));
  }
  return {
    create: (input, options) => toTaskEither(() => plants.create(input, options)),
    createMany: (many, options) => toTaskEither(() => plants.createMany(many, options)),
    delete: (id, options) => toTaskEither(() => plants.delete(id, options)),
    get,
    update: (id, patch, options) => toTaskEither(() => plants.update(id, patch, options)),
    put: (id, plant, options) => toTaskEither(() => plants.put(id, plant, options)),
    list,
    listAll: (query, options) =>
      toTaskEither(async () => {
        const all: Plant[] = [];
        for await (const plant of plants.all(query, options)) all.push(plant);
        return all;
      }),
  };
};
