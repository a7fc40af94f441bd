import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  CreatePlantRequest,
  CreatePlantResponse,
  Plant,
  PlantName,
  PlantPage,
  plantOfRow,
  PlantTag,
  ReplacePlantRequest,
  UpdatePlantRequest,
} from './plant.js';
import { decodeWith } from './report.js';
import { withoutNulls } from './without-nulls.js';

const invalid = (...problems: string[]) => E.left({ _tag: 'InvalidPlant', problems });
const decodeName = decodeWith(PlantName, 'name');
const decodeTag = decodeWith(PlantTag, 'tag');
const decodeRequest = decodeWith(CreatePlantRequest);

const astral = '🌵'; // U+1F335: one code point, two UTF-16 units

describe('PlantName', () => {
  it.each([
    ['a'],
    ['Monstera deliciosa'],
    ['  padded  '],
    ['a'.repeat(200)],
    [astral.repeat(200)],
    ['Ficus\u00a0lyrata'],
    ['名前'],
    ['e\u0301'],
  ])('accepts %j exactly as sent', (name) => {
    expect(decodeName(name)).toEqual(E.right(name));
  });

  it('counts length in code points, not UTF-16 units', () => {
    expect(decodeName(astral.repeat(200))).toEqual(E.right(astral.repeat(200)));
    expect(decodeName(astral.repeat(201))).toEqual(invalid('name: expected 1–200 characters, got 201'));
    expect(decodeName('a'.repeat(201))).toEqual(invalid('name: expected 1–200 characters, got 201'));
  });

  it.each([
    ['', 'name: expected 1–200 characters, got 0'],
    [' ', 'name: expected at least one non-whitespace character, got only whitespace'],
    ['\u2003\u00a0', 'name: expected at least one non-whitespace character, got only whitespace'],
    ['a\u0000b', 'name: expected no control characters, got U+0000 at character 2'],
    ['tab\there', 'name: expected no control characters, got U+0009 at character 4'],
    ['line\n', 'name: expected no control characters, got U+000A at character 5'],
    ['\u001f', 'name: expected no control characters, got U+001F at character 1'],
    ['del\u007f', 'name: expected no control characters, got U+007F at character 4'],
    [`${astral}\ud800`, 'name: expected well-formed Unicode, got a lone surrogate U+D800 at character 2'],
    ['\udc00x', 'name: expected well-formed Unicode, got a lone surrogate U+DC00 at character 1'],
    ['x\udbff', 'name: expected well-formed Unicode, got a lone surrogate U+DBFF at character 2'],
    [null, 'name: expected a string, got null'],
    [5, 'name: expected a string, got 5'],
    [{}, 'name: expected a string, got an object'],
  ])('rejects %j', (input, message) => {
    expect(decodeName(input)).toEqual(invalid(message));
  });

  it('accepts U+0080…U+009F (C1 is not in the contract’s control set)', () => {
    expect(E.isRight(decodeName('a\u0085b'))).toBe(true);
  });

  it('agrees with a reference implementation on arbitrary strings', () => {
    const wellFormed = (s: string) => {
      try {
        encodeURIComponent(s); // throws URIError on a lone surrogate
        return true;
      } catch {
        return false;
      }
    };
    const reference = (s: string, max: number) => {
      const points = [...s];
      return (
        wellFormed(s) &&
        points.length >= 1 &&
        points.length <= max &&
        /\S/u.test(s) &&
        // eslint-disable-next-line no-control-regex -- the contract's control set, spelled out
        !/[\u0000-\u001f\u007f]/.test(s)
      );
    };
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 210 }), fc.string({ unit: 'grapheme', maxLength: 120 })),
        (s) => {
          expect(PlantName.is(s)).toBe(reference(s, 200));
          expect(PlantTag.is(s)).toBe(reference(s, 100));
        },
      ),
      { numRuns: 1000 },
    );
  }, 60_000);
});

describe('PlantTag', () => {
  it('allows 1–100 code points', () => {
    expect(decodeTag('t'.repeat(100))).toEqual(E.right('t'.repeat(100)));
    expect(decodeTag(astral.repeat(100))).toEqual(E.right(astral.repeat(100)));
    expect(decodeTag('t'.repeat(101))).toEqual(invalid('tag: expected 1–100 characters, got 101'));
    expect(decodeTag('')).toEqual(invalid('tag: expected 1–100 characters, got 0'));
  });
});

describe('CreatePlantRequest', () => {
  it('accepts name alone, with tag, with id', () => {
    expect(decodeRequest({ name: 'Fern' })).toEqual(E.right({ name: 'Fern' }));
    expect(decodeRequest({ name: 'Fern', tag: 'green' })).toEqual(E.right({ name: 'Fern', tag: 'green' }));
    expect(decodeRequest({ id: 7, name: 'Fern', tag: 'green' })).toEqual(
      E.right({ id: 7, name: 'Fern', tag: 'green' }),
    );
  });

  it('requires name', () => {
    expect(decodeRequest({})).toEqual(invalid('name: required'));
    expect(decodeRequest({ tag: 'x' })).toEqual(invalid('name: required'));
  });

  it('names every unknown member', () => {
    expect(decodeRequest({ name: 'Fern', color: 'green', status: 'sold' })).toEqual(
      invalid('color: unknown member (allowed: name, tag, id)', 'status: unknown member (allowed: name, tag, id)'),
    );
  });

  it('cuts a long member name and counts unknown members past ten', () => {
    const long = 'x'.repeat(5000);
    expect(decodeRequest({ name: 'Fern', [long]: 1 })).toEqual(
      invalid(`${'x'.repeat(64)}…: unknown member (allowed: name, tag, id)`),
    );
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`m${i}`, i]));
    const result = decodeRequest({ name: 'Fern', ...many });
    expect(E.isLeft(result) && result.left.problems).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `m${i}: unknown member (allowed: name, tag, id)`),
      'and 15 more unknown members',
    ]);
  });

  it.each(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'])(
    'rejects a %s key and never lets it reach a prototype',
    (key) => {
      const body = JSON.parse(`{"name":"Fern",${JSON.stringify(key)}:{"polluted":true}}`) as unknown;
      expect(decodeRequest(body)).toEqual(invalid(`${key}: unknown member (allowed: name, tag, id)`));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('returns a fresh object holding only known members', () => {
    const body = { name: 'Fern', tag: 'green' };
    const decoded = decodeRequest(body);
    expect(E.isRight(decoded) && decoded.right !== body).toBe(true);
    expect(E.isRight(decoded) && Object.getPrototypeOf(decoded.right)).toBe(Object.prototype);
  });

  it.each([
    [null, 'expected a JSON object, got null'],
    [[], 'expected a JSON object, got an array'],
    ['Fern', 'expected a JSON object, got a string "Fern"'],
    [42, 'expected a JSON object, got 42'],
  ])('rejects a body that is not an object: %j', (body, message) => {
    expect(decodeRequest(body)).toEqual(invalid(message));
  });

  it('rejects null where a string belongs, and does not treat an explicit null tag as absent', () => {
    expect(decodeRequest({ name: null })).toEqual(invalid('name: expected a string, got null'));
    expect(decodeRequest({ name: 'Fern', tag: null })).toEqual(invalid('tag: expected a string, got null'));
    expect(decodeRequest({ name: 'Fern', id: null })).toEqual(
      invalid('id: expected an integer from 1 to 9007199254740991, got null'),
    );
  });

  it.each([
    ['1.5', 'got 1.5'],
    ['"7"', 'got a string "7"'],
    ['-1', 'got -1'],
    ['0', 'got 0'],
    ['1e400', 'got a number out of range'],
    ['9007199254740992', 'got 9007199254740992'],
    ['9007199254740993', 'got 9007199254740992'],
    ['123456789012345678901234567890', 'got 1.2345678901234568e+29'],
  ])('rejects id %s', (raw, got) => {
    const body = JSON.parse(`{"name":"Fern","id":${raw}}`) as unknown;
    expect(decodeRequest(body)).toEqual(invalid(`id: expected an integer from 1 to 9007199254740991, ${got}`));
  });

  it('names every failing field in one go', () => {
    expect(decodeRequest({ name: '', tag: 'x'.repeat(101), id: 0, extra: 1 })).toEqual(
      invalid(
        'extra: unknown member (allowed: name, tag, id)',
        'name: expected 1–200 characters, got 0',
        'tag: expected 1–100 characters, got 101',
        'id: expected an integer from 1 to 9007199254740991, got 0',
      ),
    );
  });

  it('encodes to exactly the members present', () => {
    const decoded = decodeRequest({ name: 'Fern' });
    expect(E.isRight(decoded) && CreatePlantRequest.encode(decoded.right)).toEqual({ name: 'Fern' });
  });
});

describe('CreatePlantResponse', () => {
  it('decodes name and tag and ignores members a newer server may add', () => {
    expect(CreatePlantResponse.decode({ name: 'Fern', tag: 'green', extra: 1 })).toEqual(
      E.right({ name: 'Fern', tag: 'green' }),
    );
  });

  it('rejects a null tag (an absent tag is omitted, never null)', () => {
    expect(E.isLeft(CreatePlantResponse.decode({ name: 'Fern', tag: null }))).toBe(true);
  });
});

describe('Plant and PlantPage', () => {
  it('decodes a record with and without tag', () => {
    expect(Plant.decode({ id: 1, name: 'Fern' })).toEqual(E.right({ id: 1, name: 'Fern' }));
    expect(Plant.decode({ id: 1, name: 'Fern', tag: 'green' })).toEqual(E.right({ id: 1, name: 'Fern', tag: 'green' }));
  });

  it('requires the id', () => {
    expect(decodeWith(Plant)({ name: 'Fern' })).toEqual(invalid('id: required'));
  });

  it('names the element of a page that fails', () => {
    expect(
      decodeWith(PlantPage)([
        { id: 1, name: 'a' },
        { id: '2', name: 'b' },
      ]),
    ).toEqual(invalid('[1].id: expected an integer from 1 to 9007199254740991, got a string "2"'));
  });

  it('round-trips arbitrary valid plants', () => {
    const text = (max: number) =>
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: max })
        .filter((s) => PlantName.is(s) && [...s].length <= max);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        text(200),
        fc.option(text(100), { nil: undefined }),
        (id, name, tag) => {
          const plant = tag === undefined ? { id, name } : { id, name, tag };
          const decoded = Plant.decode(JSON.parse(JSON.stringify(plant)));
          expect(decoded).toEqual(E.right(plant));
        },
      ),
    );
  });
});

describe('UpdatePlantRequest', () => {
  const decodeUpdate = decodeWith(UpdatePlantRequest);

  it.each([[{}], [{ name: 'Fern' }], [{ tag: 'green' }], [{ tag: null }], [{ name: 'Fern', tag: null }]])(
    'accepts the merge patch %j',
    (patch) => {
      expect(decodeUpdate(patch)).toEqual(E.right(patch));
    },
  );

  it.each([
    [{ id: 7 }, 'id: cannot be changed: a plant keeps its id (the one in the path)'],
    [{ name: null }, 'name: expected a string, got null'],
    [{ name: '' }, 'name: expected 1–200 characters, got 0'],
    [{ tag: 5 }, 'tag: expected a string, or null to remove the tag, got 5'],
    [{ tag: ' ' }, 'tag: expected at least one non-whitespace character, got only whitespace'],
    [{ colour: 'green' }, 'colour: unknown member (allowed: name, tag, id)'],
  ])('refuses %j, naming the member', (patch, problem) => {
    expect(decodeUpdate(patch)).toEqual(invalid(problem));
  });

  it('refuses anything but a JSON object', () => {
    for (const body of [null, [], 'name', 3]) expect(E.isLeft(decodeUpdate(body))).toBe(true);
  });

  it('accepts exactly what the tag rules accept, or null, for tag', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constant(null), fc.integer()), (tag) => {
        expect(E.isRight(decodeUpdate({ tag }))).toBe(tag === null || PlantTag.is(tag));
      }),
    );
  });
});

describe('ReplacePlantRequest', () => {
  const decodeReplace = decodeWith(ReplacePlantRequest);

  it.each([[{ name: 'Fern' }], [{ name: 'Fern', tag: 'green' }], [{ name: astral, tag: 'a' }]])(
    'accepts the whole plant %j',
    (body) => {
      expect(decodeReplace(body)).toEqual(E.right(body));
    },
  );

  it.each([
    [{ id: 7, name: 'Fern' }, 'id: cannot be changed: a plant keeps its id (the one in the path)'],
    [{ name: 'Fern', tag: null }, 'tag: expected a string, got null'],
    [{ name: null }, 'name: expected a string, got null'],
    [{}, 'name: required'],
    [{ tag: 'green' }, 'name: required'],
    [{ name: 'Fern', colour: 'green' }, 'colour: unknown member (allowed: name, tag, id)'],
  ])('refuses %j, naming the member', (body, problem) => {
    expect(decodeReplace(body)).toEqual(invalid(problem));
  });

  it('has the members of Plant but its id: what a replaced plant is made of', () => {
    const { id: _id, ...required } = Plant.required;
    expect(Object.keys(ReplacePlantRequest.required)).toEqual(Object.keys(required));
    expect(Object.keys(ReplacePlantRequest.optional)).toEqual([...Object.keys(Plant.optional), 'id']);
  });

  it('accepts exactly the plants Plant accepts, without their id', () => {
    fc.assert(
      fc.property(fc.record({ name: fc.string(), tag: fc.option(fc.string(), { nil: undefined }) }), (body) => {
        const plain = body.tag === undefined ? { name: body.name } : body;
        expect(E.isRight(decodeReplace(plain))).toBe(E.isRight(Plant.decode({ ...plain, id: 1 })));
      }),
    );
  });
});

describe('plantOfRow', () => {
  const column = fc.oneof(
    fc.constant(null),
    fc.string({ maxLength: 8 }),
    fc.string({ unit: 'grapheme', maxLength: 3 }),
    fc.integer(),
    fc.constant(0),
    fc.constant(' '),
  );
  const rows = fc.record({ id: column, name: column, tag: column, version: column }, { requiredKeys: [] });

  it('agrees with Plant after withoutNulls on every row: the plant, or undefined where the codec refuses', () => {
    fc.assert(
      fc.property(rows, (row) => {
        const decoded = Plant.decode(withoutNulls(row));
        expect(plantOfRow(row)).toEqual(E.isRight(decoded) ? decoded.right : undefined);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes a NULL optional member for an absent one and ignores other columns', () => {
    expect(plantOfRow({ id: 3, name: 'Fern', tag: null, version: 7 })).toEqual({ id: 3, name: 'Fern' });
    expect(plantOfRow({ id: 3, name: 'Fern', tag: 'green', version: 7 })).toEqual({
      id: 3,
      name: 'Fern',
      tag: 'green',
    });
    expect(plantOfRow({ id: 3, name: null, tag: 'green' })).toBeUndefined();
    expect(plantOfRow({ id: '3', name: 'Fern', tag: null })).toBeUndefined();
  });

  it('takes the id given apart from the row instead of its id column', () => {
    expect(plantOfRow({ id: '3', name: 'Fern', tag: null }, 3)).toEqual({ id: 3, name: 'Fern' });
    expect(plantOfRow({ plant_id: 3, name: 'Fern', tag: 'green' }, 3)).toEqual({ id: 3, name: 'Fern', tag: 'green' });
    expect(plantOfRow({ id: 3, name: 'Fern', tag: null }, '3')).toBeUndefined();
  });

  it('gives a plant that encodes to the bytes of the decoded row', () => {
    const row = { version: 1, tag: 'green', name: 'Fern', id: 3 };
    const plant = plantOfRow(row);
    expect(plant === undefined ? undefined : JSON.stringify(Plant.encode(plant))).toBe(
      '{"id":3,"name":"Fern","tag":"green"}',
    );
  });
});
