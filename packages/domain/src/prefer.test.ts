import { describe, expect, it } from 'vitest';
import { hasPreference } from './prefer.js';

describe('hasPreference', () => {
  it.each([
    ['count=exact', true],
    ['COUNT=exact', true],
    [' count = "exact" ', true],
    ['return=minimal, count=exact', true],
    ['count=exact; foo=bar', true],
    [['respond-async', 'count=exact'], true],
    ['count=planned', false],
    ['count=EXACT', false],
    ['count', false],
    ['respond-async, wait=10', false],
    ['', false],
    [undefined, false],
  ] as const)('%j → %s', (header, expected) => {
    expect(hasPreference(header, 'count', 'exact')).toBe(expected);
  });
});
