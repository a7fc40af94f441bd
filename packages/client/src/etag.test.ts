import { formatErrors } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ETagCondition } from './etag.js';

describe('ETagCondition', () => {
  it.each(['"1k3"', '""', 'W/"1k3"', '*', '"a", W/"b"', '"a",W/"b"\t, "c"', '"x!#~"', '"\u00e9"'])(
    'accepts %s unchanged',
    (value) => {
      expect(ETagCondition.decode(value)).toEqual(E.right(value));
    },
  );

  it.each([
    ['a bare value (quotes eaten by a shell)', '1k3'],
    ['empty', ''],
    ['a lower-case weak prefix', 'w/"1k3"'],
    ['a quote inside', '"a"b"'],
    ['a space inside', '"a b"'],
    ['a line break', '"a"\r\nX-Injected: 1'],
    ['a trailing comma', '"a",'],
    ['* in a list', '*, "a"'],
    ['a character beyond Latin-1', '"\u0101"'],
  ])('rejects %s, saying what an ETag looks like', (_, value) => {
    const decoded = ETagCondition.decode(value);
    expect(E.isLeft(decoded) && formatErrors(decoded.left, 'ifMatch')).toEqual([
      expect.stringMatching(
        /^ifMatch: expected an ETag as the server sent it, in double quotes \(such as "1k3" or W\/"1k3"\)/,
      ),
    ]);
  });

  it('rejects what is not a string', () => {
    expect(E.isLeft(ETagCondition.decode(7))).toBe(true);
    expect(E.isLeft(ETagCondition.decode(undefined))).toBe(true);
  });

  it('accepts every quoted run of etagc characters', () => {
    const etagc = fc.oneof(
      fc.integer({ min: 0x21, max: 0x21 }),
      fc.integer({ min: 0x23, max: 0x7e }),
      fc.integer({ min: 0x80, max: 0xff }),
    );
    const tag = fc
      .tuple(fc.boolean(), fc.array(etagc, { maxLength: 20 }))
      .map(([weak, codes]) => `${weak ? 'W/' : ''}"${String.fromCharCode(...codes)}"`);
    fc.assert(
      fc.property(fc.array(tag, { minLength: 1, maxLength: 4 }), (tags) => {
        expect(ETagCondition.is(tags.join(', '))).toBe(true);
      }),
    );
  });
});
