import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { PlantId } from '@plant-store/domain';
import {
  countFromRow,
  countFromTextRow,
  decodeEach,
  rowProblem,
  savedCreateDecoder,
  tokenRowDecoders,
  VersionFromNumber,
} from './store-rows.js';

const causeMessage = (result: E.Either<unknown, unknown>): string =>
  E.isLeft(result) ? String((result.left as { cause: Error }).cause.message) : 'Right';

describe('countFromRow', () => {
  it('reads a count', () => {
    expect(countFromRow({ n: 3 })).toEqual({ _tag: 'Right', right: 3 });
    expect(countFromRow({ n: 0 })).toEqual({ _tag: 'Right', right: 0 });
  });

  it.each([[{ n: '3' }], [{ n: 1.5 }], [undefined]])(
    'refuses %j as StoreUnavailable about a count, not a table',
    (row) => {
      const result = countFromRow(row);
      expect(result).toMatchObject({ _tag: 'Left', left: { _tag: 'StoreUnavailable' } });
      expect(causeMessage(result)).toMatch(/^a count does not decode: /);
    },
  );
});

describe('countFromTextRow', () => {
  it('reads a count as int8 text', () => {
    expect(countFromTextRow({ n: '0' })).toEqual(E.right(0));
    expect(countFromTextRow({ n: '9007199254740991' })).toEqual(E.right(Number.MAX_SAFE_INTEGER));
  });

  // Number() made 0 of the first two, and a count of the next three.
  it.each([[{ n: null }], [{ n: '' }], [{ n: '012' }], [{ n: ' 3' }], [{ n: 3 }], [{ n: '9007199254740992' }]])(
    'refuses %j',
    (row) => expect(causeMessage(countFromTextRow(row))).toMatch(/^a count does not decode: n: /),
  );
});

describe('decodeEach', () => {
  const even = (row: unknown) =>
    typeof row === 'number' && row % 2 === 0
      ? E.right(row)
      : E.left(rowProblem('numbers', [{ value: row, context: [], message: `odd ${String(row)}` }]));

  it('decodes every row, in order, or fails on the first bad one', () => {
    expect(decodeEach(even)([4, 2, 0])).toEqual({ _tag: 'Right', right: [4, 2, 0] });
    expect(decodeEach(even)([])).toEqual({ _tag: 'Right', right: [] });
    const failed = decodeEach(even)([2, 3, 5]);
    expect(causeMessage(failed)).toBe('a row of numbers does not decode: odd 3');
  });
});

describe('tokenRowDecoders', () => {
  const instanceOf = <A>(ctor: abstract new (...args: never[]) => A) =>
    new t.Type<A, A, unknown>(
      ctor.name,
      (u): u is A => u instanceof ctor,
      (u, c) => (u instanceof ctor ? t.success(u) : t.failure(u, c)),
      t.identity,
    );
  // An adapter's column codec already yields Dates and scope arrays; the shared part renames.
  const Columns = t.type({
    id: t.string,
    name: t.string,
    scopes: t.readonlyArray(t.literal('plants:read')),
    hash: instanceOf(Uint8Array),
    created_at: instanceOf(Date),
    expires_at: t.null,
    revoked_at: t.null,
  });
  const { tokenFromRow, tokenRecordFromRow } = tokenRowDecoders(Columns);
  const row = {
    id: 'tok_1',
    name: 'ci',
    scopes: ['plants:read'],
    hash: new Uint8Array([1, 2]),
    created_at: new Date(5),
    expires_at: null,
    revoked_at: null,
  };

  it('turns decoded columns into a record, with or without the hash', () => {
    const record = {
      id: 'tok_1',
      name: 'ci',
      scopes: ['plants:read'],
      createdAt: new Date(5),
      expiresAt: null,
      revokedAt: null,
    };
    expect(tokenFromRow(row)).toEqual({ _tag: 'Right', right: { ...record, hash: new Uint8Array([1, 2]) } });
    const listed = tokenRecordFromRow(row);
    expect(listed).toEqual({ _tag: 'Right', right: record });
    expect(E.isRight(listed) && Object.hasOwn(listed.right, 'hash')).toBe(false);
  });

  it('labels a row that does not decode as a tokens row', () => {
    const result = tokenFromRow({ ...row, name: 7 });
    expect(result).toMatchObject({ _tag: 'Left', left: { _tag: 'StoreUnavailable' } });
    expect(causeMessage(result)).toMatch(/^a row of tokens does not decode: .*name/);
  });
});

describe('savedCreateDecoder', () => {
  const decodeSaved = savedCreateDecoder(PlantId, VersionFromNumber);
  const canonical = '[3,"Fern","green"]';

  it.each([
    ['as an encoded object', '{"id":3,"name":"Fern","tag":"green"}'],
    ['in the earlier form', canonical],
  ])('replays a 201 saved %s as its plant, its request in the canonical form', (_form, request) => {
    expect(decodeSaved({ request, status: 201, plant_id: 3, version: 4 })).toEqual(
      E.right({ request: canonical, result: E.right({ plant: { id: 3, name: 'Fern', tag: 'green' }, version: 4 }) }),
    );
  });

  it('takes the plant id from the row, not from the request', () => {
    const saved = decodeSaved({ request: '{"name":"Ivy"}', status: 201, plant_id: 8, version: 1 });
    expect(saved).toEqual(
      E.right({ request: '[null,"Ivy",null]', result: E.right({ plant: { id: 8, name: 'Ivy' }, version: 1 }) }),
    );
  });

  it('keeps a 409 as the IdTaken of its id', () => {
    const saved = decodeSaved({ request: '{"id":5,"name":"Moss"}', status: 409, plant_id: 5, version: null });
    expect(saved).toMatchObject(
      E.right({ request: '[5,"Moss",null]', result: { _tag: 'Left', left: { _tag: 'IdTaken' } } }),
    );
  });

  it('refuses a request that is not a create', () => {
    expect(decodeSaved({ request: '{"name":""}', status: 201, plant_id: 3, version: 4 })).toMatchObject({
      _tag: 'Left',
      left: { _tag: 'StoreUnavailable' },
    });
  });
});
