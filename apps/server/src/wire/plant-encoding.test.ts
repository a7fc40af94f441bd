import { CreatePlantRequest, Plant } from '@plant-store/domain';
import type * as Domain from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it, vi } from 'vitest';
import { eventData } from '../adapters/sqlite/outbox.js';
import { changeJson } from '../changes/change-text.js';
import { plantLine } from '../data/export.js';
import { canonicalRequest } from '../idempotency/canonical-request.js';
import { storedPlant } from '../ports/store-data.js';

/*
 * Every place that writes a plant as JSON goes through the domain codec's encoder, never a list of
 * members of its own (docs/explanation/architecture.md, "One spelling of the plant"). Here the
 * codecs' encoders write one member more than today's plant has: a writer that names the members
 * itself leaves it out and fails.
 */
vi.mock('@plant-store/domain', async (importOriginal) => {
  const domain = await importOriginal<typeof Domain>();
  const io = await import('io-ts');
  const grown = <A, O>(codec: t.Type<A, O, unknown>) =>
    new io.Type<A, O, unknown>(codec.name, codec.is, codec.validate, (a) => ({
      ...codec.encode(a),
      planted: 'spring',
    }));
  return {
    ...domain,
    Plant: grown(domain.Plant),
    CreatePlantRequest: grown(domain.CreatePlantRequest),
    CreatePlantResponse: grown(domain.CreatePlantResponse),
  };
});

const decoded = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new TypeError('test value does not decode');
  return result.right;
};
const fern = decoded(Plant.decode({ id: 3, name: 'Fern', tag: 'green' }));
const bare = decoded(Plant.decode({ id: 4, name: 'Ivy' }));

describe('writers of a plant', () => {
  it('the encoder under test writes the extra member', () => {
    expect(Plant.encode(fern)).toEqual({ id: 3, name: 'Fern', tag: 'green', planted: 'spring' });
  });

  it.each([fern, bare])('change text writes JSON.stringify(Plant.encode(plant)) as data: %j', (plant) => {
    const json = changeJson({ ...plant, seq: 1, type: 'plant.updated', at: 0, version: 2 });
    expect(json).toContain(`"data":${JSON.stringify(Plant.encode(plant))},`);
  });

  it.each([fern, bare])('a webhook event writes Plant.encode(plant) as data: %j', (plant) => {
    expect(JSON.stringify(eventData(plant))).toBe(JSON.stringify(Plant.encode(plant)));
  });

  it.each([fern, bare])('an export line is JSON.stringify(Plant.encode(plant)): %j', (plant) => {
    expect(plantLine(plant)).toBe(`${JSON.stringify(Plant.encode(plant))}\n`);
  });

  it('an exported row becomes its plant before it is written', () => {
    expect(plantLine(storedPlant({ id: 4, name: 'Ivy', tag: null, version: 7 }))).toBe(
      '{"id":4,"name":"Ivy","planted":"spring"}\n',
    );
  });

  it('the canonical request of an idempotency key is the encoded request, members sorted', () => {
    const request = decoded(CreatePlantRequest.decode({ name: 'Fern', tag: 'green', id: 3 }));
    expect(canonicalRequest(request)).toBe('{"id":3,"name":"Fern","planted":"spring","tag":"green"}');
  });
});
