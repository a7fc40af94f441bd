import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { ListCursorFromString, MAX_PLANT_ID, PlantId, PlantIdFromPath } from './plant-id.js';
import { decodeWith } from './report.js';

const decodeId = decodeWith(PlantId, 'id');
const decodePath = decodeWith(PlantIdFromPath, 'id');

describe('PlantId', () => {
  it.each([1, 2, 42, 2 ** 31, MAX_PLANT_ID])('accepts %d', (n) => {
    expect(decodeId(n)).toEqual(E.right(n));
  });

  it.each([
    [0, 'id: expected an integer from 1 to 9007199254740991, got 0'],
    [-1, 'id: expected an integer from 1 to 9007199254740991, got -1'],
    [1.5, 'id: expected an integer from 1 to 9007199254740991, got 1.5'],
    ['7', 'id: expected an integer from 1 to 9007199254740991, got a string "7"'],
    [2 ** 53, 'id: expected an integer from 1 to 9007199254740991, got 9007199254740992'],
    [JSON.parse('1e400') as number, 'id: expected an integer from 1 to 9007199254740991, got a number out of range'],
    [Number.NaN, 'id: expected an integer from 1 to 9007199254740991, got a number out of range'],
    [null, 'id: expected an integer from 1 to 9007199254740991, got null'],
    [true, 'id: expected an integer from 1 to 9007199254740991, got true'],
    [[1], 'id: expected an integer from 1 to 9007199254740991, got an array'],
  ])('rejects %j', (input, message) => {
    expect(decodeId(input)).toEqual(E.left({ _tag: 'InvalidPlant', problems: [message] }));
  });

  it('rejects a number beyond 2^53−1 as JSON delivers it (rounded up to 2^53)', () => {
    expect(E.isLeft(decodeId(JSON.parse('9007199254740993')))).toBe(true);
  });

  it('accepts exactly the safe integers ≥ 1', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double(), fc.maxSafeInteger()), (n) => {
        expect(PlantId.is(n)).toBe(Number.isSafeInteger(n) && n >= 1);
      }),
    );
  });
});

describe('PlantIdFromPath', () => {
  it.each([
    ['1', 1],
    ['7', 7],
    ['9007199254740991', MAX_PLANT_ID],
  ])('decodes %s', (segment, id) => {
    expect(decodePath(segment)).toEqual(E.right(id));
  });

  it.each([
    '0',
    '-1',
    '+1',
    '07',
    '1.5',
    '1e3',
    ' 1',
    '1 ',
    '0x10',
    '',
    'abc',
    '9007199254740992',
    '99999999999999999',
    '１',
  ])('rejects %j', (segment) => {
    expect(decodePath(segment)).toEqual(
      E.left({
        _tag: 'InvalidPlant',
        problems: [
          `id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string ${JSON.stringify(segment)}`,
        ],
      }),
    );
  });

  it('round-trips every id through its decimal text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_PLANT_ID }), (n) => {
        expect(decodePath(String(n))).toEqual(E.right(n));
        expect(PlantIdFromPath.encode(n as PlantId)).toBe(String(n));
      }),
    );
  });

  it('rejects any text with a leading zero', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^0[0-9]{1,15}$/), (s) => {
        expect(E.isLeft(decodePath(s))).toBe(true);
      }),
    );
  });
});

describe('ListCursorFromString', () => {
  it('accepts 0 and the id range', () => {
    expect(ListCursorFromString.decode('0')).toEqual(E.right(0));
    expect(ListCursorFromString.decode('9007199254740991')).toEqual(E.right(MAX_PLANT_ID));
  });

  it.each(['-1', '00', '01', '9007199254740992', '', '1.0'])('rejects %j', (s) => {
    expect(E.isLeft(ListCursorFromString.decode(s))).toBe(true);
  });
});
