import type { RateLimitConfig } from '../config/rate-limit.js';
import type { StoreLocation } from '../config/store-location.js';
import type { Logger } from '../logger.js';
import { createClusterBackend, createMemoryBackend } from '../rate-limit/local-backends.js';
import {
  createRateLimiter,
  DEFAULT_STORE_TIMEOUT_MS,
  rateLimitPolicy,
  type RateLimiter,
  type RateLimiterHooks,
} from '../rate-limit/rate-limiter.js';

export interface OpenRateLimiterOptions extends RateLimiterHooks {
  readonly config: RateLimitConfig;
  /** DATABASE_URL, decoded: RATE_LIMIT_STORE=postgres keeps its counters in that database. */
  readonly storeLocation: StoreLocation;
  readonly logger: Logger;
  /** How long a check may take before the request is served unchecked; default 1000 ms. */
  readonly timeoutMs?: number;
}

/**
 * The limiter RATE_LIMIT_STORE picks (config/rate-limit.ts settles the default), wrapped with fail-open,
 * the time-out and the hooks. The PostgreSQL and Redis drivers are loaded only when asked for.
 */
export const openRateLimiter = async (options: OpenRateLimiterOptions): Promise<RateLimiter> => {
  const { config, logger } = options;
  const policy = rateLimitPolicy(config.perSecond, config.burst);
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const backend = await (async () => {
    switch (config.store) {
      case 'memory':
        return createMemoryBackend(policy);
      case 'cluster':
        return createClusterBackend(policy, timeoutMs);
      case 'postgres': {
        const location = options.storeLocation;
        if (location.kind !== 'postgres')
          throw new TypeError('RATE_LIMIT_STORE=postgres needs a postgres:// DATABASE_URL');
        const { openPostgresRateLimiter } = await import('./postgres/rate-limiter.js');
        return openPostgresRateLimiter({ url: location.url, policy, timeoutMs });
      }
      case 'redis': {
        if (config.redisUrl === undefined) throw new TypeError('RATE_LIMIT_STORE=redis needs REDIS_URL');
        const { openRedisRateLimiter } = await import('./redis/rate-limiter.js');
        return openRedisRateLimiter({ url: config.redisUrl, policy, timeoutMs });
      }
    }
  })();
  return createRateLimiter({
    policy,
    backend,
    logger,
    timeoutMs,
    ...(options.onStoreError === undefined ? {} : { onStoreError: options.onStoreError }),
    ...(options.onLimited === undefined ? {} : { onLimited: options.onLimited }),
  });
};
