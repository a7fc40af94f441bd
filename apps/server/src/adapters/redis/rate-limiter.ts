import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { RATE_LIMIT_KEY_PREFIX } from '../../rate-limit/local-backends.js';
import type { RateLimitBackend, RateLimitPolicy } from '../../rate-limit/rate-limiter.js';

export interface RedisRateLimiterOptions {
  /** REDIS_URL (redis:// or rediss://). */
  readonly url: string;
  readonly policy: RateLimitPolicy;
  /** How long connecting may take before a check fails; default 1000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Counters in Redis (REDIS_URL): every instance and worker pointed at one Redis draws from one
 * budget; one atomic Lua script per check (rate-limiter-flexible's RateLimiterRedis, with ioredis).
 *
 * Start-up does not wait for Redis: the client connects (and reconnects) in the background, and
 * while it is not connected every check fails at once — no offline queue, as rate-limiter-flexible
 * recommends — so requests are served unchecked (fail open) instead of waiting.
 */
export const openRedisRateLimiter = (options: RedisRateLimiterOptions): RateLimitBackend => {
  const timeoutMs = options.timeoutMs ?? 1000;
  const client = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    // Reconnect forever, at most every 2 s.
    retryStrategy: (times) => Math.min(times * 100, 2000),
    connectionName: 'plant-store-rate-limiter',
  });
  // Connection errors are reported through the checks that fail; without a listener ioredis logs them to stderr.
  client.on('error', () => undefined);
  const limiter = new RateLimiterRedis({
    storeClient: client,
    keyPrefix: RATE_LIMIT_KEY_PREFIX,
    points: options.policy.quota,
    duration: options.policy.windowSeconds,
  });
  return {
    name: 'redis',
    consume: (key) => limiter.consume(key),
    close: async () => {
      client.disconnect();
    },
  };
};
