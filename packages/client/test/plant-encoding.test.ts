import { Plant } from '@plant-store/domain';
import type * as Domain from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { plantJsonLine } from '../src/cli-export.js';
import { createPlantStoreClient } from '../src/index.js';
import { startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

/*
 * The client writes and builds plants through the domain's codecs, never a list of members of its
 * own. Here the codecs hold one member more than today's plant: decoding a 201 adds it, and
 * encoding a plant writes it. Code that names the members itself leaves it out and fails.
 */
vi.mock('@plant-store/domain', async (importOriginal) => {
  const domain = await importOriginal<typeof Domain>();
  const io = await import('io-ts');
  const Either = await import('fp-ts/lib/Either.js');
  const grown = <A, O>(codec: t.Type<A, O, unknown>) =>
    new io.Type<A, O, unknown>(
      codec.name,
      codec.is,
      (u, c) => Either.map((a: A) => ({ ...a, planted: 'spring' }))(codec.validate(u, c)),
      (a) => ({ ...codec.encode(a), planted: 'spring' }),
    );
  return { ...domain, Plant: grown(domain.Plant), CreatePlantResponse: grown(domain.CreatePlantResponse) };
});

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

describe('plants as the client builds and writes them', () => {
  it('create returns every member the 201 decodes to, with the id from Location first', async () => {
    const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
    const plant = await client.plants.create({ name: 'Fern', tag: 'green' });
    expect(plant).toEqual({ id: 1, name: 'Fern', tag: 'green', planted: 'spring' });
    expect(Object.keys(plant)[0]).toBe('id');
  });

  it('an export line is JSON.stringify(Plant.encode(plant))', () => {
    const decoded = Plant.decode({ id: 3, name: 'Fern' });
    if (E.isLeft(decoded)) throw new TypeError('test plant does not decode');
    const plant = decoded.right;
    expect(plantJsonLine(plant)).toBe(`${JSON.stringify(Plant.encode(plant))}\n`);
    expect(plantJsonLine(plant)).toBe('{"id":3,"name":"Fern","planted":"spring"}\n');
  });
});
