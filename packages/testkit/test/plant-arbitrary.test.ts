import {
  CreatePlantRequest,
  CreatePlantResponse,
  MAX_NAME_LENGTH,
  Plant,
  PlantName,
  StructType,
  UpdatePlantRequest,
} from '@plant-store/domain';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { arbitraryOf } from '../src/plant-arbitrary.js';

const SEED = 20261129;
/** A struct codec of these members that decodes nothing: arbitraryOf reads only the declaration. */
const declared = <R extends t.Props, O extends t.Props>(name: string, required: R, optional: O) =>
  new StructType<R, O>(
    name,
    (_u): _u is never => false,
    (u, c) => t.failure(u, c),
    (v) => v as never,
    required,
    optional,
  );

const codePoints = (s: string): number[] => [...s].map((c) => c.codePointAt(0) ?? 0);

describe('arbitraryOf', () => {
  for (const codec of [Plant, CreatePlantRequest, CreatePlantResponse] as const) {
    it(`draws values that ${codec.name} decodes as they are`, () => {
      fc.assert(
        fc.property(arbitraryOf(codec as typeof Plant), (value) => {
          expect(codec.decode(value)).toEqual(E.right(value));
          expect(JSON.parse(JSON.stringify(codec.encode(value)))).toEqual(value);
        }),
        { seed: SEED, numRuns: 500 },
      );
    });
  }

  it('leaves optional members out (no key) or puts them in, and reaches every plane, marks and the longest name', () => {
    const plants = fc.sample(arbitraryOf(CreatePlantRequest), { seed: SEED, numRuns: 1000 });
    for (const key of ['tag', 'id'] as const) {
      expect(plants.some((p) => Object.hasOwn(p, key))).toBe(true);
      expect(plants.some((p) => !Object.hasOwn(p, key))).toBe(true);
      expect(plants.every((p) => !Object.hasOwn(p, key) || p[key] !== undefined)).toBe(true);
    }
    const points = plants.flatMap((p) => codePoints(p.name));
    const planes = new Set(points.map((c) => c >> 16));
    expect([...planes].sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, i) => i));
    expect(points.some((c) => /\p{Mn}/u.test(String.fromCodePoint(c)))).toBe(true);
    expect(plants.some((p) => codePoints(p.name).length === MAX_NAME_LENGTH)).toBe(true);
  });

  it('widens with a new optional member of a known codec, no edit needed', () => {
    const wider = declared('WiderPlant', Plant.required, { ...Plant.optional, nickname: PlantName });
    const values = fc.sample(arbitraryOf(wider), { seed: SEED, numRuns: 200 });
    const nicknames = values.flatMap((v) => (Object.hasOwn(v, 'nickname') ? [v.nickname] : []));
    expect(nicknames.length).toBeGreaterThan(0);
    expect(nicknames.length).toBeLessThan(values.length);
    for (const nickname of nicknames) expect(E.isRight(PlantName.decode(nickname))).toBe(true);
  });

  it('throws naming the member and its codec when the codec has no arbitrary', () => {
    const odd = declared('OddPlant', Plant.required, { colour: t.string });
    expect(() => arbitraryOf(odd)).toThrow('arbitraryOf(OddPlant): member "colour" has codec string');
    expect(() => arbitraryOf(UpdatePlantRequest)).toThrow('member "tag" has codec PlantTagOrNull');
  });
});
