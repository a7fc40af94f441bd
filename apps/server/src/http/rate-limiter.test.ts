import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.js';

/** A clock the test moves by hand, in milliseconds. */
const fakeClock = () => {
  let ms = 1_000;
  return { now: () => ms, advance: (by: number) => void (ms += by) };
};

describe('createRateLimiter', () => {
  it('lets a burst through, then refuses with the whole seconds until one token is back', () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 2, now: clock.now });
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
    clock.advance(400);
    // a refusal takes nothing: 0.4 token there, 0.6 s to go → 1 s
    expect(limiter.take('a')).toBe(1);
    clock.advance(600);
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
  });

  it('refills at the rate, never above the burst', () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ ratePerSecond: 10, burst: 3, now: clock.now });
    for (let i = 0; i < 3; i++) expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBe(1);
    clock.advance(60_000); // a long idle spell refills to 3, not 600
    for (let i = 0; i < 3; i++) expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBeGreaterThan(0);
    clock.advance(100); // 10/s: one token per 100 ms
    expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBeGreaterThan(0);
  });

  it('asks slow rates to wait several seconds (Retry-After rounds up)', () => {
    const clock = fakeClock();
    // (the configuration takes whole rates; the limiter itself takes any positive rate)
    const limiter = createRateLimiter({ ratePerSecond: 0.2, burst: 1, now: clock.now });
    expect(limiter.take('slow')).toBe(0);
    expect(limiter.take('slow')).toBe(5);
    clock.advance(2_500);
    expect(limiter.take('slow')).toBe(3); // 2.5 s to go → 3
    clock.advance(2_500);
    expect(limiter.take('slow')).toBe(0);
  });

  it('keeps one bucket per key: one caller cannot use up another one’s', () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 1, now: clock.now });
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBe(1);
    expect(limiter.take('b')).toBe(0);
    expect(limiter.take('b')).toBe(1);
  });

  it('stays bounded: past maxKeys it drops idle (full) buckets first', () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 1, now: clock.now, maxKeys: 100 });
    for (let i = 0; i < 100; i++) limiter.take(`idle-${i}`);
    clock.advance(1_000); // every bucket refilled: indistinguishable from a new caller
    limiter.take('busy');
    expect(limiter.take('busy')).toBe(1);
    expect(limiter.size()).toBe(1);
    expect(limiter.take('busy')).toBe(1); // the busy bucket was kept, still empty
  });

  it('stays bounded when every bucket is in use, dropping the oldest', () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 1, now: clock.now, maxKeys: 100 });
    for (let i = 0; i < 1_000; i++) limiter.take(`key-${i}`);
    expect(limiter.size()).toBeLessThanOrEqual(100);
    expect(limiter.take('key-999')).toBe(1); // the newest is still limited
  });

  it('refuses nonsense options', () => {
    expect(() => createRateLimiter({ ratePerSecond: 0, burst: 1 })).toThrow(TypeError);
    expect(() => createRateLimiter({ ratePerSecond: 1, burst: 0 })).toThrow(TypeError);
    expect(() => createRateLimiter({ ratePerSecond: 1, burst: 1.5 })).toThrow(TypeError);
    expect(() => createRateLimiter({ ratePerSecond: Number.NaN, burst: 1 })).toThrow(TypeError);
    expect(() => createRateLimiter({ ratePerSecond: 1, burst: 1, maxKeys: 0 })).toThrow(TypeError);
  });
});
