import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, fold } from './search.js';

// UTF-8 byte order is code-point order: compare the code points one by one.
const utf8Order = (a: string, b: string): number => {
  const [x, y] = [[...a].map((c) => c.codePointAt(0) ?? 0), [...b].map((c) => c.codePointAt(0) ?? 0)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return x.length - y.length;
};

describe('fold', () => {
  it.each([
    ['Boston Fern', 'boston fern'],
    ['FERNLEAF', 'fernleaf'],
    ['Sta\uFB00', 'staff'], // the ﬀ ligature is "ff" after NFKC
    ['\uFF26\uFF45\uFF52\uFF4E', 'fern'], // fullwidth
    ['\u2460', '1'], // circled digit one
    ['İstanbul', 'i\u0307stanbul'], // locale-independent: no Turkish dotless rules
    ['ΣΊΣΥΦΟΣ', 'σίσυφος'], // final sigma by ECMAScript's context rule
    ['e\u0301', '\u00e9'], // composed by NFKC
  ])('folds %j to %j', (input, folded) => {
    expect(fold(input)).toBe(folded);
  });

  it('is idempotent', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (s) => fold(fold(s)) === fold(s)));
  });
});

describe('compareCodePoints', () => {
  it('orders by code point where UTF-16 order differs', () => {
    expect(compareCodePoints('\u{1F33F}', '\uFFFD')).toBeGreaterThan(0);
    expect('\u{1F33F}' < '\uFFFD').toBe(true);
    expect(compareCodePoints('a', 'ab')).toBeLessThan(0);
    expect(compareCodePoints('ab', 'ab')).toBe(0);
  });

  it('agrees with UTF-8 byte order on any well-formed strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(utf8Order(a, b)));
      }),
      { numRuns: 2000 },
    );
  });
});
