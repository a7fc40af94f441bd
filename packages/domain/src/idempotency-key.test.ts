import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { IdempotencyKey, parseIdempotencyKeyField } from './idempotency-key.js';

const keyChar = fc.constantFrom(...'ABCXYZabcxyz0189._:~+/=-');
const key = fc.string({ unit: keyChar, minLength: 1, maxLength: 255 });

describe('parseIdempotencyKeyField', () => {
  it('reads a key bare and as an RFC 8941 string alike', () => {
    fc.assert(
      fc.property(key, (k) => {
        expect(parseIdempotencyKeyField(k)).toBe(k);
        expect(parseIdempotencyKeyField(`"${k}"`)).toBe(k);
      }),
    );
  });

  it.each([
    ['empty', ''],
    ['empty string item', '""'],
    ['a space', 'a b'],
    ['an escape', '"a\\"b"'],
    ['a parameter', 'abc;x=1'],
    ['a list', '"a", "b"'],
    ['one quote', '"abc'],
    ['a token with a character outside the set', 'abc*'],
    ['256 characters', 'k'.repeat(256)],
    ['256 characters quoted', `"${'k'.repeat(256)}"`],
    ['non-ASCII', 'clé'],
  ])('refuses %s', (_, value) => {
    expect(parseIdempotencyKeyField(value)).toBeUndefined();
  });

  it('takes 255 characters, quoted or not', () => {
    expect(parseIdempotencyKeyField('k'.repeat(255))).toBe('k'.repeat(255));
    expect(parseIdempotencyKeyField(`"${'k'.repeat(255)}"`)).toBe('k'.repeat(255));
  });
});

describe('IdempotencyKey', () => {
  it('names the rule when a key is malformed', () => {
    const decoded = IdempotencyKey.decode('a b');
    expect(E.isLeft(decoded)).toBe(true);
  });
});
