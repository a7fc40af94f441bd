import type { Change } from '@plant-store/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  createPlantStoreClient,
  UnauthorizedError,
  UnexpectedResponseError,
  type PlantMirror,
  type PlantStoreClient,
  type RetryInfo,
} from '../src/index.js';
import {
  eventually,
  fastRetryingClient,
  feedRequests,
  raw,
  reply,
  stagePlants,
  startFakeServer,
  type FakeServer,
  type ScriptedHandler,
} from './fake-server.js';

let server: FakeServer;
let retries: RetryInfo[];
let client: PlantStoreClient;
let mirror: PlantMirror | undefined;

/** The fake's plants in id order, as `list` gives them. */
const stored = () => [...server.plants.values()].sort((a, b) => a.id - b.id);
const copied = (m: PlantMirror) => [...m.plants.values()].sort((a, b) => a.id - b.id);
const caughtUp = (m: PlantMirror) =>
  eventually('the mirror to catch up', () => m.position === (server.changes.at(-1)?.seq ?? 0));

beforeEach(async () => {
  retries = [];
  server = await startFakeServer();
  client = fastRetryingClient(server, retries);
  mirror = undefined;
});

afterEach(async () => {
  await mirror?.close();
  await server.close();
});

describe('plants.list', () => {
  it('carries the X-Change-Seq of each page as a non-enumerable changeSeq', async () => {
    const empty = await client.plants.list();
    expect(empty.changeSeq).toBe(0);
    await client.plants.create({ name: 'Fern' });
    const page = await client.plants.list({ limit: 1 }, { count: true });
    expect(page.changeSeq).toBe(1);
    expect(page).toEqual({ plants: [{ id: 1, name: 'Fern' }], next: { limit: 1, after: 1 }, total: 1 });
    expect(Object.keys(page)).toEqual(['plants', 'next', 'total']);
  });

  it('refuses an X-Change-Seq that is not a change number, and has none from a server that sends none', async () => {
    server.enqueue(raw(200, '[]', { 'content-type': 'application/json', 'x-change-seq': '-1' }));
    await expect(client.plants.list()).rejects.toThrow('the X-Change-Seq header "-1" is not a change number');
    server.enqueue(raw(200, '[]'));
    expect((await client.plants.list()).changeSeq).toBeUndefined();
  });
});

describe('plants.mirror', () => {
  it('lists every page, then follows the changes, and tells each change it applied', async () => {
    stagePlants(server, [
      { id: 1, name: 'Fern', tag: 'shade' },
      { id: 2, name: 'Ivy' },
      { id: 3, name: 'Basil', tag: 'herb' },
    ]);
    const applied: Change[] = [];
    let reloads = 0;
    mirror = client.plants.mirror({ limit: 2, onChange: (c) => void applied.push(c), onReload: () => void reloads++ });
    expect(mirror.plants.size).toBe(0);
    await mirror.ready;
    expect(reloads).toBe(1);
    expect(copied(mirror)).toEqual(stored());
    expect(copied(mirror).map((p) => p.etag)).toEqual([undefined, undefined, undefined]);
    expect(mirror.position).toBe(0);
    expect(server.requests.filter((r) => r.url.startsWith('/plants?')).map((r) => r.url)).toEqual([
      '/plants?limit=2',
      '/plants?limit=2&after=2',
    ]);

    const rose = await client.plants.create({ name: 'Rose', tag: 'sun' });
    const fern = await client.plants.update(1, { name: 'Boston fern' });
    await client.plants.update(1, { name: 'Boston fern' }); // no change
    await client.plants.delete(2);
    await caughtUp(mirror);
    expect(copied(mirror)).toEqual(stored());
    expect(mirror.plants.get(rose.id)?.etag).toBe(rose.etag);
    expect(mirror.plants.get(1)?.etag).toBe(fern.etag);
    expect(mirror.plants.get(3)?.etag).toBeUndefined();
    expect(applied.map((c) => [c.seq, c.type, c.data])).toEqual([
      [1, 'plant.created', { id: rose.id, name: 'Rose', tag: 'sun' }],
      [2, 'plant.updated', { id: 1, name: 'Boston fern', tag: 'shade' }],
      [3, 'plant.deleted', { id: 2 }],
    ]);
    expect(mirror.position).toBe(3);
  });

  it('skips, for each plant, the changes its page already showed, and applies the others', async () => {
    stagePlants(server, [
      { id: 1, name: 'A' },
      { id: 2, name: 'B' },
      { id: 3, name: 'C' },
      { id: 4, name: 'D' },
    ]);
    // Between the first page (ids 1–2, X-Change-Seq 0) and the second (X-Change-Seq 4), four
    // changes commit: one in the first page's range, three in the second's.
    const afterFourChanges: ScriptedHandler = (req, res, body, route) => {
      void (async () => {
        await client.plants.update(2, { name: 'B2' }); // 1: page 1 did not show it: applied
        await client.plants.update(3, { name: 'C2' }); // 2: page 2 shows it: skipped
        await client.plants.delete(4); // 3: page 2 does not show plant 4, the copy never had it
        await client.plants.create({ id: 5, name: 'E' }); // 4: page 2 shows it: skipped
      })().then(() => route(req, res, body));
    };
    server.enqueue((req, res, body, route) => route(req, res, body), afterFourChanges);
    const applied: Change[] = [];
    mirror = client.plants.mirror({ limit: 2, onChange: (c) => void applied.push(c) });
    await mirror.ready;
    await caughtUp(mirror);
    expect(copied(mirror)).toEqual(stored());
    expect(copied(mirror)).toEqual([
      { id: 1, name: 'A' },
      { id: 2, name: 'B2' },
      { id: 3, name: 'C2' },
      { id: 5, name: 'E' },
    ]);
    // The delete of 4 is applied (no page the copy holds showed it), removing nothing; the
    // update of 2 is the one change the pages did not show.
    expect(applied.map((c) => c.seq)).toEqual([1, 3]);
    expect(server.requests.filter((r) => r.url.startsWith('/plants?')).map((r) => r.url)).toEqual([
      '/plants?limit=2',
      '/plants?limit=2&after=2',
      '/plants?limit=2&after=5',
    ]);
    expect(feedRequests(server)[0]?.url).toBe('/plants/changes?since=0');
  });

  it('with a tag, holds exactly the plants of that tag as plants enter, leave and go', async () => {
    stagePlants(server, [
      { id: 1, name: 'A', tag: 'fern' },
      { id: 2, name: 'B' },
      { id: 3, name: 'C', tag: 'fern' },
      { id: 4, name: 'D', tag: 'moss' },
    ]);
    const applied: Change[] = [];
    mirror = client.plants.mirror({ tag: 'fern', limit: 1, onChange: (c) => void applied.push(c) });
    await mirror.ready;
    const ofTag = () => stored().filter((p) => p.tag === 'fern');
    expect(copied(mirror)).toEqual(ofTag());
    expect(server.requests.filter((r) => r.url.startsWith('/plants?')).map((r) => r.url)).toEqual([
      '/plants?limit=1&tag=fern',
      '/plants?limit=1&after=1&tag=fern',
      '/plants?limit=1&after=3&tag=fern',
    ]);
    await client.plants.update(2, { tag: 'fern' }); // 1: enters
    await client.plants.update(1, { tag: 'moss' }); // 2: leaves
    await client.plants.update(4, { name: 'D2' }); // 3: not of the tag
    await client.plants.delete(3); // 4: a plant of the tag goes
    await client.plants.update(1, { tag: null }); // 5: not of the tag any more
    await eventually('the mirror to apply the delete', () => applied.length === 3);
    expect(copied(mirror)).toEqual(ofTag());
    expect(applied.map((c) => [c.seq, c.type, c.data])).toEqual([
      [1, 'plant.updated', { id: 2, name: 'B', tag: 'fern' }],
      [2, 'plant.left', { id: 1 }],
      [4, 'plant.deleted', { id: 3 }],
    ]);
    expect(feedRequests(server).map((r) => r.url)).toEqual(['/plants/changes?tag=fern&since=0']);
    // A bookmark moves the mirror past the changes of other plants.
    expect(mirror.position).toBe(4);
    server.bookmarkStreams();
    await caughtUp(mirror);
    expect(mirror.position).toBe(5);
  });

  it('starts again from a fresh list after a 410', async () => {
    stagePlants(server, [{ id: 1, name: 'Fern' }]);
    let reloads = 0;
    mirror = client.plants.mirror({ onReload: () => void reloads++ });
    await mirror.ready;
    await eventually('the stream to open', () => server.openStreams() === 1);
    // While the mirror is away, the store changes in ways the change log no longer has.
    server.plants.set(2, { id: 2, name: 'Ivy' } as never);
    server.plants.delete(1);
    server.enqueue(reply(410, 'the changes after 0 have expired (CHANGES_RETENTION): read the plants again'));
    server.cutStreams();
    await eventually('the second list', () => reloads === 2);
    expect(copied(mirror)).toEqual([{ id: 2, name: 'Ivy' }]);
    await client.plants.create({ name: 'Rose' });
    await caughtUp(mirror);
    expect(copied(mirror)).toEqual(stored());
  });

  it('closes quietly: done resolves and the stream is closed', async () => {
    mirror = client.plants.mirror();
    await mirror.ready;
    await eventually('the stream to open', () => server.openStreams() === 1);
    await mirror.close();
    await expect(mirror.done).resolves.toBeUndefined();
    await eventually('the stream to close', () => server.openStreams() === 0);
  });

  it('rejects ready with AbortError when its signal aborts before the first list', async () => {
    const controller = new AbortController();
    controller.abort();
    mirror = client.plants.mirror({ signal: controller.signal });
    await expect(mirror.ready).rejects.toBeInstanceOf(AbortError);
    await expect(mirror.done).resolves.toBeUndefined();
  });

  it('stops with the error of a 401: ready and done reject with it', async () => {
    mirror = createPlantStoreClient({ baseUrl: server.url, token: 'revoked' }).plants.mirror();
    await expect(mirror.ready).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(mirror.done).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('refuses a list without X-Change-Seq: the server has no change feed', async () => {
    server.enqueue(raw(200, '[]'));
    mirror = client.plants.mirror();
    await expect(mirror.ready).rejects.toBeInstanceOf(UnexpectedResponseError);
    await expect(mirror.done).rejects.toThrow('the list page has no X-Change-Seq header');
  });

  it('stops with what onChange throws, and closes the stream', async () => {
    const failure = new Error('the cache is full');
    mirror = client.plants.mirror({
      onChange: () => {
        throw failure;
      },
    });
    await mirror.ready;
    await eventually('the stream to open', () => server.openStreams() === 1);
    await client.plants.create({ name: 'Fern' });
    await expect(mirror.done).rejects.toBe(failure);
    await eventually('the stream to close', () => server.openStreams() === 0);
  });

  it('keeps following across a lost connection', async () => {
    mirror = client.plants.mirror();
    await mirror.ready;
    await eventually('the stream to open', () => server.openStreams() === 1);
    await client.plants.create({ name: 'Fern' });
    await caughtUp(mirror);
    server.cutStreams();
    await client.plants.create({ name: 'Ivy' });
    await caughtUp(mirror);
    expect(copied(mirror)).toEqual(stored());
    expect(retries).toHaveLength(1);
  });
});
