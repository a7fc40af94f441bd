import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { uuidV7 } from './uuid-v7.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidV7', () => {
  it('is an RFC 9562 version 7 UUID carrying the time in its first 48 bits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), (now) => {
        const id = uuidV7(now);
        expect(id).toMatch(V7);
        expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(now);
      }),
    );
  });

  it('sorts by time as a string', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 2 }), fc.integer({ min: 1, max: 10_000 }), (t, dt) => {
        expect(uuidV7(t) < uuidV7(Math.min(2 ** 48 - 1, t + dt))).toBe(true);
      }),
    );
  });

  it('differs between two calls in one millisecond', () => {
    const now = Date.now();
    expect(uuidV7(now)).not.toBe(uuidV7(now));
  });
});
