import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { CreatePlantsRequest, CreatePlantsResponse, MAX_BATCH_PLANTS } from './plant-batch.js';
import { decodeWith } from './report.js';

const decode = decodeWith(CreatePlantsRequest);
const invalid = (...problems: string[]) => E.left({ _tag: 'InvalidPlant', problems });

describe('CreatePlantsRequest', () => {
  it('decodes 1 and 1000 plants, each by the create rules, in order', () => {
    expect(decode([{ name: 'Fern' }])).toEqual(E.right([{ name: 'Fern' }]));
    const many = Array.from({ length: MAX_BATCH_PLANTS }, (_, i) => ({ id: i + 1, name: `p${i}`, tag: 't' }));
    expect(decode(many)).toEqual(E.right(many));
  });

  it.each([
    [{ name: 'Fern' }, 'expected a JSON array of 1 to 1000 plants, got an object'],
    [null, 'expected a JSON array of 1 to 1000 plants, got null'],
    ['x', 'expected a JSON array of 1 to 1000 plants, got a string "x"'],
    [[], 'expected a JSON array of 1 to 1000 plants, got none'],
  ])('refuses %j as a whole', (body, message) => {
    expect(decode(body)).toEqual(invalid(message));
  });

  it('refuses more than 1000 plants', () => {
    const many = Array.from({ length: MAX_BATCH_PLANTS + 1 }, () => ({ name: 'p' }));
    expect(decode(many)).toEqual(invalid('expected at most 1000 plants, got 1001'));
  });

  it('names only the first invalid element, counted from 0, with every failing field of it', () => {
    expect(decode([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: '', tag: 7 }, { name: 3 }])).toEqual(
      invalid('[3].name: expected 1–200 characters, got 0', '[3].tag: expected a string, got 7'),
    );
    expect(decode([{ name: 'a' }, 5])).toEqual(invalid('[1]: expected a JSON object, got 5'));
    expect(decode([{ name: 'a', colour: 'red' }])).toEqual(
      invalid('[0].colour: unknown member (allowed: name, tag, id)'),
    );
    expect(decode([{ name: 'a', id: 0 }])).toEqual(
      invalid('[0].id: expected an integer from 1 to 9007199254740991, got 0'),
    );
  });

  it('leaves repeated ids to the server', () => {
    expect(
      decode([
        { id: 7, name: 'a' },
        { id: 7, name: 'b' },
      ]),
    ).toEqual(
      E.right([
        { id: 7, name: 'a' },
        { id: 7, name: 'b' },
      ]),
    );
  });

  it('encodes each plant as the create codec does', () => {
    expect(CreatePlantsRequest.encode([{ name: 'a', id: 2 } as never])).toEqual([{ name: 'a', id: 2 }]);
  });
});

describe('CreatePlantsResponse', () => {
  it('decodes the created plants, ids included', () => {
    expect(
      CreatePlantsResponse.decode([
        { id: 1, name: 'a' },
        { id: 2, name: 'b', tag: 't' },
      ]),
    ).toEqual(
      E.right([
        { id: 1, name: 'a' },
        { id: 2, name: 'b', tag: 't' },
      ]),
    );
    expect(E.isLeft(CreatePlantsResponse.decode([{ name: 'a' }]))).toBe(true);
  });
});
