import { createHash } from 'node:crypto';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../logger.js';

/**
 * The one rate-limit policy of the deployment, as RATE_LIMIT_PER_SECOND (R) and RATE_LIMIT_BURST
 * (B) set it: each principal may make `quota` (= B) requests in a fixed window of `windowSeconds`
 * (= B / R, a whole number of seconds) that starts with its first request after the previous window
 * ended. Averaged over time that is R per second; at most B arrive at once after an idle spell.
 */
export interface RateLimitPolicy {
  readonly ratePerSecond: number;
  readonly quota: number;
  readonly windowSeconds: number;
}

/** The policy of R per second with bursts of B; B must be a multiple of R (config/rate-limit.ts checks it). */
export const rateLimitPolicy = (ratePerSecond: number, burst: number): RateLimitPolicy => {
  if (!(Number.isSafeInteger(ratePerSecond) && ratePerSecond >= 1))
    throw new TypeError(`rateLimitPolicy: ratePerSecond must be an integer ≥ 1, got ${ratePerSecond}`);
  if (!(Number.isSafeInteger(burst) && burst >= ratePerSecond && burst % ratePerSecond === 0)) {
    throw new TypeError(`rateLimitPolicy: burst must be a multiple of ratePerSecond (${ratePerSecond}), got ${burst}`);
  }
  return { ratePerSecond, quota: burst, windowSeconds: burst / ratePerSecond };
};

/** What one request is told: go on, or wait; `unchecked` when the limiter's store failed (fail open). */
export type RateLimitDecision =
  | { readonly kind: 'allowed'; readonly remaining: number; readonly resetSeconds: number }
  | { readonly kind: 'limited'; readonly resetSeconds: number }
  | { readonly kind: 'unchecked' };

/** Which rate-limiter-flexible store holds the counters. */
export type RateLimitBackendName = 'memory' | 'cluster' | 'postgres' | 'redis';

/** A rate-limiter-flexible limiter (RateLimiterMemory, …Cluster, …Postgres, …Redis) and how to let go of its client. */
export interface RateLimitBackend {
  readonly name: RateLimitBackendName;
  /** Resolves when a point was taken; rejects with a RateLimiterRes when none is left, with an Error when the store failed. */
  consume(key: string): Promise<RateLimiterRes>;
  close(): Promise<void>;
}

export interface RateLimiterHooks {
  /** Called for each request whose check failed in the store (it was served unchecked); e.g. a metric. */
  readonly onStoreError?: (backend: RateLimitBackendName, error: unknown) => void;
  /** Called for each request refused with 429; e.g. a metric. */
  readonly onLimited?: (backend: RateLimitBackendName) => void;
}

export interface RateLimiterOptions extends RateLimiterHooks {
  readonly policy: RateLimitPolicy;
  readonly backend: RateLimitBackend;
  /** Where a store failure is said (at most once per `logEveryMs`). */
  readonly logger: Logger;
  /** A check that takes longer is abandoned and the request served (fail open); default 1000 ms. */
  readonly timeoutMs?: number;
  /** Default 5000 ms. */
  readonly logEveryMs?: number;
}

/** Per-principal rate limiting over one rate-limiter-flexible store. */
export interface RateLimiter {
  readonly policy: RateLimitPolicy;
  readonly backend: RateLimitBackendName;
  /** Takes one request from `principal`'s quota. Never rejects: a store failure is `unchecked`. */
  take(principal: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export const DEFAULT_STORE_TIMEOUT_MS = 1000;
export const DEFAULT_LOG_EVERY_MS = 5000;

/**
 * The store's key for a principal: a SHA-256 of its subject, so keys have one short length (the
 * PostgreSQL table's key is varchar(255); a JWT's issuer + subject may be longer) and no store
 * holds principals' names.
 */
export const rateLimitKey = (principal: string): string => createHash('sha256').update(principal).digest('base64url');

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

class StoreTimeout extends Error {
  constructor(ms: number) {
    super(`the rate limiter's store did not answer within ${ms} ms`);
    this.name = 'StoreTimeout';
  }
}

/**
 * Wraps a backend: a point taken → `allowed` with what is left; none left → `limited` with the
 * seconds until the window resets (≥ 1, for Retry-After); the store failing or not answering in
 * time → `unchecked`, `onStoreError` called and, at most once per `logEveryMs`, one warning that
 * says how many checks failed since the last one.
 */
export const createRateLimiter = (options: RateLimiterOptions): RateLimiter => {
  const { policy, backend, logger } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const logEveryMs = options.logEveryMs ?? DEFAULT_LOG_EVERY_MS;
  let lastLogMs = -Infinity;
  let unlogged = 0;

  const storeFailed = (error: unknown): RateLimitDecision => {
    options.onStoreError?.(backend.name, error);
    unlogged += 1;
    const now = Date.now();
    if (now - lastLogMs >= logEveryMs) {
      logger.warn(
        { err: error, rateLimitStore: backend.name, failedChecks: unlogged },
        'rate limiter store unreachable: serving requests without rate limiting (fail open)',
      );
      lastLogMs = now;
      unlogged = 0;
    }
    return { kind: 'unchecked' };
  };

  const withTimeout = (promise: Promise<RateLimiterRes>): Promise<RateLimiterRes> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new StoreTimeout(timeoutMs)), timeoutMs);
      promise.then(
        (res) => {
          clearTimeout(timer);
          resolve(res);
        },
        (err: unknown) => {
          clearTimeout(timer);
          // A RateLimiterRes (limited) or the store's error: take() tells them apart.
          reject(err);
        },
      );
    });

  return {
    policy,
    backend: backend.name,
    take: async (principal) => {
      let consumed: Promise<RateLimiterRes>;
      try {
        consumed = backend.consume(rateLimitKey(principal));
      } catch (error) {
        return storeFailed(error);
      }
      try {
        const res = await withTimeout(consumed);
        return {
          kind: 'allowed',
          remaining: Math.max(0, res.remainingPoints),
          resetSeconds: seconds(res.msBeforeNext),
        };
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) return storeFailed(error);
        options.onLimited?.(backend.name);
        return { kind: 'limited', resetSeconds: Math.max(1, seconds(error.msBeforeNext)) };
      }
    },
    close: () => backend.close(),
  };
};
