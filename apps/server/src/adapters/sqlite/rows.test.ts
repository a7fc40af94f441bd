import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { plantFromRow, plantsFromRows, scopesToColumn, tokenFromRow, tokenRecordFromRow } from './rows.js';

const causeMessage = (result: E.Either<unknown, unknown>): string =>
  E.isLeft(result) ? String((result.left as { cause: Error }).cause.message) : 'Right';

describe('plantFromRow', () => {
  it('turns a NULL tag into an absent member', () => {
    const result = plantFromRow({ id: 1, name: 'Fern', tag: null });
    expect(result).toEqual({ _tag: 'Right', right: { id: 1, name: 'Fern' } });
    expect(E.isRight(result) && Object.hasOwn(result.right, 'tag')).toBe(false);
  });

  it('keeps a tag and the largest id', () => {
    expect(plantFromRow({ id: Number.MAX_SAFE_INTEGER, name: 'Fern', tag: 'green' })).toEqual({
      _tag: 'Right',
      right: { id: Number.MAX_SAFE_INTEGER, name: 'Fern', tag: 'green' },
    });
  });

  it('builds a fresh plant with only its members, whatever else the row holds', () => {
    const row = { id: 3, name: 'Fern', tag: null, rowid: 3 };
    const result = plantFromRow(row);
    expect(result).toEqual({ _tag: 'Right', right: { id: 3, name: 'Fern' } });
    expect(E.isRight(result) && result.right).not.toBe(row);
  });

  it.each([
    [undefined, /expected a row object/],
    [{ id: 0, name: 'Fern', tag: null }, /^a row of plants does not decode: id: /],
    [{ id: 1, name: '', tag: null }, /name: expected 1–200 characters/],
    [{ id: 1, name: 'Fern', tag: 5 }, /tag: expected a string, got 5/],
    [{ id: 1, name: 'Fern', tag: 'bad\u0000tag' }, /tag: expected no control characters/],
    [{ id: '1', name: 'Fern', tag: null }, /id: expected an integer/],
  ])('refuses %j as StoreUnavailable naming the field', (row, message) => {
    const result = plantFromRow(row);
    expect(result).toMatchObject({ _tag: 'Left', left: { _tag: 'StoreUnavailable' } });
    expect(causeMessage(result)).toMatch(message);
  });

  it('fails a page on its first bad row', () => {
    expect(
      plantsFromRows([
        { id: 1, name: 'a', tag: null },
        { id: 2, name: 'b', tag: 'x' },
      ]),
    ).toEqual({
      _tag: 'Right',
      right: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b', tag: 'x' },
      ],
    });
    expect(
      plantsFromRows([
        { id: 1, name: 'a', tag: null },
        { id: 2, name: '', tag: null },
      ])._tag,
    ).toBe('Left');
  });
});

describe('tokenFromRow', () => {
  const row = {
    id: 'tok_1',
    name: 'ci',
    scopes: 'plants:read plants:write',
    hash: Buffer.alloc(32, 7),
    created_at: 1_700_000_000_000,
    expires_at: null,
    revoked_at: 1_700_000_000_500,
  };

  it('decodes scopes, dates and the hash', () => {
    expect(tokenFromRow(row)).toEqual({
      _tag: 'Right',
      right: {
        id: 'tok_1',
        name: 'ci',
        scopes: ['plants:read', 'plants:write'],
        hash: Buffer.alloc(32, 7),
        createdAt: new Date(1_700_000_000_000),
        expiresAt: null,
        revokedAt: new Date(1_700_000_000_500),
      },
    });
    const record = tokenRecordFromRow(row);
    expect(E.isRight(record) && Object.hasOwn(record.right, 'hash')).toBe(false);
  });

  it('reads an empty scope column as no scopes, and writes it back the same', () => {
    expect(tokenFromRow({ ...row, scopes: '' })).toMatchObject({ _tag: 'Right', right: { scopes: [] } });
    expect(scopesToColumn([])).toBe('');
    expect(scopesToColumn(['plants:read', 'plants:write'])).toBe('plants:read plants:write');
  });

  it.each([
    [{ ...row, scopes: 'plants:read admin' }, /unknown scope/],
    [{ ...row, hash: 'not bytes' }, /expected a BLOB/],
    [{ ...row, created_at: 1.5 }, /created_at/],
    [{ ...row, name: null }, /name/],
  ])('refuses a bad row as StoreUnavailable', (bad, message) => {
    const result = tokenFromRow(bad);
    expect(result).toMatchObject({ _tag: 'Left', left: { _tag: 'StoreUnavailable' } });
    expect(causeMessage(result)).toMatch(message);
  });
});
