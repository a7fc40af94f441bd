import type { IdempotencyKey } from '@plant-store/domain';
import type Koa from 'koa';
import type { Principal } from '../tokens/principal.js';

/** A problem of the request body that only its raw text shows, with the member it is about. */
export interface BodyProblem {
  /** The top-level member (`id`). */
  readonly field: string;
  /** The line for the 400, worded like the codec's (`id: …`; in an array, `[3].id: …`). */
  readonly problem: string;
  /** In an array body (POST /plants/batch): the element the problem is in, counted from 0. */
  readonly element?: number;
}

/** What the middleware leave on `ctx.state` for those after them. */
export interface AppState {
  requestId: string;
  /** The authenticated caller, once the auth middleware let the request through. */
  principal?: Principal;
  /**
   * Problems of the request body that only its raw text shows (an `id` written as a fraction that
   * JSON.parse rounded); the route answers them in its one 400, in place of the codec's word on
   * the same members.
   */
  bodyProblems?: readonly BodyProblem[];
  /** The create's Idempotency-Key, once its syntax was checked (see plant-routes.ts). */
  idempotencyKey?: IdempotencyKey | undefined;
  /** Why a 5xx was answered, for the request's log line (never sent to the client). */
  cause?: unknown;
  /** The tag of the error answered, if any (for the metrics: auth failures, store errors, 429s). */
  errorTag?: string;
}

export type AppContext = Koa.ParameterizedContext<AppState>;
export type AppMiddleware = Koa.Middleware<AppState>;
