/**
 * A recorded history of operations on plants, as the linearizability checker
 * (support/linearizability.ts) reads it. Each plant id is a compare-and-set register: its state is
 * "absent" or a value with an ETag. Linearizability is local (Herlihy & Wing 1990, theorem 1), so
 * each id's operations are checked on their own.
 *
 * Times are `performance.now()` of the recording process: `invokedAt` just before the request was
 * written, `returnedAt` just after its answer was read. An operation whose outcome is unknown (a
 * 503 to a write, no answer, a timeout) keeps `returnedAt: Infinity`: it may have taken effect at
 * any moment after its invocation, or never. Where the recorder knows a moment after which it can
 * no longer land (its server was killed and the store has settled), `returnedAt` is that moment.
 */

export interface PlantValue {
  readonly name: string;
  /** Absent when the plant has no tag. */
  readonly tag?: string | undefined;
}

/** A JSON merge patch of a plant: a `null` tag removes it. */
export interface PlantPatch {
  readonly name?: string;
  readonly tag?: string | null;
}

export type Call =
  /** `POST /plants` with the id in the body (or the server-assigned id, once known). */
  | { readonly op: 'create'; readonly id: number; readonly value: PlantValue }
  | { readonly op: 'get'; readonly id: number }
  /** `PATCH /plants/{id}`, conditional when `ifMatch` is set. */
  | { readonly op: 'patch'; readonly id: number; readonly patch: PlantPatch; readonly ifMatch?: string | undefined }
  /** `DELETE /plants/{id}`, conditional when `ifMatch` is set. */
  | { readonly op: 'delete'; readonly id: number; readonly ifMatch?: string | undefined };

export type Result =
  /** A create's 201 (not a replay of an earlier keyed create: those are left out of the history). */
  | { readonly status: 201; readonly etag: string }
  /** A get's or a patch's 200. `etag` is absent only for a plant read from a list page. */
  | { readonly status: 200; readonly value: PlantValue; readonly etag?: string | undefined }
  | { readonly status: 204 }
  | { readonly status: 404 }
  | { readonly status: 409 }
  | { readonly status: 412 }
  /** The outcome is not known: a 503 to a write, no answer, a broken connection. */
  | { readonly status: 'unknown' };

export interface Operation {
  /** Which client (a sequential process of the load) sent it; a client has one operation in flight at a time. */
  readonly client: number;
  readonly call: Call;
  readonly result: Result;
  readonly invokedAt: number;
  /** Infinity when `result.status` is 'unknown' (or the moment it could no longer land). */
  readonly returnedAt: number;
}

export type History = readonly Operation[];
