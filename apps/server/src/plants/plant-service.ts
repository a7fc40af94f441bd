import type {
  CreatePlantRequest,
  IdTaken,
  ListQuery,
  Plant,
  PlantId,
  PlantNotFound,
  PreconditionFailed,
  UpdatePlantRequest,
} from '@plant-store/domain';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { pipe } from 'fp-ts/lib/function.js';
import type {
  IdempotencyClaim,
  IdempotencyKeyReused,
  KeyedCreate,
  PlantStore,
  StoreError,
  VersionedPlant,
  WriteCondition,
} from '../ports/plant-store.js';

/** One page of plants and, when the page is full, the cursor of the next one. */
export interface PlantListPage {
  readonly plants: readonly Plant[];
  /** The last id of this page when it is full (there may be more); undefined on a shorter page. */
  readonly next: PlantId | undefined;
}

/** The plant use cases. They see only the storage port; HTTP and SQL stay outside. */
export interface PlantService {
  create(request: CreatePlantRequest): TE.TaskEither<IdTaken | StoreError, VersionedPlant>;
  /** A create with an idempotency key: its outcome saved with the key, or the key's saved outcome replayed. */
  createOnce(
    request: CreatePlantRequest,
    claim: IdempotencyClaim,
  ): TE.TaskEither<IdempotencyKeyReused | StoreError, KeyedCreate>;
  get(id: PlantId): TE.TaskEither<PlantNotFound | StoreError, VersionedPlant>;
  /** A merge patch, applied only when `condition` holds, atomically (see PlantStore.update). */
  update(
    id: PlantId,
    patch: UpdatePlantRequest,
    condition: WriteCondition,
  ): TE.TaskEither<PlantNotFound | PreconditionFailed | StoreError, VersionedPlant>;
  remove(id: PlantId, condition?: WriteCondition): TE.TaskEither<PlantNotFound | PreconditionFailed | StoreError, void>;
  list(query: ListQuery): TE.TaskEither<StoreError, PlantListPage>;
}

export const createPlantService = (store: PlantStore): PlantService => ({
  create: (request) => store.create(request),
  createOnce: (request, claim) => store.createOnce(request, claim),
  get: (id) => store.get(id),
  update: (id, patch, condition) => store.update(id, patch, condition),
  remove: (id, condition) => store.delete(id, condition),
  list: (query) =>
    pipe(
      store.list(query),
      TE.map((plants) => ({
        plants,
        next: plants.length === query.limit ? plants[plants.length - 1]?.id : undefined,
      })),
    ),
});
