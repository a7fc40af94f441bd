import { fromString, integer, oneOf, parseUrl, type DecodedVariables } from './env-codecs.js';
import type { StoreLocation } from './store-location.js';

export interface RateLimitConfig {
  /** RATE_LIMIT_PER_SECOND: the sustained requests per second per principal (> 0). */
  readonly perSecond: number;
  /**
   * RATE_LIMIT_BURST: the requests a principal may make at once; a multiple of perSecond, default
   * 2 × perSecond. The window is burst / perSecond seconds (see rate-limit/rate-limiter.ts).
   */
  readonly burst: number;
  /**
   * RATE_LIMIT_STORE: where the counters live. Default: `redis` when REDIS_URL is set, else
   * `postgres` when DATABASE_URL is PostgreSQL (one budget for every instance and worker), else
   * `memory` (one process). `cluster`: the primary's memory, shared by the WORKERS of one instance.
   */
  readonly store: RateLimitStoreKind;
  /** REDIS_URL, when set. */
  readonly redisUrl: string | undefined;
}

export const RATE_LIMIT_STORES = ['memory', 'cluster', 'postgres', 'redis'] as const;
export type RateLimitStoreKind = (typeof RATE_LIMIT_STORES)[number];

/** A redis:// or rediss:// URL with a host (and, if any, a numeric database path). */
const isRedisUrl = (s: string): boolean => {
  const url = parseUrl(s);
  return (
    url !== undefined &&
    (url.protocol === 'redis:' || url.protocol === 'rediss:') &&
    url.hostname !== '' &&
    /^(?:\/[0-9]{0,2})?$/.test(url.pathname)
  );
};

/** The variables rate limiting is read from, each with its codec. */
export const rateLimitVariables = {
  RATE_LIMIT_PER_SECOND: integer(0, 1_000_000),
  RATE_LIMIT_BURST: integer(1, 10_000_000),
  RATE_LIMIT_STORE: oneOf(RATE_LIMIT_STORES),
  REDIS_URL: fromString('a redis:// or rediss:// URL (redis://host:6379, redis://:password@host:6379/0)', (s) =>
    isRedisUrl(s) ? s : undefined,
  ),
} as const;

/**
 * The rate limiting the decoded variables ask for (undefined: off, RATE_LIMIT_PER_SECOND unset or
 * 0), with the store settled; each inconsistency adds a line to `problems`. `storeLocation` is
 * undefined when DATABASE_URL itself is bad (its own problem says so).
 */
export const decodeRateLimit = (
  d: DecodedVariables<typeof rateLimitVariables>,
  workers: number,
  storeLocation: StoreLocation | undefined,
  problems: string[],
): RateLimitConfig | undefined => {
  const perSecond = d.RATE_LIMIT_PER_SECOND ?? 0;
  if (perSecond === 0) {
    const stray = (['RATE_LIMIT_BURST', 'RATE_LIMIT_STORE'] as const).filter((name) => d[name] !== undefined);
    if (stray.length > 0)
      problems.push(`${stray.join(', ')} set but rate limiting is off (set RATE_LIMIT_PER_SECOND too, or unset them)`);
    return undefined;
  }
  const burst = d.RATE_LIMIT_BURST ?? 2 * perSecond;
  if (burst % perSecond !== 0) {
    problems.push(
      `RATE_LIMIT_BURST expects a multiple of RATE_LIMIT_PER_SECOND (${perSecond}), got ${burst}: the window it gives, burst / rate seconds, must be whole seconds`,
    );
  }
  const isPostgres = storeLocation?.kind === 'postgres';
  const store = d.RATE_LIMIT_STORE ?? (d.REDIS_URL !== undefined ? 'redis' : isPostgres ? 'postgres' : 'memory');
  if (store === 'redis' && d.REDIS_URL === undefined) problems.push('RATE_LIMIT_STORE=redis expects REDIS_URL');
  if (store === 'postgres' && storeLocation !== undefined && !isPostgres)
    problems.push('RATE_LIMIT_STORE=postgres expects a postgres:// DATABASE_URL');
  if (store === 'cluster' && workers === 1)
    problems.push('RATE_LIMIT_STORE=cluster expects WORKERS > 1 (one process keeps its counters in memory)');
  if (store === 'memory' && workers > 1) {
    problems.push(
      'RATE_LIMIT_STORE=memory with WORKERS > 1 would give each worker its own budget; use cluster, postgres or redis',
    );
  }
  return { perSecond, burst, store, redisUrl: d.REDIS_URL };
};
