import type { RateLimiterRes } from 'rate-limiter-flexible';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryBackend } from './local-backends.js';
import {
  createRateLimiter,
  rateLimitKey,
  rateLimitPolicy,
  type RateLimitBackend,
  type RateLimitBackendName,
} from './rate-limiter.js';
import { capturedLogger } from '../../test/support/captured-logger.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store that is down: every check fails as a driver's would (a real outage is in the adapters' tests). */
const downBackend = (error: Error): RateLimitBackend => ({
  name: 'postgres',
  consume: () => Promise.reject(error),
  close: async () => undefined,
});

describe('rateLimitPolicy', () => {
  it('gives a window of burst / rate seconds holding the burst', () => {
    expect(rateLimitPolicy(1, 2)).toEqual({ ratePerSecond: 1, quota: 2, windowSeconds: 2 });
    expect(rateLimitPolicy(50, 50)).toEqual({ ratePerSecond: 50, quota: 50, windowSeconds: 1 });
    expect(rateLimitPolicy(10, 300)).toEqual({ ratePerSecond: 10, quota: 300, windowSeconds: 30 });
  });

  it('throws a TypeError for a burst that is not a multiple of the rate', () => {
    expect(() => rateLimitPolicy(10, 15)).toThrow(TypeError);
    expect(() => rateLimitPolicy(10, 5)).toThrow(/multiple/);
    expect(() => rateLimitPolicy(0, 5)).toThrow(/ratePerSecond/);
  });
});

describe('rateLimitKey', () => {
  it('is a fixed-length hash that does not show the principal', () => {
    const key = rateLimitKey(`https://issuer.example/${'x'.repeat(500)}|subject`);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rateLimitKey('token:abc')).not.toContain('abc');
    expect(rateLimitKey('a')).not.toBe(rateLimitKey('b'));
  });
});

describe('createRateLimiter over the memory backend', () => {
  it('allows the quota, then refuses with the seconds until the window resets, and counts down what is left', async () => {
    const { logger } = capturedLogger('info');
    const limited: RateLimitBackendName[] = [];
    const policy = rateLimitPolicy(2, 4);
    const limiter = createRateLimiter({
      policy,
      backend: createMemoryBackend(policy),
      logger,
      onLimited: (b) => void limited.push(b),
    });
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await limiter.take('alice'));
    expect(decisions.slice(0, 4)).toEqual(
      [3, 2, 1, 0].map((remaining) => ({ kind: 'allowed', remaining, resetSeconds: 2 })),
    );
    expect(decisions[4]).toEqual({ kind: 'limited', resetSeconds: 2 });
    expect(limited).toEqual(['memory']);
    // Another principal has its own quota.
    expect(await limiter.take('bob')).toEqual({ kind: 'allowed', remaining: 3, resetSeconds: 2 });
  });

  it('gives the whole quota back when the window ends', async () => {
    const { logger } = capturedLogger('info');
    const policy = rateLimitPolicy(2, 2);
    const limiter = createRateLimiter({ policy, backend: createMemoryBackend(policy), logger });
    await limiter.take('carol');
    await limiter.take('carol');
    expect((await limiter.take('carol')).kind).toBe('limited');
    await sleep(1100); // the 1 s window running out is what this test is about
    expect(await limiter.take('carol')).toMatchObject({ kind: 'allowed', remaining: 1 });
  });
});

describe('createRateLimiter when the store fails (fail open)', () => {
  afterEach(() => vi.useRealTimers());

  it('serves unchecked, calls onStoreError for every check, and logs once per interval with the count', async () => {
    // The clock is the test's: five checks on a loaded machine may take longer than the interval.
    vi.useFakeTimers({ toFake: ['Date'] });
    const { lines, logger } = capturedLogger('info');
    const errors: unknown[] = [];
    const failure = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const limiter = createRateLimiter({
      policy: rateLimitPolicy(1, 1),
      backend: downBackend(failure),
      logger,
      logEveryMs: 200,
      onStoreError: (backend, error) => void errors.push([backend, error]),
    });
    for (let i = 0; i < 5; i++) expect(await limiter.take('dave')).toEqual({ kind: 'unchecked' });
    expect(errors).toEqual(Array.from({ length: 5 }, () => ['postgres', failure]));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      rateLimitStore: 'postgres',
      failedChecks: 1,
      msg: expect.stringContaining('fail open'),
    });
    vi.setSystemTime(Date.now() + 199);
    await limiter.take('dave');
    expect(lines).toHaveLength(1);
    vi.setSystemTime(Date.now() + 1); // logEveryMs (200) after the first line: the next one is allowed
    await limiter.take('dave');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ failedChecks: 6 });
  });

  it('serves unchecked when the store does not answer within the time-out', async () => {
    const { logger } = capturedLogger('info');
    const errors: unknown[] = [];
    const hanging: RateLimitBackend = {
      name: 'redis',
      consume: () => new Promise<RateLimiterRes>(() => undefined),
      close: async () => undefined,
    };
    const limiter = createRateLimiter({
      policy: rateLimitPolicy(1, 1),
      backend: hanging,
      logger,
      timeoutMs: 100,
      onStoreError: (_b, e) => void errors.push(e),
    });
    const started = Date.now();
    expect(await limiter.take('erin')).toEqual({ kind: 'unchecked' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/did not answer within 100 ms/);
  });
});
