// The README's example and fp-ts snippet, run against the throwaway server, so the npm page stays true.
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as TE from 'fp-ts/lib/TaskEither.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPlantStoreClient, NotFoundError, PreconditionFailedError, type Plant } from '../src/index.js';
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
  expect(E.isLeft(missing) && missing.left._tag === 'NotFound').toBe(true);
});

it('runs the README update snippet', async () => {
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
  await client.plants.create({ id: 7, name: 'Fern', tag: 'shade' });

  expect(await client.plants.update(7, { name: 'Boston fern' })).toEqual({ id: 7, name: 'Boston fern', tag: 'shade' });
  expect(await client.plants.update(7, { tag: null })).toEqual({ id: 7, name: 'Boston fern' });
  await client.plants.delete(7);
});

it('runs the README read-modify-write loop, also when someone changes the plant in between', async () => {
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
  await client.plants.create({ id: 7, name: 'Fern' });

  async function renameSafely(id: number, rename: (name: string) => string): Promise<Plant> {
    for (let round = 1; ; round++) {
      const plant = await client.plants.get(id);
      const name = rename(plant.name);
      if (name === plant.name) return plant; // nothing (more) to do
      if (plant.etag === undefined) throw new Error('this server sends no ETag');
      try {
        return await client.plants.update(id, { name }, { ifMatch: plant.etag });
      } catch (error) {
        if (!(error instanceof PreconditionFailedError) || round === 5) throw error;
        // changed since we read it: read again and decide afresh
      }
    }
  }

  // Someone renames the plant between our first read and our write: our first update gets a 412.
  server.enqueue(
    (req, res, body, route) => route(req, res, body), // our first GET
    (req, res, body, route) => {
      server.plants.set(7, { id: 7, name: 'Fern (repotted)' } as never);
      route(req, res, body);
    },
  );
  const before = server.requests.length;
  expect(await renameSafely(7, (name) => name.toUpperCase())).toEqual({ id: 7, name: 'FERN (REPOTTED)' });
  expect(server.requests.slice(before).map((r) => r.method)).toEqual(['GET', 'PATCH', 'GET', 'PATCH']);
  expect(await renameSafely(7, (name) => name.toUpperCase())).toEqual({ id: 7, name: 'FERN (REPOTTED)' }); // nothing more to do
  await client.plants.delete(7);
});

it('runs the README ifNoneMatch snippet', async () => {
  const logged: unknown[][] = [];
  const console = { log: (...args: unknown[]) => void logged.push(args) };
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
  await client.plants.create({ id: 7, name: 'Fern' });

  let cached = await client.plants.get(7);
  const result = await client.plants.get(7, { ifNoneMatch: cached.etag });
  if (result.notModified) console.log('unchanged', result.etag);
  else cached = result; // the new plant and its new etag

  expect(logged).toEqual([['unchanged', cached.etag]]);
  await client.plants.update(7, { name: 'Ivy' });
  const changed = await client.plants.get(7, { ifNoneMatch: cached.etag });
  expect(changed.notModified).toBe(false);
  await client.plants.delete(7);
});

it('runs the README tag snippet', async () => {
  const logged: unknown[][] = [];
  const console = { log: (...args: unknown[]) => void logged.push(args) };
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
  await client.plants.create({ id: 11, name: 'Fern', tag: 'shade' });
  await client.plants.create({ id: 12, name: 'Cactus', tag: 'sun' });

  for await (const plant of client.plants.all({ tag: 'shade' })) console.log(plant.id, plant.name);
  const page = await client.plants.list({ tag: 'shade', limit: 50 }); // page.next?.tag === 'shade'

  expect(logged).toEqual([[11, 'Fern']]);
  expect(page).toEqual({ plants: [{ id: 11, name: 'Fern', tag: 'shade' }] });
  await client.plants.delete(11);
  await client.plants.delete(12);
});

it('runs the README search and count snippets', async () => {
  const logged: unknown[][] = [];
  const console = { log: (...args: unknown[]) => void logged.push(args) };
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
  server.plants.clear();
  for (const name of ['Boston Fern', 'Monstera', 'FERNLEAF', 'Staff'])
    await client.plants.create({ name, tag: 'shade' });

  const ferns = await client.plants.list({ q: 'fern', sort: 'name', limit: 20 });
  if (ferns.next) await client.plants.list(ferns.next); // { limit: 20, sort: 'name', cursor: '…', q: 'fern' }
  for await (const plant of client.plants.all({ q: 'fern', sort: '-name' })) console.log(plant.name);

  const { plants, total } = await client.plants.list({ q: 'fern', limit: 10 }, { count: true });
  console.log(`${plants.length} of ${total}`); // total: number

  expect(ferns.plants.map((p) => p.name)).toEqual(['Boston Fern', 'FERNLEAF']);
  expect(logged).toEqual([['FERNLEAF'], ['Boston Fern'], ['2 of 2']]);
});

it('runs the README changes and mirror snippets', async () => {
  const logged: unknown[][] = [];
  const console = { log: (...args: unknown[]) => void logged.push(args) };
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
  const fern = await client.plants.create({ id: 7, name: 'Fern', tag: 'shade' });
  await client.plants.delete(fern.id);
  const since = server.changes.length - 2;
  await client.plants.create({ id: 7, name: 'Fern' });

  // The snippet starts at 0; here, at the first of the three changes above.
  const controller = new AbortController(); // abort it to stop
  let seen = 0;
  for await (const change of client.plants.changes({ since, signal: controller.signal })) {
    if (change.type === 'plant.deleted' || change.type === 'plant.left')
      console.log(change.seq, 'gone', change.data.id);
    else console.log(change.seq, change.type, change.data.name, change.etag); // the plant after the change
    if (++seen === 3) controller.abort();
  }
  expect(logged).toEqual([
    [since + 1, 'plant.created', 'Fern', fern.etag],
    [since + 2, 'gone', 7],
    [since + 3, 'plant.created', 'Fern', server.etagOf(7)],
  ]);

  logged.length = 0;
  const mirror = client.plants.mirror({ onChange: (change) => console.log('applied', change.seq, change.type) });
  await mirror.ready; // every plant is in mirror.plants
  console.log(mirror.plants.size, mirror.plants.get(7)?.name);
  await client.plants.update(7, { tag: 'shade' });
  await new Promise<void>((resolve) => {
    const wait = () => (mirror.position === since + 4 ? resolve() : setTimeout(wait, 5));
    wait();
  });
  // …later, on shutdown:
  await mirror.close();
  expect(logged).toEqual([
    [server.plants.size, 'Fern'],
    ['applied', since + 4, 'plant.updated'],
  ]);
});
