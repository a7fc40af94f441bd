import {
  fold,
  isNameSort,
  type CreatePlantRequest,
  type IdTaken,
  type InvalidPlant,
  type ListQuery,
  type Plant,
  type PlantId,
  type PlantNotFound,
  type PreconditionFailed,
  type ReplacePlantRequest,
  type UpdatePlantRequest,
} from '@plant-store/domain';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { pipe } from 'fp-ts/lib/function.js';
import { decodePageCursor, encodePageCursor } from './page-cursor.js';
import { createMany, type IdRepeated } from './plant-batch.js';
import type {
  IdempotencyClaim,
  IdempotencyKeyReused,
  KeyedBatch,
  KeyedCreate,
  PageQuery,
  PlantFilter,
  PlantNotFoundAt,
  PlantStore,
  ReplacedPlant,
  StoreError,
  VersionedPlant,
  AtChange,
  WriteCondition,
  WrittenPlant,
} from '../ports/plant-store.js';

/** Where the next page starts: after an id (id orders) or at a cursor (name orders). */
export type NextPage = { readonly after: PlantId } | { readonly cursor: string };

/** One page of plants and, when the page is full, where the next one starts. */
export interface PlantListPage {
  readonly plants: readonly Plant[];
  /** The newest change the page's snapshot includes (X-Change-Seq). */
  readonly changeSeq: number;
  /** Set when this page is full (there may be more); undefined on a shorter page. */
  readonly next: NextPage | undefined;
  /** How many plants match q and tag in the whole store, when asked for. */
  readonly total?: number;
}

export interface ListOptions {
  /** Count the matches in the whole store too (costs what the matches cost). */
  readonly count: boolean;
}

/** The plant use cases. They see only the storage port; HTTP and SQL stay outside. */
export interface PlantService {
  create(request: CreatePlantRequest): TE.TaskEither<IdTaken | StoreError, WrittenPlant>;
  /** A create with an idempotency key: its outcome saved with the key, or the key's saved outcome replayed. */
  createOnce(
    request: CreatePlantRequest,
    claim: IdempotencyClaim,
  ): TE.TaskEither<IdempotencyKeyReused | StoreError, KeyedCreate>;
  get(id: PlantId): TE.TaskEither<PlantNotFoundAt | StoreError, VersionedPlant & AtChange>;
  /** An array of creates, all or nothing, keyed or not (see plant-batch.ts and PlantStore.createMany). */
  createMany(
    requests: readonly CreatePlantRequest[],
    claim?: IdempotencyClaim,
  ): TE.TaskEither<IdRepeated | IdempotencyKeyReused | StoreError, KeyedBatch>;
  /** A merge patch, applied only when `condition` holds, atomically (see PlantStore.update). */
  update(
    id: PlantId,
    patch: UpdatePlantRequest,
    condition: WriteCondition,
  ): TE.TaskEither<PlantNotFound | PreconditionFailed | StoreError, WrittenPlant>;
  /** A PUT: the plant made exactly `plant`, created when absent, when `condition` holds (see PlantStore.replace). */
  replace(
    id: PlantId,
    plant: ReplacePlantRequest,
    condition: WriteCondition,
  ): TE.TaskEither<PreconditionFailed | StoreError, ReplacedPlant>;
  remove(
    id: PlantId,
    condition?: WriteCondition,
  ): TE.TaskEither<PlantNotFound | PreconditionFailed | StoreError, AtChange>;
  /** A keyset page of the query; a cursor this server did not write for this query is InvalidPlant (400). */
  list(query: ListQuery, options?: ListOptions): TE.TaskEither<InvalidPlant | StoreError, PlantListPage>;
}

export const createPlantService = (store: PlantStore): PlantService => ({
  create: (request) => store.create(request),
  createOnce: (request, claim) => store.createOnce(request, claim),
  get: (id) => store.get(id),
  createMany: createMany(store),
  update: (id, patch, condition) => store.update(id, patch, condition),
  replace: (id, plant, condition) => store.replace(id, plant, condition),
  remove: (id, condition) => store.delete(id, condition),
  list: (query, options) =>
    pipe(
      TE.fromEither(decodePageCursor(query)),
      TE.chainW((place) => {
        const filter: PlantFilter = {
          ...(query.tag === undefined ? {} : { tag: query.tag }),
          ...(query.q === undefined ? {} : { q: fold(query.q) }),
        };
        const descending = query.sort.startsWith('-');
        const page: PageQuery = {
          ...filter,
          limit: query.limit,
          order: isNameSort(query.sort)
            ? { by: 'name', descending, ...(place === undefined ? {} : { after: place }) }
            : { by: 'id', descending, ...(query.after === 0 ? {} : { after: query.after as number as PlantId }) },
        };
        return pipe(
          store.list(page),
          TE.chain(({ plants, changeSeq }) =>
            options?.count === true
              ? pipe(
                  store.count(filter),
                  TE.map((total) => ({ plants, changeSeq, total })),
                )
              : TE.right({ plants, changeSeq }),
          ),
        );
      }),
      TE.map(({ plants, ...counted }): PlantListPage => {
        const last = plants.length === query.limit ? plants[plants.length - 1] : undefined;
        const { sort } = query;
        const next: NextPage | undefined =
          last === undefined
            ? undefined
            : isNameSort(sort)
              ? { cursor: encodePageCursor({ sort, q: query.q, tag: query.tag }, last) }
              : { after: last.id };
        return { plants, next, ...counted };
      }),
    ),
});
