// The README's example and fp-ts snippet, run against the throwaway server, so the npm page stays true.
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPlantStoreClient, NotFoundError } from '../src/index.js';
import { startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

it('runs the README example', async () => {
  const logged: unknown[][] = [];
  const console = { log: (...args: unknown[]) => void logged.push(args) };

  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });

  const fern = await client.plants.create({ name: 'Fern', tag: 'shade' }); // { id: 1, name: 'Fern', tag: 'shade' }
  console.log(await client.plants.get(fern.id));
  for await (const plant of client.plants.all()) console.log(plant.id, plant.name);
  await client.plants.delete(fern.id);
  await client.plants.get(fern.id).catch((error) => {
    if (error instanceof NotFoundError) console.log(error.message, error.requestId); // "no plant with id 1"
  });

  expect(fern).toEqual({ id: 1, name: 'Fern', tag: 'shade' });
  expect(logged.slice(0, 2)).toEqual([[{ id: 1, name: 'Fern', tag: 'shade' }], [1, 'Fern']]);
  expect(logged[2]?.[0]).toBe('no plant with id 1');
});

it('runs the README idempotent-create snippet', async () => {
  const logged: unknown[][] = [];
  const console = { log: (...args: unknown[]) => void logged.push(args) };
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });

  const order = { id: 'order-1042', plant: { name: 'Fern', tag: 'shade' } };
  const plant = await client.plants.create(order.plant, { idempotencyKey: `${order.id}:plant` });
  const again = await client.plants.create(order.plant, { idempotencyKey: `${order.id}:plant` });
  console.log(again.id === plant.id, again.replayed); // true true: stored once

  expect(logged).toEqual([[true, true]]);
  await client.plants.delete(plant.id);
});

it('runs the README fp-ts snippet', async () => {
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
  await client.plants.create({ id: 1, name: 'Fern' });
  const renamed = pipe(
    client.fp.plants.get(1),
    TE.chainFirst((plant) => client.fp.plants.delete(plant.id)),
    TE.chain((plant) => client.fp.plants.create({ id: plant.id, name: `${plant.name} (new)` })),
  );
  expect(await renamed()).toEqual({ _tag: 'Right', right: { id: 1, name: 'Fern (new)' } });
  const missing = await pipe(client.fp.plants.get(2))();
  expect(missing._tag === 'Left' && missing.left._tag === 'NotFound').toBe(true);
});
