import { Change as WireChange, changeBody, CreatePlantRequest, Plant } from '@plant-store/domain';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { Change } from '../ports/change-log.js';
import { changeJson } from './change-text.js';

/** Plants the codec accepts: any create body the codec decodes, with an id. */
const text = (maxLength: number) =>
  fc
    .string({ minLength: 1, maxLength, unit: 'grapheme' })
    .filter((s) => E.isRight(CreatePlantRequest.decode({ name: s })));
const plants = fc
  .record(
    { id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), name: text(30), tag: text(20) },
    { requiredKeys: ['id', 'name'] },
  )
  .map((body) => {
    const plant = Plant.decode(body);
    if (E.isLeft(plant)) throw new TypeError(`test plant ${JSON.stringify(body)} does not decode`);
    return plant.right;
  });

const written = (plant: Plant, type: 'plant.created' | 'plant.updated', version: number): Change => ({
  ...plant,
  seq: 12,
  type,
  at: Date.UTC(2026, 10, 29, 10, 0, 0, 123),
  version,
});

describe('changeJson', () => {
  it('writes the plant as exactly JSON.stringify(Plant.encode(plant)), and the whole change as the domain does', () => {
    fc.assert(
      fc.property(
        plants,
        fc.constantFrom('plant.created' as const, 'plant.updated' as const),
        fc.nat(),
        (plant, type, version) => {
          const json = changeJson(written(plant, type, version));
          const head = `{"seq":12,"type":"${type}","timestamp":"2026-11-29T10:00:00.123Z","data":`;
          expect(json).toBe(`${head}${JSON.stringify(Plant.encode(plant))},"etag":"\\"${version.toString(36)}\\""}`);
          const wire = WireChange.decode(JSON.parse(json));
          expect(E.isRight(wire) && changeBody(wire.right)).toBe(json);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the wire order id, name, tag whatever order the plant was built in', () => {
    const plant = Plant.decode({ tag: 'green', name: 'Fern', id: 3 });
    if (E.isLeft(plant)) throw new TypeError('test plant does not decode');
    const { id, ...rest } = plant.right;
    const reordered = { ...rest, id };
    expect(changeJson(written(reordered, 'plant.created', 35))).toBe(
      '{"seq":12,"type":"plant.created","timestamp":"2026-11-29T10:00:00.123Z","data":{"id":3,"name":"Fern","tag":"green"},"etag":"\\"z\\""}',
    );
  });

  it('writes a delete as its id alone, without an ETag', () => {
    const id = Plant.decode({ id: 9, name: 'x' });
    if (E.isLeft(id)) throw new TypeError('test plant does not decode');
    expect(changeJson({ seq: 1, type: 'plant.deleted', at: 0, id: id.right.id })).toBe(
      '{"seq":1,"type":"plant.deleted","timestamp":"1970-01-01T00:00:00.000Z","data":{"id":9}}',
    );
  });
});
