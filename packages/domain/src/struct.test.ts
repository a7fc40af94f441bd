import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { CreatePlantRequest, Plant, PlantName, PlantTag } from './plant.js';
import { PlantId } from './plant-id.js';
import { StructType, struct } from './struct.js';

describe('struct', () => {
  it('exposes its member codecs, required and optional, as declared', () => {
    expect(Plant).toBeInstanceOf(StructType);
    expect(Plant.required).toEqual({ id: PlantId, name: PlantName });
    expect(Plant.optional).toEqual({ tag: PlantTag });
    expect(Object.keys(CreatePlantRequest.required)).toEqual(['name']);
    expect(Object.keys(CreatePlantRequest.optional)).toEqual(['tag', 'id']);
  });

  it('decodes and encodes as it did: members in declared order, unknown ones by its rule', () => {
    const codec = struct('Pair', { name: PlantName }, { tag: PlantTag }, 'strip');
    expect(codec.decode({ tag: 't', name: 'n', extra: 1 })).toEqual(E.right({ name: 'n', tag: 't' }));
    expect(JSON.stringify(codec.encode({ tag: 't', name: 'n' } as never))).toBe('{"name":"n","tag":"t"}');
    expect(E.isLeft(struct('Pair', { name: PlantName }, {}, 'reject').decode({ name: 'n', x: 1 }))).toBe(true);
  });
});
