import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { Change, changeBody, ChangePositionFromString, ChangesQuery } from './change.js';
import { formatErrors } from './report.js';

const problems = (result: E.Either<t.Errors, unknown>): readonly string[] =>
  E.isLeft(result) ? formatErrors(result.left) : [];

describe('Change', () => {
  it('decodes each type and writes it back in wire order, unknown members dropped', () => {
    const created = {
      etag: '"3"',
      data: { tag: 'fern', name: 'Boston', id: 7 },
      timestamp: '2026-11-24T10:00:00.123Z',
      type: 'plant.created',
      seq: 12,
      extra: true,
    };
    const decoded = Change.decode(created);
    expect(E.isRight(decoded)).toBe(true);
    if (E.isRight(decoded))
      expect(changeBody(decoded.right)).toBe(
        '{"seq":12,"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7,"name":"Boston","tag":"fern"},"etag":"\\"3\\""}',
      );
    const deleted = Change.decode({
      seq: 13,
      type: 'plant.deleted',
      timestamp: '2026-11-24T10:00:01.000Z',
      data: { id: 7 },
    });
    expect(E.isRight(deleted)).toBe(true);
    const left = Change.decode({
      seq: 14,
      type: 'plant.left',
      timestamp: '2026-11-24T10:00:02.000Z',
      data: { id: 8, name: 'dropped' },
    });
    expect(left).toEqual(
      E.right({ seq: 14, type: 'plant.left', timestamp: '2026-11-24T10:00:02.000Z', data: { id: 8 } }),
    );
    if (E.isRight(left))
      expect(changeBody(left.right)).toBe(
        '{"seq":14,"type":"plant.left","timestamp":"2026-11-24T10:00:02.000Z","data":{"id":8}}',
      );
  });

  it('names what is wrong', () => {
    expect(problems(Change.decode({ seq: 1, type: 'plant.moved' }))).toEqual([
      'type: expected one of plant.created, plant.updated, plant.deleted, plant.left, got a string "plant.moved"',
    ]);
    expect(
      problems(
        Change.decode({ seq: 0, type: 'plant.deleted', timestamp: '2026-11-24T10:00:01.000Z', data: { id: 7 } }),
      ),
    ).toHaveLength(1);
    expect(
      problems(
        Change.decode({
          seq: 1,
          type: 'plant.updated',
          timestamp: '2026-11-24T10:00:01.000Z',
          data: { id: 7, name: 'a' },
        }),
      ),
    ).toEqual([expect.stringMatching(/^etag: /)]);
  });
});

describe('ChangesQuery', () => {
  it('takes since, tag, limit and wait, with limit 100 by default', () => {
    expect(ChangesQuery.decode({})).toEqual(E.right({ limit: 100 }));
    expect(ChangesQuery.decode({ since: '0', limit: '1000', wait: '30', tag: 'a b 🌵' })).toEqual(
      E.right({ since: 0, tag: 'a b 🌵', limit: 1000, wait: 30 }),
    );
    expect(ChangesQuery.encode({ since: 3 as never, tag: 'x' as never, limit: 7 as never })).toEqual({
      since: '3',
      tag: 'x',
      limit: '7',
    });
  });

  it('refuses bad values, repeats and strangers by name', () => {
    expect(problems(ChangesQuery.decode({ since: '-1', wait: '31', limit: '0', sort: 'id', tag: ['a', 'b'] }))).toEqual(
      [
        expect.stringMatching(/^since: expected decimal digits/),
        expect.stringMatching(/^wait: expected whole seconds from 1 to 30/),
        expect.stringMatching(/^limit: expected an integer from 1 to 1000/),
        expect.stringMatching(/^sort: unknown query parameter \(allowed: since, tag, limit, wait\)/),
        'tag: expected a single value, got the parameter repeated',
      ],
    );
    // The list's tag rules: an empty tag, or one past the length limit, is refused.
    expect(problems(ChangesQuery.decode({ tag: '' }))).toEqual([expect.stringMatching(/^tag: /)]);
    expect(problems(ChangesQuery.decode({ tag: 'x'.repeat(101) }))).toEqual([expect.stringMatching(/^tag: /)]);
    expect(problems(ChangesQuery.decode({ since: ['1', '2'] }))).toEqual([
      'since: expected a single value, got the parameter repeated',
    ]);
  });

  it('reads a position as canonical decimal digits up to 2^53−1', () => {
    for (const bad of ['', '01', '+1', '1.0', '9007199254740992', ' 1'])
      expect(E.isLeft(ChangePositionFromString.decode(bad)), bad).toBe(true);
    expect(ChangePositionFromString.decode('9007199254740991')).toEqual(E.right(9007199254740991));
  });
});
