import type {
  IdempotencyKey,
  IdTaken,
  Plant,
  PlantId,
  PlantName,
  PlantNotFound,
  PlantTag,
  PreconditionFailed,
  ReplacePlantRequest,
  UpdatePlantRequest,
} from '@plant-store/domain';
import type { Either } from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';

/** The store could not be reached or did not answer in time (pool exhausted, timeout, outage): 503. */
export interface StoreUnavailable {
  readonly _tag: 'StoreUnavailable';
  readonly cause: unknown;
}
export const storeUnavailable = (cause: unknown): StoreUnavailable => ({ _tag: 'StoreUnavailable', cause });

export type StoreError = StoreUnavailable;

/** Which plants a list or a count keeps: all, or those with the tag and/or whose folded name contains `q`. */
export interface PlantFilter {
  /** The tag, compared exactly. */
  readonly tag?: PlantTag;
  /** Already folded (the domain's `fold`): kept are plants whose folded name contains it. */
  readonly q?: string;
}

/** Where a page of a name order starts: after this plant's place (its folded name, then its id). */
export interface NamePlace {
  readonly folded: string;
  readonly id: PlantId;
}

/** An order and where its page starts (absent `after`: at the first plant of the order). */
export type PlantOrder =
  | { readonly by: 'id'; readonly descending: boolean; readonly after?: PlantId }
  | { readonly by: 'name'; readonly descending: boolean; readonly after?: NamePlace };

/** One keyset page: the filter, the order with its starting place, and at most `limit` plants. */
export interface PageQuery extends PlantFilter {
  readonly limit: number;
  readonly order: PlantOrder;
}

/** What a create asks the store to keep; `id` absent means the store assigns one. */
export interface NewPlant {
  readonly id?: PlantId;
  readonly name: PlantName;
  readonly tag?: PlantTag;
}

/**
 * What an ETag is made of: a store-wide counter value, given to a plant when it is created and
 * whenever a change alters it, in the change's own transaction. Never given twice, so never twice
 * to one id, deletes and re-creates included. Plants stored before versions existed have 0.
 */
export type PlantVersion = number;

/** A plant and its version. */
export interface VersionedPlant {
  readonly plant: Plant;
  readonly version: PlantVersion;
}

/**
 * A read or a write and where it stands in the change log (X-Change-Seq). For a read,
 * `changeSeq` is the number of the newest change the read's snapshot includes (read in the same
 * snapshot as the plants), so that following the changes above it from there misses nothing and
 * repeats nothing the read already showed. For a write, the number of the change it made (for a
 * write of many plants, the highest of their changes); for a write that changed nothing, the
 * newest number its snapshot saw. Either way, a read that includes `changeSeq` shows the write.
 */
export interface AtChange {
  readonly changeSeq: number;
}

/** A plant a write left, its version, and where the write stands in the change log. */
export type WrittenPlant = VersionedPlant & AtChange;

/** A plant the store has not (PlantNotFound), read in a snapshot that stands at `changeSeq`. */
export type PlantNotFoundAt = PlantNotFound & AtChange;

/** A PUT's outcome: the plant as the body made it, and whether it was created (else replaced). */
export interface ReplacedPlant extends WrittenPlant {
  readonly created: boolean;
}

/** One page of `list`. */
export interface PlantPage extends AtChange {
  readonly plants: readonly Plant[];
}

/**
 * The preconditions of a conditional write (RFC 9110 §13.1.1–2), as versions: `'any'` for `*`,
 * else the versions the header names (an entity tag that names none of ours is simply left out,
 * so `[]` never matches). If-Match is compared strongly (the caller leaves weak tags out),
 * If-None-Match weakly. Absent: no such header.
 */
export interface WriteCondition {
  readonly ifMatch?: 'any' | readonly PlantVersion[];
  readonly ifNoneMatch?: 'any' | readonly PlantVersion[];
}

/** Whether `condition` says anything (a write without one need not read the version first). */
export const isConditional = (condition: WriteCondition | undefined): condition is WriteCondition =>
  condition !== undefined && (condition.ifMatch !== undefined || condition.ifNoneMatch !== undefined);

/** Which precondition `condition` fails for a plant at `version`, or undefined when both hold. */
export const failedPrecondition = (
  condition: WriteCondition,
  version: PlantVersion,
): PreconditionFailed['header'] | undefined => {
  const { ifMatch, ifNoneMatch } = condition;
  if (ifMatch !== undefined && ifMatch !== 'any' && !ifMatch.includes(version)) return 'If-Match';
  if (ifNoneMatch !== undefined && (ifNoneMatch === 'any' || ifNoneMatch.includes(version))) return 'If-None-Match';
  return undefined;
};

/**
 * Which precondition `condition` fails for a plant that does not exist: If-Match, whatever it
 * names (RFC 9110 §13.1.1: `*` too); If-None-Match always holds.
 */
export const failedPreconditionWhenAbsent = (condition: WriteCondition): PreconditionFailed['header'] | undefined =>
  condition.ifMatch === undefined ? undefined : 'If-Match';

/** What makes a create idempotent: whose key it is, the key, and what the request was. */
export interface IdempotencyClaim {
  /** The principal the key belongs to (see ownerOf in tokens/principal.ts). */
  readonly owner: string;
  readonly key: IdempotencyKey;
  /**
   * The create in canonical form (see idempotency/canonical-request.ts): equal exactly for equal
   * requests. Saved with the key; a 201's plant takes its name and tag from it.
   */
  readonly request: string;
}

/**
 * The outcome of a create that reached the store: what a key saves, and replays. Its change
 * number is absent only in an outcome saved by a release before change numbers were saved.
 */
export type CreateResult = Either<IdTaken, VersionedPlant & Partial<AtChange>>;

/** A keyed create's answer: its own outcome, or the one saved with the key by an earlier request. */
export interface KeyedCreate {
  readonly result: CreateResult;
  readonly replayed: boolean;
}

/** What one purge step of expired idempotency keys did. */
export interface PurgeStep {
  readonly forgotten: number;
  readonly more: boolean;
}

/** The key was saved with a different request (→ 422); the saved outcome stays. */
export interface IdempotencyKeyReused {
  readonly _tag: 'IdempotencyKeyReused';
  readonly key: IdempotencyKey;
}
export const idempotencyKeyReused = (key: IdempotencyKey): IdempotencyKeyReused => ({
  _tag: 'IdempotencyKeyReused',
  key,
});

/** Ids an array of creates gave that other plants already have (→ 409 naming them); nothing was created. */
export interface IdsTaken {
  readonly _tag: 'IdsTaken';
  /** In the array's order. */
  readonly ids: readonly PlantId[];
}
export const idsTaken = (ids: readonly PlantId[]): IdsTaken => ({ _tag: 'IdsTaken', ids });

/** An array of creates, all stored in one commit: its plants in the array's order, and its newest change's number. */
export interface CreatedBatch {
  readonly plants: readonly Plant[];
  /** The highest change number of the array's changes (X-Change-Seq). */
  readonly changeSeq: number;
}

/** The outcome of an array of creates that reached the store: what a key saves, and replays. */
export type BatchResult = Either<IdsTaken, CreatedBatch>;

/** An array's answer: its own outcome, or the one saved with its key by an earlier request. */
export interface KeyedBatch {
  readonly result: BatchResult;
  readonly replayed: boolean;
}

/**
 * The storage port. Every method resolves only after its change is committed (durable), and
 * never rejects: expected outcomes and store failures are values. Adapters: SQLite, PostgreSQL.
 */
export interface PlantStore {
  /** Adds a plant. A server-assigned id never collides with any existing id, client-chosen ones included. */
  create(plant: NewPlant): TaskEither<IdTaken | StoreError, WrittenPlant>;
  /**
   * A create with an idempotency key, in ONE transaction with the key: when the owner's key holds
   * an unexpired saved outcome, that outcome (replayed, nothing changed) or, for another request,
   * IdempotencyKeyReused; otherwise `create`, and its outcome (the plant, or IdTaken) saved with
   * the key for the store's TTL. Exact across every process sharing the store. A StoreError
   * leaves neither plant nor key.
   */
  createOnce(plant: NewPlant, claim: IdempotencyClaim): TaskEither<IdempotencyKeyReused | StoreError, KeyedCreate>;
  /**
   * Adds every plant of `plants` (1–1000, no id given twice: the caller checks) in ONE transaction,
   * or none: an id another plant has makes IdsTaken naming every such id, and nothing is written.
   * Each plant gets its own change and its own `plant.created` event, in that one commit;
   * server-assigned ids collide neither with stored plants nor with the ids the array gives. With
   * a `claim`, as createOnce: an unexpired saved outcome of the owner's key is replayed (or, saved
   * for another request or by `createOnce`, IdempotencyKeyReused); otherwise the outcome (the
   * plants and the change number, or IdsTaken) is saved with the key in the same transaction.
   */
  createMany(
    plants: readonly NewPlant[],
    claim?: IdempotencyClaim,
  ): TaskEither<IdempotencyKeyReused | StoreError, KeyedBatch>;
  /**
   * One step of forgetting saved outcomes past their TTL: it looks at about `limit` keys at most
   * and forgets the expired ones among them. `more`: the next step has more to look at (false
   * once every key has been looked at; the next call starts over).
   */
  purgeExpiredKeys(limit: number): TaskEither<StoreError, PurgeStep>;
  /** A plant by id, or PlantNotFoundAt; either way with the change number of the read's snapshot. */
  get(id: PlantId): TaskEither<PlantNotFoundAt | StoreError, VersionedPlant & AtChange>;
  /**
   * Applies a merge patch, when `condition` holds for the plant as it is, in one atomic step (the
   * check and the write in one transaction, after every earlier write). A patch that changes
   * nothing keeps the version and writes nothing; one that changes something gives a new version
   * and emits `plant.updated`. Absent plant: PlantNotFound (before any precondition).
   */
  update(
    id: PlantId,
    patch: UpdatePlantRequest,
    condition: WriteCondition,
  ): TaskEither<PlantNotFound | PreconditionFailed | StoreError, WrittenPlant>;
  /**
   * Makes the plant with `id` exactly `plant` (a member absent from it is removed), when
   * `condition` holds, in one atomic step like update: an existing plant is replaced (a new
   * version and `plant.updated` only when something changed, else nothing written), an absent
   * one created (`created`, `plant.created`, the id counted as a client-chosen one). A condition
   * on an absent plant: If-Match fails (PreconditionFailed, never PlantNotFound), If-None-Match
   * holds. Of concurrent replaces of an absent id exactly one creates.
   */
  replace(
    id: PlantId,
    plant: ReplacePlantRequest,
    condition: WriteCondition,
  ): TaskEither<PreconditionFailed | StoreError, ReplacedPlant>;
  /**
   * Of concurrent deletes of one plant exactly one succeeds; the others get PlantNotFound. With a
   * condition, the check and the delete are one atomic step, as for update.
   */
  delete(
    id: PlantId,
    condition?: WriteCondition,
  ): TaskEither<PlantNotFound | PreconditionFailed | StoreError, AtChange>;
  /**
   * The plants the filter keeps, in the query's order after its starting place, at most
   * query.limit. Name order is code-point order of the folded name, ties by id in the same
   * direction. An id or name page (tag or not), and a page filtered by a `q` of at least three
   * characters, is served by an index: its cost does not grow with the store.
   */
  list(query: PageQuery): TaskEither<StoreError, PlantPage>;
  /** How many plants the filter keeps in the whole store (exact). */
  count(filter: PlantFilter): TaskEither<StoreError, number>;
  /** Succeeds when the store answers (for /readyz). */
  ping(): TaskEither<StoreError, void>;
}
