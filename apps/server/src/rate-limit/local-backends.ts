import { RateLimiterCluster, RateLimiterClusterMaster, RateLimiterMemory } from 'rate-limiter-flexible';
import type { RateLimitBackend, RateLimitPolicy } from './rate-limiter.js';

/** The key prefix every backend uses: one policy, one namespace of counters. */
export const RATE_LIMIT_KEY_PREFIX = 'plant-store-rl';

/** Counters in this process's memory: one process (WORKERS=1) and no shared store. */
export const createMemoryBackend = (policy: RateLimitPolicy): RateLimitBackend => {
  const limiter = new RateLimiterMemory({
    keyPrefix: RATE_LIMIT_KEY_PREFIX,
    points: policy.quota,
    duration: policy.windowSeconds,
  });
  return { name: 'memory', consume: (key) => limiter.consume(key), close: async () => undefined };
};

/**
 * Counters in the cluster primary's memory, asked over node:cluster IPC: every worker of one
 * instance (WORKERS=N) draws from one budget. The primary must run startRateLimitClusterMaster
 * before forking. `timeoutMs`: how long a worker waits for the primary's answer before the check fails.
 */
export const createClusterBackend = (policy: RateLimitPolicy, timeoutMs: number): RateLimitBackend => {
  const limiter = new RateLimiterCluster({
    keyPrefix: RATE_LIMIT_KEY_PREFIX,
    points: policy.quota,
    duration: policy.windowSeconds,
    timeoutMs,
  });
  return { name: 'cluster', consume: (key) => limiter.consume(key), close: async () => undefined };
};

/** In the cluster primary: holds the counters of createClusterBackend's workers (one per process). */
export const startRateLimitClusterMaster = (): void => {
  new RateLimiterClusterMaster();
};
