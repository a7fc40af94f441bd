import { describePlantError, type PlantError } from '@plant-store/domain';
import type { IdempotencyKeyReused, IdsTaken, StoreError } from '../ports/plant-store.js';
import type { IdRepeated } from '../plants/plant-batch.js';
import type { AuthError } from '../tokens/auth-error.js';
import type { RequestError } from './request-error.js';

/** Every failure the server can answer with. A new tag must not compile until it is mapped below. */
export type AppError =
  PlantError | StoreError | IdempotencyKeyReused | AuthError | RequestError | IdsTaken | IdRepeated;

export interface HttpError {
  readonly status: number;
  readonly message: string;
  /** Extra response headers (`WWW-Authenticate`, `Allow`, `Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>;
}

const REALM = 'Bearer realm="plant-store"';
const challenge = { 'WWW-Authenticate': REALM } as const;
const invalidRequestChallenge = { 'WWW-Authenticate': `${REALM}, error="invalid_request"` } as const;
const invalidTokenChallenge = { 'WWW-Authenticate': `${REALM}, error="invalid_token"` } as const;
/**
 * Every 503: the store, the token's verification or the server is back, or another instance has
 * taken the request, within about a second (a failover's gap, a restart, a drain).
 */
const retryAfter = { 'Retry-After': '1' } as const;

/** At most this many taken ids are named in a 409; the rest are counted. */
const NAMED_TAKEN_IDS = 20;

const takenMessage = (ids: readonly number[]): string => {
  const named = ids.slice(0, NAMED_TAKEN_IDS).join(', ');
  const more = ids.length > NAMED_TAKEN_IDS ? ` and ${ids.length - NAMED_TAKEN_IDS} more` : '';
  return ids.length === 1
    ? `a plant with id ${named} already exists; nothing was created`
    : `plants with ids ${named}${more} already exist; nothing was created`;
};

const absurd = (value: never): never => {
  throw new TypeError(`unmapped error tag: ${JSON.stringify(value)}`);
};

/** The one place that turns an error tag into an HTTP status, message and headers. */
export const toHttpError = (error: AppError): HttpError => {
  switch (error._tag) {
    case 'InvalidPlant':
      return { status: 400, message: describePlantError(error) };
    case 'PlantNotFound':
      return { status: 404, message: describePlantError(error) };
    case 'IdTaken':
      return { status: 409, message: describePlantError(error) };
    case 'PreconditionFailed':
      return { status: 412, message: describePlantError(error) };
    case 'IdsTaken':
      return { status: 409, message: takenMessage(error.ids) };
    case 'IdRepeated':
      return {
        status: 409,
        message: `id ${error.id} is given twice in the array ([${error.at[0]}] and [${error.at[1]}]); nothing was created`,
      };
    case 'StoreUnavailable':
      return { status: 503, message: 'the store is unavailable; try again', headers: retryAfter };
    case 'MissingCredentials':
      return { status: 401, message: error.reason, headers: challenge };
    case 'InvalidAuthRequest':
      return { status: 400, message: error.reason, headers: invalidRequestChallenge };
    case 'InvalidToken':
      return { status: 401, message: error.reason, headers: invalidTokenChallenge };
    case 'InsufficientScope':
      return {
        status: 403,
        message: `this operation needs the ${error.scope} scope`,
        headers: { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${error.scope}"` },
      };
    case 'AuthUnavailable':
      return { status: 503, message: 'the bearer token cannot be verified right now; try again', headers: retryAfter };
    case 'RouteNotFound':
      return { status: 404, message: `no route ${error.method} ${error.path}` };
    case 'MethodNotAllowed':
      return {
        status: 405,
        message: `method ${error.method} is not allowed on ${error.path}; allowed: ${error.allow}`,
        headers: { Allow: error.allow },
      };
    case 'UnsupportedMediaType':
      return { status: 415, message: error.reason };
    case 'PayloadTooLarge':
      return { status: 413, message: `request body larger than ${error.limit} bytes` };
    case 'MalformedBody':
      return { status: 400, message: error.reason };
    case 'MalformedRequest':
      return { status: 400, message: error.reason };
    case 'HeadersTooLarge':
      return { status: 431, message: 'request headers too large' };
    case 'RequestTimeout':
      return { status: 408, message: 'request not received in time' };
    case 'ExpectationFailed': {
      const shown = error.expectation.length > 100 ? `${error.expectation.slice(0, 100)}…` : error.expectation;
      return {
        status: 417,
        message: `cannot meet the expectation ${JSON.stringify(shown)}; only 100-continue is supported`,
      };
    }
    case 'UnsupportedTransferCoding': {
      const shown = error.codings.length > 100 ? `${error.codings.slice(0, 100)}…` : error.codings;
      return {
        status: 501,
        message: `Transfer-Encoding ${JSON.stringify(shown)} is not supported; send the body with chunked alone or with Content-Length`,
      };
    }
    case 'NotAcceptable':
      return { status: 406, message: error.reason };
    case 'ChangesExpired':
      return {
        status: 410,
        message: `the changes after ${error.since} have expired (CHANGES_RETENTION): read the plants again, then follow from the X-Change-Seq of the first page`,
      };
    case 'TooManyStreams':
      return {
        status: 503,
        message: `this instance holds ${error.max} change streams and long polls, as many as it may; try again`,
        headers: retryAfter,
      };
    case 'NotReady':
      return { status: 503, message: `not ready: ${error.reason}`, headers: retryAfter };
    case 'RateLimited':
      return {
        status: 429,
        message: `rate limit of ${error.ratePerSecond} requests per second exceeded; retry after ${error.retryAfterSeconds} s`,
        headers: { 'Retry-After': String(error.retryAfterSeconds) },
      };
    case 'IdempotencyKeyReused':
      return {
        status: 422,
        message: `Idempotency-Key "${error.key}" was already used with a different request; send a new key for a new request`,
      };
    case 'IdempotencyKeyInFlight':
      return {
        status: 409,
        message: `a request with Idempotency-Key "${error.key}" is still in progress; retry after 1 s`,
        headers: { 'Retry-After': '1' },
      };
    case 'InternalError':
      return { status: 500, message: 'internal server error' };
    default:
      return absurd(error);
  }
};
