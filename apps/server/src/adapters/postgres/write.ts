import type {
  PlantId,
  PlantNotFound,
  PreconditionFailed,
  ReplacePlantRequest,
  UpdatePlantRequest,
} from '@plant-store/domain';
import type * as E from 'fp-ts/lib/Either.js';
import type {
  AtChange,
  IdempotencyClaim,
  IdempotencyKeyReused,
  KeyedCreate,
  NewPlant,
  ReplacedPlant,
  StoreError,
  WriteCondition,
  WrittenPlant,
} from '../../ports/plant-store.js';
import type { WriteTrace } from '../../tracing/tracing.js';

// A write the write queue commits (see PostgresWriteQueue): what it asks for, and where its
// outcome goes once its statement has returned.

/** A create's outcome; `replayed` only for a keyed create that found its key saved. */
export type CreateOutcome = E.Either<IdempotencyKeyReused | StoreError, KeyedCreate>;
export type UpdateOutcome = E.Either<PlantNotFound | PreconditionFailed | StoreError, WrittenPlant>;
export type ReplaceOutcome = E.Either<PreconditionFailed | StoreError, ReplacedPlant>;
export type DeleteOutcome = E.Either<PlantNotFound | PreconditionFailed | StoreError, AtChange>;

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
      readonly kind: 'replace';
      readonly id: PlantId;
      readonly plant: ReplacePlantRequest;
      readonly condition: WriteCondition;
      readonly resolve: (outcome: ReplaceOutcome) => void;
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
