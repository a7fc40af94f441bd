import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { describePlantError, idTaken, invalidPlant, plantNotFound } from './plant-error.js';
import type { PlantId } from './plant-id.js';
import { decodeWith } from './report.js';
import { ErrorBody, ListQuery } from './wire.js';

const decodeQuery = decodeWith(ListQuery);
const invalid = (...problems: string[]) => E.left({ _tag: 'InvalidPlant', problems });

describe('ListQuery', () => {
  it('defaults to the first 100', () => {
    expect(decodeQuery({})).toEqual(E.right({ limit: 100, after: 0, sort: 'id' }));
  });

  it('decodes a tag exactly as given, and refuses one that breaks the tag rules', () => {
    expect(decodeQuery({ tag: 'living room + é' })).toEqual(
      E.right({ limit: 100, after: 0, sort: 'id', tag: 'living room + é' }),
    );
    expect(decodeQuery({ tag: '' })).toEqual(invalid('tag: expected 1–100 characters, got 0'));
    expect(decodeQuery({ tag: ['a', 'b'] })).toEqual(
      invalid('tag: expected a single value, got the parameter repeated'),
    );
    expect(ListQuery.encode({ limit: 5, after: 2, sort: 'id', tag: 'x' } as ListQuery)).toEqual({
      limit: '5',
      after: '2',
      tag: 'x',
    });
  });

  it('decodes limit and after at their bounds', () => {
    expect(decodeQuery({ limit: '1', after: '0' })).toEqual(E.right({ limit: 1, after: 0, sort: 'id' }));
    expect(decodeQuery({ limit: '1000', after: '9007199254740991' })).toEqual(
      E.right({ limit: 1000, after: 9007199254740991, sort: 'id' }),
    );
  });

  it.each([
    [{ limit: '0' }, 'limit: expected an integer from 1 to 1000, got a string "0"'],
    [{ limit: '1001' }, 'limit: expected an integer from 1 to 1000, got a string "1001"'],
    [{ limit: '' }, 'limit: expected an integer from 1 to 1000, got a string ""'],
    [{ limit: '010' }, 'limit: expected an integer from 1 to 1000, got a string "010"'],
    [{ limit: '1.5' }, 'limit: expected an integer from 1 to 1000, got a string "1.5"'],
    [{ limit: '-5' }, 'limit: expected an integer from 1 to 1000, got a string "-5"'],
    [
      { after: '-1' },
      'after: expected decimal digits without sign or leading zero, from 0 to 9007199254740991, got a string "-1"',
    ],
    [
      { after: '9007199254740992' },
      'after: expected decimal digits without sign or leading zero, from 0 to 9007199254740991, got a string "9007199254740992"',
    ],
    [
      { after: 'abc' },
      'after: expected decimal digits without sign or leading zero, from 0 to 9007199254740991, got a string "abc"',
    ],
    [{ limit: ['1', '2'] }, 'limit: expected a single value, got the parameter repeated'],
    [{ sort: 'Name' }, 'sort: expected one of id, -id, name, -name, got a string "Name"'],
    [{ sort: '' }, 'sort: expected one of id, -id, name, -name, got a string ""'],
    [{ sort: ['id', 'id'] }, 'sort: expected a single value, got the parameter repeated'],
    [{ q: '' }, 'q: expected 1–100 characters, got 0'],
    [{ q: ' \u3000' }, 'q: expected at least one non-whitespace character, got only whitespace'],
    [{ q: 'x'.repeat(101) }, 'q: expected 1–100 characters, got 101'],
    [{ q: 'a\u0000' }, 'q: expected no control characters, got U+0000 at character 2'],
    [{ q: ['a', 'b'] }, 'q: expected a single value, got the parameter repeated'],
    [
      { sort: 'name', cursor: '' },
      'cursor: expected the cursor of a previous page\'s Link (1–2048 characters from A–Z a–z 0–9 - . _ ~), got a string ""',
    ],
    [{ sort: 'name', cursor: ['a', 'a'] }, 'cursor: expected a single value, got the parameter repeated'],
    [
      { sort: 'name', cursor: 'a/b' },
      'cursor: expected the cursor of a previous page\'s Link (1–2048 characters from A–Z a–z 0–9 - . _ ~), got a string "a/b"',
    ],
    [
      { sort: 'name', after: '3' },
      "after: not with sort=name (a name order continues with the cursor of the previous page's Link)",
    ],
    [{ sort: '-id', cursor: 'abc' }, 'cursor: not with sort=-id (an id order continues with after)'],
    [{ cursor: 'abc' }, 'cursor: not with sort=id (an id order continues with after)'],
    [{ __proto__: 'x' } as unknown as object, undefined],
  ])('rejects %j', (query, message) => {
    const result = decodeQuery(query);
    if (message === undefined) {
      // an object literal's __proto__ sets the prototype; nothing own arrives, so the defaults hold
      expect(result).toEqual(E.right({ limit: 100, after: 0, sort: 'id' }));
    } else {
      expect(result).toEqual(invalid(message));
    }
  });

  it('rejects an own __proto__ parameter by name', () => {
    const query = JSON.parse('{"__proto__":"1"}') as object;
    expect(decodeQuery(query)).toEqual(
      invalid('__proto__: unknown query parameter (allowed: limit, after, tag, q, sort, cursor)'),
    );
  });

  it('cuts long parameter names and counts unknown parameters past ten', () => {
    expect(decodeQuery({ ['q'.repeat(300)]: '1' })).toEqual(
      invalid(`${'q'.repeat(64)}…: unknown query parameter (allowed: limit, after, tag, q, sort, cursor)`),
    );
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, '1']));
    const result = decodeQuery(many);
    expect(E.isLeft(result) && result.left.problems.at(-1)).toBe('and 2 more unknown query parameters');
    expect(E.isLeft(result) && result.left.problems).toHaveLength(11);
  });

  it('names every failing parameter', () => {
    expect(decodeQuery({ limit: '0', after: 'x' })).toEqual(
      invalid(
        'limit: expected an integer from 1 to 1000, got a string "0"',
        'after: expected decimal digits without sign or leading zero, from 0 to 9007199254740991, got a string "x"',
      ),
    );
  });

  it('decodes q, sort and cursor, and the name orders without after', () => {
    expect(decodeQuery({ q: 'fern', sort: '-id', after: '7' })).toEqual(
      E.right({ limit: 100, after: 7, sort: '-id', q: 'fern' }),
    );
    expect(decodeQuery({ sort: '-name', cursor: 'a-b_c.d~e' })).toEqual(
      E.right({ limit: 100, after: 0, sort: '-name', cursor: 'a-b_c.d~e' }),
    );
    expect(decodeQuery({ sort: 'name', cursor: 'x'.repeat(2048) })).toSatisfy(E.isRight);
    expect(decodeQuery({ sort: 'name', cursor: 'x'.repeat(2049) })).toSatisfy(E.isLeft);
    // a bad sort is reported alone, not with the pairing rules it would have implied
    expect(decodeQuery({ sort: 'nam', after: '1', cursor: 'c' })).toEqual(
      invalid('sort: expected one of id, -id, name, -name, got a string "nam"'),
    );
  });

  it('encodes back to query-string text', () => {
    const decoded = decodeQuery({ limit: '5', after: '10' });
    expect(E.isRight(decoded) && ListQuery.encode(decoded.right)).toEqual({ limit: '5', after: '10' });
    const named = decodeQuery({ sort: '-name', q: 'a b', tag: 't', cursor: 'c' });
    expect(E.isRight(named) && ListQuery.encode(named.right)).toEqual({
      limit: '100',
      sort: '-name',
      q: 'a b',
      tag: 't',
      cursor: 'c',
    });
  });
});

describe('ErrorBody', () => {
  it('decodes the contract’s error body', () => {
    expect(ErrorBody.decode({ error: 404, message: 'no plant with id 7' })).toEqual(
      E.right({ error: 404, message: 'no plant with id 7' }),
    );
  });

  it.each([
    { error: '404', message: 'x' },
    { error: 404 },
    { error: 99, message: 'x' },
    { error: 404.5, message: 'x' },
    null,
  ])('rejects %j', (body) => {
    expect(E.isLeft(ErrorBody.decode(body))).toBe(true);
  });
});

describe('describePlantError', () => {
  it('gives each tag its message', () => {
    expect(describePlantError(invalidPlant(['name: required', 'extra: unknown member']))).toBe(
      'name: required; extra: unknown member',
    );
    expect(describePlantError(plantNotFound(7 as PlantId))).toBe('no plant with id 7');
    expect(describePlantError(idTaken(7 as PlantId))).toBe('a plant with id 7 already exists');
  });
});
