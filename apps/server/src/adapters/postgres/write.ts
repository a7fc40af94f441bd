import type { PlantId, PlantNotFound, PreconditionFailed, UpdatePlantRequest } from '@plant-store/domain';
import type * as E from 'fp-ts/lib/Either.js';
import type {
  IdempotencyClaim,
  IdempotencyKeyReused,
  KeyedCreate,
  NewPlant,
  StoreError,
  VersionedPlant,
  WriteCondition,
} from '../../ports/plant-store.js';
import type { WriteTrace } from '../../tracing/tracing.js';

// A write the write queue commits (see PostgresWriteQueue): what it asks for, and where its
// outcome goes once its statement has returned.

/** A create's outcome; `replayed` only for a keyed create that found its key saved. */
export type CreateOutcome = E.Either<IdempotencyKeyReused | StoreError, KeyedCreate>;
export type UpdateOutcome = E.Either<PlantNotFound | PreconditionFailed | StoreError, VersionedPlant>;
export type DeleteOutcome = E.Either<PlantNotFound | PreconditionFailed | StoreError, void>;

export type Write =
  | {
      readonly kind: 'create';
      readonly plant: NewPlant;
      readonly claim: IdempotencyClaim | undefined;
      readonly resolve: (outcome: CreateOutcome) => void;
      readonly trace?: WriteTrace | undefined;
    }
  | {
      readonly kind: 'update';
      readonly id: PlantId;
      readonly patch: UpdatePlantRequest;
      readonly condition: WriteCondition;
      readonly resolve: (outcome: UpdateOutcome) => void;
      readonly trace?: WriteTrace | undefined;
    }
  | {
      readonly kind: 'delete';
      readonly id: PlantId;
      readonly condition: WriteCondition | undefined;
      readonly resolve: (outcome: DeleteOutcome) => void;
      readonly trace?: WriteTrace | undefined;
    };

export type CreateWrite = Extract<Write, { readonly kind: 'create' }>;
