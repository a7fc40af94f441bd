import { createPlantStoreClient, PlantStoreError, RateLimitedError, type RetryInfo } from '@plant-store/client';
import { describe, expect, it } from 'vitest';
import { useLiveServer } from './support/store.js';

/**
 * The real server process with RATE_LIMIT_PER_SECOND=1 RATE_LIMIT_BURST=2 (2 requests per 2-second
 * window, in memory: one process over SQLite), driven by the real client: a 429 surfaces as
 * RateLimitedError with the server's body and Retry-After (1 or 2 s: what is left of the window),
 * and a client that retries waits for it and succeeds. Each test uses its own token (its own quota).
 */
const live = useLiveServer({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });

/**
 * Ten concurrent calls: far more than the quota of 2 (and of a second window, should one begin
 * while they run), so some are refused however slow the machine is. Returns the refusals.
 */
const flood = async (token: string): Promise<unknown[]> => {
  const plants = createPlantStoreClient({ baseUrl: live.server.url, token, retry: { limit: 0 } }).plants;
  const settled = await Promise.allSettled(Array.from({ length: 10 }, () => plants.list({ limit: 1 })));
  return settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason as unknown);
};

describe('rate limiting through the client', () => {
  it('without retries: RateLimitedError with status 429, the {error, message} body and retryAfterMs', async () => {
    const refused = await flood(live.token);
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error).toBeInstanceOf(RateLimitedError);
      expect(error).toBeInstanceOf(PlantStoreError);
      const limited = error as RateLimitedError;
      expect(limited._tag).toBe('RateLimited');
      expect(limited.status).toBe(429);
      expect([1000, 2000]).toContain(limited.retryAfterMs);
      expect(limited.body).toEqual({
        error: 429,
        message: `rate limit of 1 requests per second exceeded; retry after ${(limited.retryAfterMs ?? 0) / 1000} s`,
      });
      expect(limited.attempts).toBe(1);
      expect(limited.requestId).toMatch(/^[A-Za-z0-9._:-]+$/);
    }
  });

  it('with retries: the client honours Retry-After, waits and succeeds', async () => {
    const refused = await flood(live.readOnlyToken);
    expect(refused.length).toBeGreaterThan(0);
    const retries: RetryInfo[] = [];
    const patient = createPlantStoreClient({
      baseUrl: live.server.url,
      token: live.readOnlyToken,
      retry: { limit: 6, baseDelayMs: 50, maxRetryAfterMs: 5_000 },
      hooks: { beforeRetry: [(info) => void retries.push(info)] },
    });
    // Three at once against a quota of at most 2: at least one is refused and has to wait for the
    // next window, however long the flood above took.
    const pages = await Promise.all([1, 2, 3].map(() => patient.plants.list({ limit: 1 })));
    for (const page of pages) expect(page).toMatchObject({ plants: expect.any(Array) });
    expect(retries.length).toBeGreaterThan(0);
    for (const retry of retries) {
      expect(retry.error).toBeInstanceOf(RateLimitedError);
      expect([1000, 2000]).toContain(retry.delayMs);
    }
  });

  it('does not limit callers the server cannot authenticate: they keep getting 401', async () => {
    const refused = await flood('pst_not_a_real_token_0123456789');
    expect(refused).toHaveLength(10);
    for (const error of refused) expect((error as PlantStoreError).status).toBe(401);
  });
});
