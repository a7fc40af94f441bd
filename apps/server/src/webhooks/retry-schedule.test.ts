import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  MAX_RETRY_DELAY_MS,
  nextAttemptDelayMs,
  parseRetryAfter,
  parseRetrySchedule,
} from './retry-schedule.js';

const s = 1_000;
const min = 60 * s;
const h = 60 * min;

describe('DEFAULT_RETRY_SCHEDULE_MS', () => {
  it('is the contract’s 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts over about 28 h', () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([5 * s, 5 * min, 30 * min, 2 * h, 5 * h, 10 * h, 10 * h]);
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(total / h).toBeCloseTo(27.6, 1);
    expect(MAX_RETRY_DELAY_MS).toBe(24 * h);
  });

  it('cannot be changed', () => {
    expect(Object.isFrozen(DEFAULT_RETRY_SCHEDULE_MS)).toBe(true);
  });
});

describe('parseRetrySchedule', () => {
  it.each([
    ['5s', [5 * s]],
    ['250ms', [250]],
    ['1ms', [1]],
    ['5s,5m,30m,2h,5h,10h,10h', [...DEFAULT_RETRY_SCHEDULE_MS]],
    ['24h', [24 * h]],
    ['1440m', [24 * h]],
    ['86400s', [24 * h]],
    ['86400000ms', [24 * h]],
    ['5s, 1m ,\t2h ', [5 * s, min, 2 * h]],
    [' 10ms ', [10]],
    ['007s', [7 * s]],
    [Array(50).fill('1s').join(','), Array(50).fill(s)],
  ])('reads %j', (text, expected) => {
    expect(parseRetrySchedule(text)).toEqual(expected);
  });

  it.each([
    '',
    ' ',
    ',',
    '5s,',
    ',5s',
    '5s,,1m',
    '5',
    's',
    '5 s',
    '5S',
    '5sec',
    '5d',
    '1.5s',
    '-5s',
    '+5s',
    '0s',
    '0ms',
    '0h',
    '25h',
    '86400001ms',
    '1441m',
    '86401s',
    '9999999999ms',
    '5s;1m',
    '5s 1m',
    '5s,\n1m',
    '５s',
    Array(51).fill('1s').join(','),
  ])('refuses %j', (text) => {
    expect(parseRetrySchedule(text)).toBeUndefined();
  });

  it('reads back what it is given, for any valid schedule', () => {
    const unit = fc.constantFrom(['ms', 1], ['s', s], ['m', min], ['h', h]);
    const value = unit.chain(([u, ms]) =>
      fc
        .integer({ min: 1, max: Math.floor(MAX_RETRY_DELAY_MS / (ms as number)) })
        .map((n) => [`${n}${u}`, n * (ms as number)] as const),
    );
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 50 }), (values) => {
        expect(parseRetrySchedule(values.map(([text]) => text).join(','))).toEqual(values.map(([, ms]) => ms));
      }),
    );
  });
});

describe('nextAttemptDelayMs', () => {
  const schedule = [5 * s, 5 * min, 30 * min];

  it('takes the n-th delay after the n-th failure', () => {
    const middle = () => 0.5;
    expect(nextAttemptDelayMs(schedule, 1, undefined, middle)).toBe(5 * s);
    expect(nextAttemptDelayMs(schedule, 2, undefined, middle)).toBe(5 * min);
    expect(nextAttemptDelayMs(schedule, 3, undefined, middle)).toBe(30 * min);
  });

  it('is undefined once the schedule is exhausted', () => {
    expect(nextAttemptDelayMs(schedule, 4, undefined, () => 0.5)).toBeUndefined();
    expect(nextAttemptDelayMs(schedule, 4, 10 * s, () => 0.5)).toBeUndefined();
    expect(nextAttemptDelayMs(DEFAULT_RETRY_SCHEDULE_MS, 8)).toBeUndefined();
    expect(nextAttemptDelayMs(DEFAULT_RETRY_SCHEDULE_MS, 7)).toBeDefined();
  });

  it('multiplies by a factor in [0.8, 1.2]', () => {
    expect(nextAttemptDelayMs(schedule, 1, undefined, () => 0)).toBe(4 * s);
    expect(nextAttemptDelayMs(schedule, 1, undefined, () => 0.999999999)).toBe(6 * s);
    expect(nextAttemptDelayMs(schedule, 1, undefined, () => 1)).toBe(6 * s);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), (n) => {
        const base = DEFAULT_RETRY_SCHEDULE_MS[n - 1] ?? 0;
        const delay = nextAttemptDelayMs(DEFAULT_RETRY_SCHEDULE_MS, n) ?? -1;
        expect(delay).toBeGreaterThanOrEqual(Math.round(base * 0.8));
        expect(delay).toBeLessThanOrEqual(Math.round(base * 1.2));
        expect(Number.isInteger(delay)).toBe(true);
      }),
    );
  });

  it('spreads the delays (default Math.random)', () => {
    const delays = new Set(Array.from({ length: 50 }, () => nextAttemptDelayMs([10 * h], 1)));
    expect(delays.size).toBeGreaterThan(10);
  });

  it('takes a Retry-After only when longer than the jittered delay', () => {
    expect(nextAttemptDelayMs(schedule, 1, 60 * s, () => 0.5)).toBe(60 * s);
    expect(nextAttemptDelayMs(schedule, 1, 5_500, () => 0.5)).toBe(5_500);
    expect(nextAttemptDelayMs(schedule, 1, 5_500, () => 1)).toBe(6 * s);
    expect(nextAttemptDelayMs(schedule, 2, 60 * s, () => 0.5)).toBe(5 * min);
    expect(nextAttemptDelayMs(schedule, 1, 0, () => 0.5)).toBe(5 * s);
    expect(nextAttemptDelayMs(schedule, 1, 48 * h, () => 0.5)).toBe(MAX_RETRY_DELAY_MS);
    expect(nextAttemptDelayMs(schedule, 1, Number.NaN, () => 0.5)).toBe(5 * s);
  });

  it.each([0, -1, 1.5, Number.NaN])('throws a TypeError for %s failed attempts', (n) => {
    expect(() => nextAttemptDelayMs(schedule, n)).toThrow(TypeError);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');

  it.each([
    ['120', 120 * s],
    [' 120 ', 120 * s],
    ['0', 0],
    ['86400', 24 * h],
    ['86401', 24 * h],
    ['999999999999999999999', 24 * h],
    ['Sun, 01 Mar 2026 12:00:30 GMT', 30 * s],
    ['Sun, 01 Mar 2026 13:00:00 GMT', h],
    ['Mon, 02 Mar 2026 12:00:00 GMT', 24 * h],
    ['Sat, 07 Mar 2026 12:00:00 GMT', 24 * h],
    ['Sunday, 01-Mar-26 12:01:00 GMT', min],
    ['Sun Mar  1 12:00:10 2026', 10 * s],
    ['Sun Mar 01 12:00:10 2026', 10 * s],
  ])('reads %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it('reads an HTTP-date to the millisecond from a now between seconds', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', new Date('2026-03-01T12:00:00.250Z'))).toBe(29_750);
  });

  it.each([
    undefined,
    '',
    ' ',
    '-1',
    '1.5',
    '+5',
    '1e3',
    '0x10',
    'soon',
    '120 seconds',
    'Sun, 01 Mar 2026 12:00:00 GMT', // now: not later
    'Sun, 01 Mar 2026 11:59:59 GMT', // past
    'Sat, 28 Feb 2026 12:00:00 GMT',
    'Sun, 01 Mar 2026 12:00:30 UTC',
    'Sun, 01 Mar 2026 12:00:30 +0000',
    '2026-03-01T12:00:30Z',
    'Sun, 1 Mar 2026 12:00:30 GMT',
    'Sun, 31 Feb 2026 12:00:30 GMT',
    'Sun, 01 Mar 2026 25:00:30 GMT',
    'Sun, 01 Foo 2026 12:00:30 GMT',
    'sun, 01 mar 2026 12:00:30 gmt',
  ])('is undefined for %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  it('reads back every IMF-fixdate Date#toUTCString writes, capped at 24 h', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 * 24 * 3600 }), (seconds) => {
        const at = new Date(now.getTime() + seconds * 1000).toUTCString();
        expect(parseRetryAfter(at, now)).toBe(Math.min(seconds * 1000, MAX_RETRY_DELAY_MS));
      }),
    );
  });
});
