import type { Change, ChangePosition, Plant, PlantSort } from '@plant-store/domain';
import type { ChangesOptions } from './change-feed.js';
import type { CallOptions } from './transport.js';

/** What `plants.create` takes. `id` is optional: the server assigns one when absent. */
export interface CreatePlantInput {
  readonly name: string;
  readonly tag?: string;
  readonly id?: number;
}

/** The options of `plants.create`: those of every call, plus the `Idempotency-Key`. */
export interface CreateOptions extends CallOptions {
  /**
   * The `Idempotency-Key` sent with the create, the same on every retry of the call. Default: a
   * fresh UUIDv7 per call (time-ordered: see uuid-v7.ts). Pass your own (1–255 characters from `A–Z a–z 0–9 . _ : ~ + / = -`)
   * to make a create safe to repeat across calls or processes: the server stores the plant at most
   * once per key and answers a repeat with the first answer. It is checked like the input
   * (`ValidationError`, nothing sent) unless the client has `validate: false`. `false` sends no
   * key: the create is then not retried (unless `retry.createWithId` and the input has an id).
   */
  readonly idempotencyKey?: string | false;
}

/**
 * What `plants.create` resolves to: the `Plant` plus
 * - `replayed`, true when the server answered with the saved answer of an earlier request with the
 *   same `Idempotency-Key` (`Idempotent-Replayed: true`): an earlier call with your key, or an
 *   attempt of this call whose response was lost. Either way the plant was created once, by that
 *   first request;
 * - `etag`, the plant's `ETag` as the 201 carried it (on a replay: the ETag the plant had when it
 *   was created), for `update` and `delete` with `ifMatch`; undefined when the server sent none;
 * - `changeSeq`, the number of the create's change in the change log (`X-Change-Seq`; on a replay:
 *   the first answer's), from which `changes({ since })` shows what happened after it; undefined
 *   from a server that sends none.
 *
 * All are non-enumerable own properties: `plant.replayed` reads them, but `Object.keys`,
 * spreading, `JSON.stringify` and deep equality see only `{ id, name, tag? }`, exactly as before.
 */
export type CreatedPlant = Plant & {
  readonly replayed: boolean;
  readonly etag: string | undefined;
  readonly changeSeq: ChangePosition | undefined;
};

/**
 * What `plants.createMany` resolves to: the created plants, ids included, in the order given, plus
 * - `replayed`, true when the server answered with the saved answer of an earlier request with
 *   the same `Idempotency-Key` (the array was created once, by that first request);
 * - `changeSeq`, the answer's `X-Change-Seq`: the number of the newest of the array's changes in
 *   the change log (follow `changes({ since })` from below it); undefined from a server that sends
 *   none.
 *
 * Both are non-enumerable: spreading, `JSON.stringify` and deep equality see the plants alone. No
 * ETags: the answer has none (`get` gives a plant's).
 */
export type CreatedPlants = readonly Plant[] & {
  readonly replayed: boolean;
  readonly changeSeq: ChangePosition | undefined;
};

/**
 * What `plants.get` resolves to when the server sent the plant (200): the `Plant` plus its `etag`
 * (undefined from a server that sends none) and `notModified: false`, both non-enumerable like
 * `CreatedPlant`'s `replayed`: deep equality still sees only `{ id, name, tag? }`.
 */
export type FetchedPlant = Plant & { readonly etag: string | undefined; readonly notModified: false };

/**
 * What `plants.get(id, { ifNoneMatch })` resolves to when the plant still has that ETag (304 Not
 * Modified): no plant, since your copy is current, and the ETag the server confirmed. Tell it
 * from a `FetchedPlant` by `notModified`.
 */
export interface NotModified {
  readonly notModified: true;
  readonly etag: string;
}

/** The options of `plants.get`: those of every call, plus `ifNoneMatch`. */
export interface GetOptions extends CallOptions {
  /**
   * Sent as `If-None-Match`: an ETag you hold (verbatim, quotes included), several separated by
   * commas, or `*`. When the plant still has it, `get` resolves to `NotModified` instead of
   * downloading the plant again. Undefined sends no condition (a plain `get`).
   */
  readonly ifNoneMatch?: string | undefined;
}

/** The options of `plants.update`: those of every call, plus `ifMatch`. */
export interface UpdateOptions extends CallOptions {
  /**
   * Sent as `If-Match`: apply the patch only if the plant's current ETag is this one (verbatim,
   * as `get`, `create` or `update` gave it; or `*`: only if the plant exists). Otherwise nothing
   * changes and the call rejects with `PreconditionFailedError` (412): someone changed the plant
   * since you read it. Without it the patch applies to whatever the plant is now.
   *
   * Retries: an update is retried like a GET (a merge patch applied twice gives the same plant).
   * With `ifMatch`, when the first attempt was applied but its response was lost, the retry meets
   * the new ETag and rejects with `PreconditionFailedError` whose `attempts` is above 1 — the
   * change you then read may be your own. Pass `retry: 0` to make every 412 mean "someone else".
   */
  readonly ifMatch?: string;
}

/** The options of `plants.delete`: those of every call, plus `ifMatch` (as for `update`). */
export interface DeleteOptions extends CallOptions {
  /**
   * Sent as `If-Match`: delete only if the plant's current ETag is this one (or `*`); otherwise
   * `PreconditionFailedError` (412) and nothing is deleted. A retried delete whose first attempt
   * was applied answers `NotFoundError` (404 comes before 412), as without `ifMatch`.
   */
  readonly ifMatch?: string;
}

/**
 * What `plants.update` takes: a JSON Merge Patch (RFC 7396). A member that is present replaces
 * the plant's; `tag: null` removes the tag; an absent member stays as it is. `{}` changes nothing.
 */
export interface UpdatePlantInput {
  readonly name?: string;
  readonly tag?: string | null;
}

/**
 * What `plants.update` resolves to: the whole plant after the change, plus (non-enumerable) its
 * new `etag` and `changeSeq`, the number of the patch's change in the change log (for a patch that
 * changed nothing, the newest number the server saw; undefined from a server that sends none).
 */
export type UpdatedPlant = Plant & { readonly etag: string; readonly changeSeq: ChangePosition | undefined };

/**
 * What `plants.put` takes: the whole plant but its id (the path gives it). The plant becomes
 * exactly this: a member you leave out is removed (no `tag`: the plant has no tag afterwards).
 */
export interface PutPlantInput {
  readonly name: string;
  readonly tag?: string;
}

/** The options of `plants.put`: those of every call, plus `ifMatch` and `ifNoneMatch`. */
export interface PutOptions extends CallOptions {
  /**
   * Sent as `If-Match`: replace only, and only the plant whose current ETag is this one (or `*`:
   * any existing plant). A plant that has changed, or does not exist, rejects with
   * `PreconditionFailedError` (412) and nothing is created or changed.
   */
  readonly ifMatch?: string;
  /**
   * Sent as `If-None-Match`: `*` creates only (an existing plant → `PreconditionFailedError`); an
   * ETag (or several, comma-separated) refuses to touch a plant that has it.
   *
   * Retries: a put is retried like a GET (the same body twice leaves the same plant). When the
   * first attempt was applied but its response was lost, the retry sees the plant it made: with
   * `ifNoneMatch: '*'` it rejects with `PreconditionFailedError` whose `attempts` is above 1, and
   * without conditions it resolves with `created: false`. Pass `retry: 0` to rule that out.
   */
  readonly ifNoneMatch?: string;
}

/**
 * What `plants.put` resolves to: the whole plant as the body made it, plus (non-enumerable, as on
 * `update`) its `etag`, `created` (true: the plant did not exist and was created, 201; false: it
 * was replaced, or already was so, 200) and `changeSeq`, the number of the put's change in the
 * change log (for a put that changed nothing, the newest number the server saw).
 */
export type PutPlant = Plant & {
  readonly etag: string;
  readonly created: boolean;
  readonly changeSeq: ChangePosition | undefined;
};

/** The orders by id (their pages continue with `after`). */
export type IdSort = Extract<PlantSort, 'id' | '-id'>;
/** The orders by folded name (their pages continue with an opaque `cursor`). */
export type NameSort = Extract<PlantSort, 'name' | '-name'>;

/**
 * One page's position: at most `limit` plants in the order `sort` (default `id`), only those whose
 * tag is exactly `tag` and whose folded name contains the folded `q`, when given. Where it starts:
 * `after` for the id orders (an id; 0 or absent: from the start), `cursor` for the name orders
 * (taken from the previous page's `next`; absent: from the start). `S` is the order, inferred
 * from `sort`, so that `next` has the right shape.
 */
export interface ListPlantsQuery<S extends PlantSort = IdSort> {
  readonly limit?: number;
  readonly after?: number;
  readonly tag?: string;
  readonly q?: string;
  readonly sort?: S;
  readonly cursor?: string;
}

/** What `plants.all` takes: `ListPlantsQuery` without `after` and `cursor` (it starts at the beginning). */
export interface AllPlantsQuery {
  readonly limit?: number;
  readonly tag?: string;
  readonly q?: string;
  readonly sort?: PlantSort;
}

/** The next page of an id order, as the server's `Link` gave it: `sort` only for `-id`. */
export interface IdOrderNext<S extends IdSort = IdSort> {
  readonly limit: number;
  readonly after: number;
  readonly tag?: string;
  readonly q?: string;
  readonly sort?: S;
}

/** The next page of a name order, as the server's `Link` gave it: the opaque `cursor` for that sort, q and tag. */
export interface NameOrderNext<S extends NameSort = NameSort> {
  readonly limit: number;
  readonly sort: S;
  readonly cursor: string;
  readonly tag?: string;
  readonly q?: string;
}

/** The query of the page after this one, for the order `S`. */
export type NextPageQuery<S extends PlantSort = IdSort> = S extends NameSort
  ? NameOrderNext<S>
  : S extends IdSort
    ? IdOrderNext<S>
    : never;

export interface PlantListPage<S extends PlantSort = IdSort> {
  /** Plants in the order asked for (ascending id by default). */
  readonly plants: readonly Plant[];
  /**
   * The query of the next page, when the server's `Link: <…>; rel="next"` announced one. It keeps
   * `q`, `tag` and `sort`; pass it to `list` as it is.
   */
  readonly next?: NextPageQuery<S>;
  /**
   * The answer's `X-Change-Seq`: the number of the newest change this page includes (0 before the
   * first change), read in the same snapshot as the page. Follow `changes({ since })` from it to
   * learn what changed after the page (`mirror` does, page by page). Undefined from a server
   * without the change feed. Non-enumerable, like `CreatedPlant`'s `replayed`: spreading,
   * `JSON.stringify` and deep equality see only `plants` and `next`, as before.
   */
  readonly changeSeq?: ChangePosition | undefined;
}

/** What `list(query, { count: true })` resolves to: the page and how many plants match `q` and `tag` in the whole store. */
export type CountedPlantListPage<S extends PlantSort = IdSort> = PlantListPage<S> & { readonly total: number };

/** The options of `plants.list`: those of every call, plus `count`. */
export interface ListOptions extends CallOptions {
  /**
   * Ask the server to count the plants that match `q` and `tag` (`Prefer: count=exact`); the page
   * then carries `total`. Counting costs what the matches cost, so it is off by default.
   */
  readonly count?: boolean;
}

export interface PlantsApi {
  /**
   * `POST /plants`: stores a plant and returns it, its id read from `Location`. Sends an
   * `Idempotency-Key` (see `CreateOptions`), so it is retried like a GET, and also after a 409
   * that says a request with the key is still in progress; without a key it is not retried.
   */
  create(input: CreatePlantInput, options?: CreateOptions): Promise<CreatedPlant>;
  /**
   * `POST /plants/batch`: stores every plant of `plants` (1–1000) in one transaction, or none, and
   * returns them with their ids, in the order given. The `Idempotency-Key` (see `CreateOptions`)
   * covers the whole array, so it is retried like `create`. A taken id, or one given twice, is a
   * `ConflictError` (409) naming it; an invalid element a `ValidationError` (or, with
   * `validate: false`, a `BadRequestError`) naming the first one (`[3].name: …`); a body past the
   * server's `BULK_BODY_LIMIT_BYTES` a `PayloadTooLargeError`. Nothing is created on any error.
   */
  createMany(plants: readonly CreatePlantInput[], options?: CreateOptions): Promise<CreatedPlants>;
  /**
   * `DELETE /plants/{id}`: `NotFoundError` when there is no such plant, `PreconditionFailedError`
   * when `ifMatch` no longer names its ETag.
   */
  delete(id: number, options?: DeleteOptions): Promise<void>;
  /** `GET /plants/{id}`: the plant and its `etag`; `NotFoundError` when there is no such plant. */
  get(id: number, options?: CallOptions & { readonly ifNoneMatch?: undefined }): Promise<FetchedPlant>;
  /**
   * `GET /plants/{id}` with `If-None-Match`: `NotModified` when the plant still has that ETag,
   * else the plant (`notModified: false`) and its new `etag`. Never rejects for "not modified".
   */
  get(id: number, options: GetOptions): Promise<FetchedPlant | NotModified>;
  /**
   * `PATCH /plants/{id}` with a merge patch: the whole plant after the change and its new `etag`.
   * `NotFoundError` for an unknown plant, `PreconditionFailedError` when `ifMatch` no longer names
   * its ETag (see `UpdateOptions` for what a retry means then).
   */
  update(id: number, patch: UpdatePlantInput, options?: UpdateOptions): Promise<UpdatedPlant>;
  /**
   * `PUT /plants/{id}`: makes the plant with this id exactly `plant`, creating it when there is
   * none (`created: true`) and replacing it otherwise; resolves with the plant, its `etag` and
   * `created`. `PreconditionFailedError` when `ifMatch` or `ifNoneMatch` does not hold (see
   * `PutOptions`); never `NotFoundError`.
   */
  put(id: number, plant: PutPlantInput, options?: PutOptions): Promise<PutPlant>;
  /** `GET /plants?limit&sort&after&cursor&q&tag`: one page; `next` is the query of the following one. */
  list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions & { readonly count?: false },
  ): Promise<PlantListPage<S>>;
  /** The same with `Prefer: count=exact`: the page and `total`, how many plants match in the whole store. */
  list<S extends PlantSort = IdSort>(
    query: ListPlantsQuery<S> | undefined,
    options: ListOptions & { readonly count: true },
  ): Promise<CountedPlantListPage<S>>;
  /** The same when whether to count is known only at run time: `total` is present when it was asked for. */
  list<S extends PlantSort = IdSort>(
    query?: ListPlantsQuery<S>,
    options?: ListOptions,
  ): Promise<PlantListPage<S> & { readonly total?: number }>;
  /**
   * Every plant (with `tag` and `q`: every plant that matches) in the order `sort` (default: ascending
   * id), fetching page after page as the `Link` headers lead.
   */
  all(query?: AllPlantsQuery, options?: CallOptions): AsyncIterable<Plant>;
  /**
   * `GET /plants/changes` as a stream: every change after `since` (with `tag`: of the plants with
   * that tag before or after it, `plant.left` for one that leaves), in order, for as long as you
   * iterate. It reconnects by itself (network errors, a server restart, a 503) and resumes after
   * the last change it gave you, so none is missed or repeated; it ends with `ChangesExpiredError`
   * when the server no longer has the changes after that position (410). See `ChangesOptions`.
   */
  changes(options?: ChangesOptions): AsyncIterable<Change>;
  /**
   * Starts keeping a copy of the whole store (with `tag`: of the plants with that tag): lists
   * every plant, then follows the changes, and starts again from a fresh list after a 410. See
   * `PlantMirror`.
   */
  mirror(options?: MirrorOptions): PlantMirror;
}

/**
 * A plant of the copy, with the `etag` its last change carried (non-enumerable, as on `get`'s
 * plants: deep equality sees `{ id, name, tag? }`). A list page carries no ETags, so a plant
 * the copy has not seen change since it was listed has `etag: undefined`; `get(id)` has it.
 */
export type MirroredPlant = Plant & { readonly etag: string | undefined };

/** What `plants.mirror` takes. */
export interface MirrorOptions {
  /**
   * Keep only the plants with this tag: list `{ tag }`, then follow `changes({ tag })`. A plant
   * that gains the tag comes in, one that loses it (`plant.left`) or is deleted goes out, so
   * `plants` holds exactly the store's plants with that tag.
   */
  readonly tag?: string;
  /** Stops the mirror, like `close()`; the client-wide signal does too. */
  readonly signal?: AbortSignal;
  /**
   * Called with each change the mirror applied, after `plants` shows it (not with the changes it
   * skipped because the list already showed them; with `tag`, `plant.left` too). A promise it returns is awaited before the
   * next change; an exception it throws stops the mirror (`done` rejects with it).
   */
  readonly onChange?: (change: Change) => void | Promise<void>;
  /**
   * Called each time `plants` was filled from a list: once before `ready` resolves, and again
   * after a 410 made the mirror read the plants afresh (your view of the changes has a gap then:
   * read `plants` again rather than patching what you hold).
   */
  readonly onReload?: () => void | Promise<void>;
  /** Plants per list page, 1–1000; default 1000 (the fewest requests). */
  readonly limit?: number;
}

/**
 * A running mirror of the store. It starts at once; `plants` is empty until `ready` resolves.
 * After that, `plants` equals the store as of `position` for every plant whose last change the
 * feed has brought (and as of its list page for the rest, so exactly once `position` reaches
 * the `changeSeq` of any list read after your last write).
 */
export interface PlantMirror {
  /** The copy: id → plant. Read it, do not change it: the mirror replaces its content as changes come. */
  readonly plants: ReadonlyMap<number, MirroredPlant>;
  /**
   * The number of the newest change the copy includes (0 before the first list); with `tag`, it
   * also moves past changes of other plants (the server's bookmarks).
   */
  readonly position: ChangePosition;
  /**
   * Resolves once the first list is in `plants`. Rejects with the error that stopped the mirror
   * before that, or with `AbortError` when it was closed first.
   */
  readonly ready: Promise<void>;
  /**
   * Settles when the mirror stops: resolves after `close()` or an abort; rejects with the error
   * that stopped it (`UnauthorizedError`, `ForbiddenError`, an `UnexpectedResponseError`, a list
   * that failed after its retries, an exception of `onChange`). The change feed reconnects by
   * itself, so a restart of the server does not stop it. Neither promise is reported as an
   * unhandled rejection: await `done` to learn why a mirror stopped.
   */
  readonly done: Promise<void>;
  /** Stops following and closes the stream; resolves once it has stopped (whatever `done` says). */
  close(): Promise<void>;
}
