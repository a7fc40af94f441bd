import { performance } from 'node:perf_hooks';

export interface RateLimiterOptions {
  /** Tokens added to each bucket per second (the sustained rate); > 0. */
  readonly ratePerSecond: number;
  /** The bucket's size: how many requests may arrive at once after an idle spell; ≥ 1. */
  readonly burst: number;
  /** A monotonic clock in milliseconds; default `performance.now()`. Injected by tests. */
  readonly now?: () => number;
  /** When the map holds more buckets than this, idle (full) buckets are dropped; default 10 000. */
  readonly maxKeys?: number;
}

/** A token bucket per key (a principal's subject), in this process's memory only. */
export interface RateLimiter {
  readonly ratePerSecond: number;
  readonly burst: number;
  /**
   * Takes one token from `key`'s bucket. Returns 0 when the request may go on, otherwise the
   * whole seconds (≥ 1) after which one token will be there again (`Retry-After`).
   */
  take(key: string): number;
  /** How many buckets are held (for tests and diagnostics). */
  size(): number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export const DEFAULT_MAX_KEYS = 10_000;

/**
 * Token buckets: each key starts full (`burst` tokens), each request takes one, tokens come back at
 * `ratePerSecond` up to `burst`. A refused request takes nothing. The map stays bounded: past
 * `maxKeys` buckets, those that have refilled completely (an idle caller, indistinguishable from a
 * new one) are dropped; if that is not enough, the oldest buckets go (their callers start full again).
 */
export const createRateLimiter = (options: RateLimiterOptions): RateLimiter => {
  const { ratePerSecond, burst } = options;
  if (!(Number.isFinite(ratePerSecond) && ratePerSecond > 0)) {
    throw new TypeError(`createRateLimiter: ratePerSecond must be a positive number, got ${ratePerSecond}`);
  }
  if (!(Number.isSafeInteger(burst) && burst >= 1)) throw new TypeError(`createRateLimiter: burst must be an integer ≥ 1, got ${burst}`);
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  if (!(Number.isSafeInteger(maxKeys) && maxKeys >= 1)) throw new TypeError(`createRateLimiter: maxKeys must be an integer ≥ 1, got ${maxKeys}`);
  const now = options.now ?? (() => performance.now());
  const perMs = ratePerSecond / 1000;
  const buckets = new Map<string, Bucket>();

  const prune = (at: number): void => {
    for (const [key, bucket] of buckets) {
      if (bucket.tokens + (at - bucket.updatedMs) * perMs >= burst) buckets.delete(key);
    }
    // Every bucket is in use: drop the oldest (Map order is insertion order) down to 90 %, so that
    // pruning stays rare instead of running on every new key.
    const target = Math.floor(maxKeys * 0.9);
    if (buckets.size > target) {
      for (const key of buckets.keys()) {
        buckets.delete(key);
        if (buckets.size <= target) break;
      }
    }
  };

  return {
    ratePerSecond,
    burst,
    size: () => buckets.size,
    take: (key) => {
      const at = now();
      const bucket = buckets.get(key);
      if (bucket === undefined) {
        if (buckets.size >= maxKeys) prune(at);
        buckets.set(key, { tokens: burst - 1, updatedMs: at });
        return 0;
      }
      const tokens = Math.min(burst, bucket.tokens + (at - bucket.updatedMs) * perMs);
      bucket.updatedMs = at;
      if (tokens >= 1) {
        bucket.tokens = tokens - 1;
        return 0;
      }
      bucket.tokens = tokens;
      return Math.max(1, Math.ceil((1 - tokens) / ratePerSecond));
    },
  };
};
