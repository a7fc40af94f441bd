import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

const now = Date.UTC(2015, 9, 21, 7, 28, 0);

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 5 ', now)).toBe(5_000);
  });

  it('reads an IMF-fixdate relative to now', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
  });

  it('reads the obsolete RFC 850 and asctime forms', () => {
    expect(parseRetryAfter('Wednesday, 21-Oct-15 07:29:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed Oct 21 07:28:10 2015', now)).toBe(10_000);
  });

  it('treats a date in the past as 0', () => {
    expect(parseRetryAfter('Tue, 20 Oct 2015 07:28:00 GMT', now)).toBe(0);
  });

  it('rejects malformed values', () => {
    for (const value of [undefined, '', '-1', '1.5', '1e3', 'soon', '0x10', '2015-10-21T07:28:30Z', 'NaN']) {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    }
  });

  it('caps absurdly large delays at a safe integer', () => {
    expect(parseRetryAfter('9'.repeat(30), now)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
