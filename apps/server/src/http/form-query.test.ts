import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFormQuery } from './form-query.js';

describe('parseFormQuery', () => {
  it('decodes what URLSearchParams encodes, for any well-formed text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: 'grapheme', minLength: 1 }), fc.string({ unit: 'grapheme' })), {
          maxLength: 4,
        }),
        (pairs) => {
          const raw = new URLSearchParams(pairs).toString();
          const parsed = parseFormQuery(raw);
          // Without a prototype, like the parser's: `constructor` or `__proto__` is a name like any other.
          const expected = Object.create(null) as Record<string, string | string[]>;
          for (const [name, value] of pairs) {
            const seen = expected[name];
            expected[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
          }
          expect(parsed).toEqual({ _tag: 'Right', right: expected });
        },
      ),
    );
  });

  it('reads + as a space and %2B as a plus, and raw UTF-8 bytes of the request line', () => {
    expect(parseFormQuery('tag=a+b%2Bc')).toEqual({ _tag: 'Right', right: { tag: 'a b+c' } });
    expect(parseFormQuery(`tag=${Buffer.from('é', 'utf8').toString('latin1')}`)).toEqual({
      _tag: 'Right',
      right: { tag: 'é' },
    });
    expect(parseFormQuery('a=1&&b=')).toEqual({ _tag: 'Right', right: { a: '1', b: '' } });
    expect(parseFormQuery('constructor=1&__proto__=2&toString=3')).toEqual({
      _tag: 'Right',
      right: { constructor: '1', ['__proto__']: '2', toString: '3' },
    });
  });

  it.each([
    ['tag', 'tag: expected tag=<value>, got the name alone'],
    ['tag=%G0', 'tag: invalid percent-encoding'],
    ['tag=%e9', 'tag: not valid UTF-8 once decoded'],
    ['%zz=1', 'query parameter name: invalid percent-encoding'],
  ])('refuses %j', (raw, problem) => {
    expect(parseFormQuery(raw)).toEqual({ _tag: 'Left', left: { _tag: 'InvalidPlant', problems: [problem] } });
  });
});
