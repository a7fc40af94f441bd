import type { ErrorBody } from '@plant-store/domain';

/** The `_tag` of every error class: one per outcome, so `switch (error._tag)` is exhaustive. */
export type PlantStoreErrorTag =
  | 'BadRequest'
  | 'Validation'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'Conflict'
  | 'IdempotencyKeyReused'
  | 'ChangesExpired'
  | 'PreconditionFailed'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'RateLimited'
  | 'Server'
  | 'ServiceUnavailable'
  | 'Connection'
  | 'Timeout'
  | 'Aborted'
  | 'UnexpectedResponse';

/** What every error knows about the exchange that failed. Absent members were not known. */
export interface PlantStoreErrorDetails {
  /** The HTTP status of the response; absent when none arrived (connection, timeout, abort, validation). */
  readonly status?: number | undefined;
  /** The server's `{error, message}` body, when the response carried a well-formed one. */
  readonly body?: ErrorBody | undefined;
  /** The response's `X-Request-Id`, or the id this client sent when no response arrived. */
  readonly requestId?: string | undefined;
  /** `GET`, `POST`, `PATCH` or `DELETE`. */
  readonly method?: string | undefined;
  /** The request URL (it never holds the token). */
  readonly url?: string | undefined;
  /** How many requests were sent (1 + retries); 0 when the call failed before sending. */
  readonly attempts?: number | undefined;
  /** The `Idempotency-Key` the request carried (every attempt carries the same one). */
  readonly idempotencyKey?: string | undefined;
  /** The underlying error (from the network layer, `JSON.parse`, the abort signal). */
  readonly cause?: unknown;
}

/**
 * The base of every error this client raises. `instanceof PlantStoreError` catches them all;
 * `_tag` tells them apart without `instanceof` (handy with fp-ts).
 */
export abstract class PlantStoreError extends Error {
  abstract readonly _tag: PlantStoreErrorTag;
  readonly status: number | undefined;
  readonly body: ErrorBody | undefined;
  readonly requestId: string | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly attempts: number;
  /**
   * The `Idempotency-Key` of a failed `plants.create` (absent when it sent none or failed before
   * sending). Creating again with `{ idempotencyKey: error.idempotencyKey }` and the same input is
   * safe: the server stores the plant at most once and answers a repeat with the first answer.
   */
  readonly idempotencyKey: string | undefined;

  constructor(message: string, details: PlantStoreErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.body = details.body;
    this.requestId = details.requestId;
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts ?? 0;
    this.idempotencyKey = details.idempotencyKey;
  }
}

/** 400: the server rejected the input (its message names the fields). */
export class BadRequestError extends PlantStoreError {
  readonly _tag: 'BadRequest' | 'Validation' = 'BadRequest';
}

/**
 * The input failed the domain codecs before any request was sent (`status` is absent). It is a
 * `BadRequestError`, so one `catch` handles invalid input whoever noticed it first.
 */
export class ValidationError extends BadRequestError {
  override readonly _tag = 'Validation' as const;
  /** One readable line per failing field, e.g. `name: expected 1–200 characters, got 0`. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[], details: PlantStoreErrorDetails = {}) {
    super(problems.join('; '), details);
    this.problems = problems;
  }
}

/** 401: no, an unknown, an expired or a revoked token. */
export class UnauthorizedError extends PlantStoreError {
  readonly _tag = 'Unauthorized' as const;
}

/** 403: the token lacks the scope (`plants:read` or `plants:write`). */
export class ForbiddenError extends PlantStoreError {
  readonly _tag = 'Forbidden' as const;
}

/** 404: no plant with this id. */
export class NotFoundError extends PlantStoreError {
  readonly _tag = 'NotFound' as const;
}

/**
 * 409 from `plants.create`, in one of two kinds:
 * - the input named an id another plant already has; nothing was changed. `replayed` is true when
 *   this is the saved answer to an earlier request with the same `Idempotency-Key` (for example an
 *   attempt of this call whose response was lost), false when this request met the taken id;
 * - `retryAfterMs` is set: a request with the same `Idempotency-Key` is still being processed.
 *   The client waits and retries this one by itself; you see it only when the retries ran out or
 *   the server asked for a wait longer than `retry.maxRetryAfterMs`.
 */
export class ConflictError extends PlantStoreError {
  readonly _tag = 'Conflict' as const;
  /** Whether the server replayed the saved answer of an earlier request with the same key (`Idempotent-Replayed: true`). */
  readonly replayed: boolean;
  /** The server's `Retry-After`: present only when a request with the same key is still in progress. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    details: PlantStoreErrorDetails & { readonly replayed?: boolean; readonly retryAfterMs?: number | undefined } = {},
  ) {
    super(message, details);
    this.replayed = details.replayed ?? false;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/**
 * 422: the `Idempotency-Key` was already used with a different request (another body) within the
 * server's retention time; nothing was changed. Use a fresh key for a different plant.
 */
export class IdempotencyKeyReusedError extends PlantStoreError {
  readonly _tag = 'IdempotencyKeyReused' as const;
}

/**
 * 412: the condition of a conditional request does not hold — most often, the `ifMatch` of
 * `plants.update` or `plants.delete` no longer names the plant's current ETag because it changed
 * since you read it. Nothing was changed. Read the plant again (`get`) and decide afresh.
 *
 * Such calls are retried like a GET (see `RetryOptions`): when the first attempt was applied but
 * its response was lost, the retry meets the plant's new ETag and ends here, with
 * `attempts > 1` — the change you see when you read it again may be your own.
 */
export class PreconditionFailedError extends PlantStoreError {
  readonly _tag = 'PreconditionFailed' as const;
}

/**
 * 410 from `plants.changes`: the changes after the position asked for are older than the server
 * keeps them (`CHANGES_RETENTION`, 7 days by default), so the feed cannot go on from there without
 * missing some. Read the plants again, then follow the changes from the first page's
 * `changeSeq` (docs/guides/changes.md, "When the answer is 410"); `plants.mirror` does this by
 * itself.
 */
export class ChangesExpiredError extends PlantStoreError {
  readonly _tag = 'ChangesExpired' as const;
}

/** 413: the request body is larger than the server's limit. */
export class PayloadTooLargeError extends PlantStoreError {
  readonly _tag = 'PayloadTooLarge' as const;
}

/** 415: the server refused the body's media type or encoding. */
export class UnsupportedMediaTypeError extends PlantStoreError {
  readonly _tag = 'UnsupportedMediaType' as const;
}

/** 429: too many requests. `retryAfterMs` is the server's `Retry-After`, when it sent a valid one. */
export class RateLimitedError extends PlantStoreError {
  readonly _tag = 'RateLimited' as const;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: PlantStoreErrorDetails & { readonly retryAfterMs?: number | undefined } = {}) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** 5xx: the server failed. `status` says which (500, 502, 504 …); 503 has its own subclass. */
export class ServerError extends PlantStoreError {
  readonly _tag: 'Server' | 'ServiceUnavailable' = 'Server';
}

/** 503: the server is not ready or is shutting down. `retryAfterMs` as for 429. */
export class ServiceUnavailableError extends ServerError {
  override readonly _tag = 'ServiceUnavailable' as const;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: PlantStoreErrorDetails & { readonly retryAfterMs?: number | undefined } = {}) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** No response: the connection was refused, reset or could not be made. `code` is e.g. `ECONNREFUSED`. */
export class ConnectionError extends PlantStoreError {
  readonly _tag = 'Connection' as const;
  readonly code: string | undefined;

  constructor(message: string, details: PlantStoreErrorDetails & { readonly code?: string | undefined } = {}) {
    super(message, details);
    this.code = details.code;
  }
}

/**
 * No complete response within the timeout (per attempt), an `AbortSignal.timeout()` fired, or the
 * server answered 408 (it timed out waiting for the request; `status` is then 408).
 */
export class TimeoutError extends PlantStoreError {
  readonly _tag = 'Timeout' as const;
}

/** The caller's `AbortSignal` fired; `cause` is the signal's reason. */
export class AbortError extends PlantStoreError {
  readonly _tag = 'Aborted' as const;
}

/**
 * The server answered something this client cannot accept: a body that does not decode (the
 * readable decode messages are in `problems`), a missing or malformed `Location` or `Link`, or a
 * status the contract does not list for this operation (405, 3xx …).
 */
export class UnexpectedResponseError extends PlantStoreError {
  readonly _tag = 'UnexpectedResponse' as const;
  readonly problems: readonly string[];

  constructor(problems: readonly string[], details: PlantStoreErrorDetails = {}) {
    super(problems.join('; '), details);
    this.problems = problems;
  }
}

export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorBody | undefined;
  readonly retryAfterMs?: number | undefined;
  /** Whether the response carried `Idempotent-Replayed: true`. */
  readonly replayed?: boolean;
}

/** The error class for a non-success status; the message is the server's, or a generic one. */
export const errorForStatus = (response: ErrorResponse, details: PlantStoreErrorDetails): PlantStoreError => {
  const { status, body } = response;
  const all = { ...details, status, body };
  const where = [details.method, details.url].filter((part) => part !== undefined).join(' ');
  const message = body?.message ?? `${where === '' ? 'the request' : where} answered HTTP ${status}`;
  switch (status) {
    case 400:
      return new BadRequestError(message, all);
    case 401:
      return new UnauthorizedError(message, all);
    case 403:
      return new ForbiddenError(message, all);
    case 404:
      return new NotFoundError(message, all);
    case 408:
      return new TimeoutError(message, all);
    case 409:
      return new ConflictError(message, {
        ...all,
        replayed: response.replayed ?? false,
        retryAfterMs: response.retryAfterMs,
      });
    case 410:
      return new ChangesExpiredError(message, all);
    case 412:
      return new PreconditionFailedError(message, all);
    case 413:
      return new PayloadTooLargeError(message, all);
    case 415:
      return new UnsupportedMediaTypeError(message, all);
    case 422:
      return new IdempotencyKeyReusedError(message, all);
    case 429:
      return new RateLimitedError(message, { ...all, retryAfterMs: response.retryAfterMs });
    case 503:
      return new ServiceUnavailableError(message, { ...all, retryAfterMs: response.retryAfterMs });
    default:
      return status >= 500 && status <= 599
        ? new ServerError(message, all)
        : new UnexpectedResponseError([`unexpected HTTP ${status}: ${message}`], all);
  }
};
