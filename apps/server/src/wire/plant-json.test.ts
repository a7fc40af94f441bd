import { PlantId, PlantName, PlantTag, type Plant } from '@plant-store/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plantJson, plantsJson } from './plant-json.js';

// Any plant the domain admits: ids up to 2^53-1, names and tags of any Unicode the text rule
// allows (quotes, backslashes, U+2028, astral characters), a tag or none.
const text = (is: (u: unknown) => boolean, maxLength: number) =>
  fc
    .oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength }),
      fc.string({
        unit: fc.constantFrom('"', '\\', '/', '\u2028', '\u00e9', '\u{1f33f}', 'a', ' '),
        minLength: 1,
        maxLength,
      }),
    )
    .filter(is);
const plant: fc.Arbitrary<Plant> = fc
  .record({
    id: fc.oneof(
      fc.integer({ min: 1, max: 1000 }),
      fc.constant(Number.MAX_SAFE_INTEGER),
      fc.maxSafeNat().filter((n) => n > 0),
    ),
    name: text(PlantName.is, 60),
    tag: fc.option(text(PlantTag.is, 30), { nil: undefined }),
  })
  .filter((p) => PlantId.is(p.id))
  .map(({ id, name, tag }) => (tag === undefined ? { id, name } : { id, name, tag }) as Plant);

describe('plant JSON', () => {
  it('is the text JSON.stringify makes, for one plant and for a page', () => {
    fc.assert(
      fc.property(fc.array(plant, { maxLength: 20 }), (plants) => {
        expect(plantsJson(plants)).toBe(JSON.stringify(plants));
        for (const p of plants) expect(plantJson(p)).toBe(JSON.stringify(p));
      }),
      { numRuns: 1000 },
    );
  });
});
