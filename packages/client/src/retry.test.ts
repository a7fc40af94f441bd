import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY, isRetryableResponse, resolveRetry } from './retry.js';

describe('resolveRetry', () => {
  it('keeps the base when there is no override', () => {
    expect(resolveRetry(DEFAULT_RETRY, undefined)).toBe(DEFAULT_RETRY);
  });

  it('reads a number as the limit and merges partial options', () => {
    expect(resolveRetry(DEFAULT_RETRY, 0)).toEqual({ ...DEFAULT_RETRY, limit: 0 });
    expect(resolveRetry(DEFAULT_RETRY, { baseDelayMs: 1, createWithId: true })).toEqual({
      ...DEFAULT_RETRY,
      baseDelayMs: 1,
      createWithId: true,
    });
  });

  it('throws TypeError for a bad limit or delay', () => {
    expect(() => resolveRetry(DEFAULT_RETRY, -1)).toThrow(TypeError);
    expect(() => resolveRetry(DEFAULT_RETRY, 1.5)).toThrow(TypeError);
    expect(() => resolveRetry(DEFAULT_RETRY, { maxDelayMs: Number.NaN })).toThrow(TypeError);
  });
});

describe('backoffDelay', () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles the ceiling per retry up to the maximum (full jitter below it)', () => {
    const justBelowOne = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 10].map((retry) => backoffDelay(retry, policy, justBelowOne))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
  });
});

describe('isRetryableResponse', () => {
  it('retries the retryable statuses and the in-progress 409 (the one with Retry-After)', () => {
    for (const status of [408, 429, 500, 502, 503, 504]) expect(isRetryableResponse(status, undefined)).toBe(true);
    expect(isRetryableResponse(409, '1')).toBe(true);
    expect(isRetryableResponse(409, 'soon')).toBe(true);
  });

  it('does not retry the id-taken 409, other 4xx or a success', () => {
    for (const status of [200, 201, 400, 404, 409, 413, 422])
      expect(isRetryableResponse(status, undefined)).toBe(false);
    expect(isRetryableResponse(422, '1')).toBe(false);
  });
});
