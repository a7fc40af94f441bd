/**
 * How a client retries. Every member is optional; see `DEFAULT_RETRY` for the defaults.
 *
 * What is retried (after a connection error, a timeout, or a status in `RETRYABLE_STATUSES`):
 * `get`, `list`, `all` and `delete`; `update` (a JSON Merge Patch: applying it twice gives the
 * same plant); and `create` with an `Idempotency-Key` (the default; see `createWithId` for one
 * without). A call that is conditional — `update` or `delete` with `ifMatch` — is retried too, so
 * when its first attempt was applied but the response was lost, the retry meets the plant's new
 * ETag and rejects with `PreconditionFailedError` (a delete: `NotFoundError`) with `attempts > 1`:
 * the change you then read may be your own. `retry: 0` on such a call makes a 412 unambiguous.
 */
export interface RetryOptions {
  /** Retries after the first attempt (0 disables retrying). Default 2. */
  readonly limit?: number;
  /** The first backoff ceiling in ms; it doubles per retry (full jitter: a random wait below it). Default 300. */
  readonly baseDelayMs?: number;
  /** The largest backoff ceiling in ms. Default 10 000. */
  readonly maxDelayMs?: number;
  /**
   * The longest `Retry-After` (429, 503, the in-progress 409) the client waits for, in ms. When the
   * server asks for longer, the client does not retry and the error carries `retryAfterMs`.
   * Default 30 000.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * Also retry a `plants.create` sent without an `Idempotency-Key` (`idempotencyKey: false`) when
   * the input names an `id` (default false). A create with a key, the default, is retried like a
   * GET whatever this says: the server answers a repeat of the key with the first answer. Without
   * a key and without an id a retried create could store the plant twice, so it is never retried.
   * With an id a retry cannot duplicate, but when the first attempt was stored and only its
   * response was lost, the retry answers `ConflictError` (with `attempts > 1`) for the plant you
   * created.
   */
  readonly createWithId?: boolean;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  limit: 2,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 30_000,
  createWithId: false,
});

/** Statuses worth another attempt of an idempotent request. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Whether a response is worth another attempt of a request that may be retried: a status in
 * `RETRYABLE_STATUSES`, or a 409 that carries `Retry-After` — the server's "a request with this
 * `Idempotency-Key` is still in progress". A 409 for a taken id never carries `Retry-After`, so it
 * is final.
 */
export const isRetryableResponse = (status: number, retryAfter: string | undefined): boolean =>
  RETRYABLE_STATUSES.has(status) || (status === 409 && retryAfter !== undefined);

const checkMs = (name: string, value: number): number => {
  if (!Number.isFinite(value) || value < 0)
    throw new TypeError(`retry.${name} must be a non-negative number of ms, got ${value}`);
  return value;
};

/** Merges `override` (a limit or partial options) over `base`; a bad value is a TypeError. */
export const resolveRetry = (base: RetryPolicy, override: number | RetryOptions | undefined): RetryPolicy => {
  if (override === undefined) return base;
  const options: RetryOptions = typeof override === 'number' ? { limit: override } : override;
  const policy: RetryPolicy = {
    limit: options.limit ?? base.limit,
    baseDelayMs: checkMs('baseDelayMs', options.baseDelayMs ?? base.baseDelayMs),
    maxDelayMs: checkMs('maxDelayMs', options.maxDelayMs ?? base.maxDelayMs),
    maxRetryAfterMs: checkMs('maxRetryAfterMs', options.maxRetryAfterMs ?? base.maxRetryAfterMs),
    createWithId: options.createWithId ?? base.createWithId,
  };
  if (!Number.isSafeInteger(policy.limit) || policy.limit < 0) {
    throw new TypeError(`retry limit must be a non-negative integer, got ${policy.limit}`);
  }
  return policy;
};

/** Full-jitter exponential backoff: a random wait in [0, min(max, base · 2^(retry−1))). `retry` counts from 1. */
export const backoffDelay = (retry: number, policy: RetryPolicy, random: () => number = Math.random): number =>
  Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1)));
