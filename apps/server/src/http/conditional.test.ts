import { ENTITY_TAG_LIST_PATTERN } from '@plant-store/domain';
import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { etagOf } from '../wire/etag.js';
import { parseEntityTags, readConditions } from './conditional.js';

const withHeaders = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('etagOf', () => {
  it('is the version in base 36, quoted, and read back by readConditions', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (version) => {
        const etag = etagOf(version);
        expect(etag).toMatch(/^"[0-9a-z]{1,11}"$/);
        expect(readConditions(withHeaders({ 'if-match': etag }))).toEqual({
          _tag: 'Right',
          right: { ifMatch: [version] },
        });
      }),
    );
  });
});

describe('parseEntityTags', () => {
  it.each([
    ['*', 'any'],
    [' * ', 'any'],
    ['"a"', [{ weak: false, opaque: '"a"' }]],
    [
      'W/"a", "b"',
      [
        { weak: true, opaque: '"a"' },
        { weak: false, opaque: '"b"' },
      ],
    ],
    [', ,"a",, ', [{ weak: false, opaque: '"a"' }]],
    ['""', [{ weak: false, opaque: '""' }]],
  ])('reads %j', (value, expected) => {
    expect(parseEntityTags(value)).toEqual(expected);
  });

  it.each([[''], [','], ['a'], ['"a'], ['"a" "b"'], ['*, "a"'], ['w/"a"'], ['W/ "a"'], ['"a b"'], ['"a""b"']])(
    'refuses %j',
    (value) => {
      expect(parseEntityTags(value)).toBeUndefined();
    },
  );

  // The served document's pattern for If-Match / If-None-Match admits exactly what is parsed.
  it('agrees with the pattern the OpenAPI document gives', () => {
    const pattern = new RegExp(ENTITY_TAG_LIST_PATTERN, 'u');
    const piece = fc.constantFrom('"', 'W/', 'w/', '*', ',', ' ', '\t', 'a', '1', '\\', '\u00e9', '!', '#', '\u0100');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
        (value) => {
          expect(parseEntityTags(value) !== undefined).toBe(pattern.test(value));
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('readConditions', () => {
  it('compares If-Match strongly (weak tags never match) and If-None-Match weakly', () => {
    const etag = etagOf(42);
    expect(readConditions(withHeaders({ 'if-match': `W/${etag}`, 'if-none-match': `W/${etag}` }))).toEqual({
      _tag: 'Right',
      right: { ifMatch: [], ifNoneMatch: [42] },
    });
  });

  it('leaves out tags that name no version of ours, and keeps * as any', () => {
    expect(
      readConditions(withHeaders({ 'if-match': '"ZZ", "007", "-1", "zzzzzzzzzzzz", "1"', 'if-none-match': '*' })),
    ).toEqual({
      _tag: 'Right',
      right: { ifMatch: [1], ifNoneMatch: 'any' },
    });
  });

  it('names the malformed header in a 400', () => {
    expect(readConditions(withHeaders({ 'if-none-match': 'abc' }))).toMatchObject({
      _tag: 'Left',
      left: { _tag: 'MalformedRequest', reason: expect.stringMatching(/^If-None-Match must be/) },
    });
  });
});
