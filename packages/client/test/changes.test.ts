import { changeBody, type Change } from '@plant-store/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ChangesExpiredError,
  ConnectionError,
  createPlantStoreClient,
  ForbiddenError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
  type PlantStoreClient,
  type PlantStoreClientOptions,
  type RetryInfo,
} from '../src/index.js';
import {
  drop,
  eventually,
  fastRetryingClient,
  feedRequests,
  raw,
  reply,
  startFakeServer,
  TOKEN,
  type FakeServer,
} from './fake-server.js';

let server: FakeServer;
let retries: RetryInfo[];

const clientFor = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  fastRetryingClient(server, retries, options);

/** The changes the fake recorded, as the feed sends them (JSON round trip: what a client decodes). */
const recorded = (): Change[] => server.changes.map((change) => JSON.parse(changeBody(change)) as Change);

/** An iteration held open by the test: `next` pulls one change, `stop` ends it as `break` would. */
const iterate = (iterable: AsyncIterable<Change>) => {
  const iterator = iterable[Symbol.asyncIterator]();
  return {
    next: async (): Promise<Change> => {
      const result = await iterator.next();
      if (result.done === true) throw new Error('the iteration ended');
      return result.value;
    },
    end: () => iterator.next(),
    stop: () => iterator.return?.(),
  };
};

/** The first `count` changes of `iterable`, then a `break`. */
const take = async (iterable: AsyncIterable<Change>, count: number): Promise<Change[]> => {
  const taken: Change[] = [];
  for await (const change of iterable) {
    taken.push(change);
    if (taken.length === count) break;
  }
  return taken;
};

/** The PlantStoreError an iteration ends with; a quiet end fails the test. */
const failureOf = async (iterable: AsyncIterable<Change>): Promise<unknown> => {
  try {
    for await (const change of iterable) void change;
  } catch (error) {
    return error;
  }
  throw new Error('expected the iteration to fail');
};

const streamOpen = () => eventually('the change stream to open', () => server.openStreams() === 1);

beforeEach(async () => {
  retries = [];
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('plants.changes', () => {
  it('gives every change after since, decoded, in order, and sends the usual headers', async () => {
    const client = clientFor({ userAgent: 'watcher/1' });
    const fern = await client.plants.create({ name: 'Fern', tag: 'shade' });
    await client.plants.update(fern.id, { name: 'Boston fern' });
    await client.plants.update(fern.id, { name: 'Boston fern' }); // changes nothing: no change
    await client.plants.delete(fern.id);
    const changes = await take(client.plants.changes({ since: 0, requestId: 'watch-1' }), 3);
    expect(changes).toEqual(recorded());
    expect(changes.map((c) => [c.seq, c.type, c.data])).toEqual([
      [1, 'plant.created', { id: fern.id, name: 'Fern', tag: 'shade' }],
      [2, 'plant.updated', { id: fern.id, name: 'Boston fern', tag: 'shade' }],
      [3, 'plant.deleted', { id: fern.id }],
    ]);
    const [request] = feedRequests(server);
    expect(request?.url).toBe('/plants/changes?since=0');
    expect(request?.headers).toMatchObject({
      accept: 'text/event-stream',
      authorization: `Bearer ${TOKEN}`,
      'user-agent': 'watcher/1',
      'x-request-id': 'watch-1',
    });
    expect(request?.headers['last-event-id']).toBeUndefined();
  });

  it('without since, gives only the changes committed after the call, from the newest number it asked for', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'Before' });
    await client.plants.create({ name: 'Also before' });
    const feed = iterate(client.plants.changes());
    const first = feed.next();
    await streamOpen();
    await client.plants.create({ name: 'After' });
    expect(await first).toMatchObject({ seq: 3, type: 'plant.created', data: { name: 'After' } });
    await feed.stop();
    expect(feedRequests(server).map((r) => [r.url, r.headers.accept])).toEqual([
      ['/plants/changes?limit=1', 'application/json'],
      ['/plants/changes?since=2', 'text/event-stream'],
    ]);
  });

  it('reconnects after a cut with Last-Event-ID, missing nothing and repeating nothing', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'One' });
    const feed = iterate(client.plants.changes({ since: 0 }));
    expect((await feed.next()).seq).toBe(1);
    await streamOpen();
    server.cutStreams();
    await client.plants.create({ name: 'Two' }); // committed while the client is away
    expect(await feed.next()).toMatchObject({ seq: 2, data: { name: 'Two' } });
    await client.plants.create({ name: 'Three' });
    expect((await feed.next()).seq).toBe(3);
    await feed.stop();
    const requests = feedRequests(server);
    expect(requests.map((r) => [r.url, r.headers['last-event-id']])).toEqual([
      ['/plants/changes?since=0', undefined],
      ['/plants/changes?since=0', '1'],
    ]);
    expect(new Set(requests.map((r) => r.headers['x-request-id'])).size).toBe(1);
    expect(retries).toHaveLength(1);
    expect(retries[0]?.error).toBeInstanceOf(ConnectionError);
  });

  it('reconnects after a clean end (a shutdown) and after a 503, resuming from the since it was given', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'One' });
    await client.plants.create({ name: 'Two' });
    const feed = iterate(client.plants.changes({ since: 1 }));
    expect((await feed.next()).seq).toBe(2);
    await streamOpen();
    const third = feed.next();
    server.enqueue(reply(503, 'too many open change streams', { 'retry-after': '0' }));
    server.endStreams();
    await eventually(
      'the reconnection after the 503',
      () => feedRequests(server).length === 3 && server.openStreams() === 1,
    );
    await client.plants.create({ name: 'Three' });
    expect((await third).seq).toBe(3);
    await feed.stop();
    expect(feedRequests(server).map((r) => r.headers['last-event-id'])).toEqual([undefined, '2', '2']);
    expect(retries.map((r) => r.error.constructor)).toEqual([ConnectionError, ServiceUnavailableError]);
    expect(retries[0]?.error.message).toMatch(/ended the change stream/);
  });

  it('sends the original since as Last-Event-ID when no change came before the connection was lost', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'One' });
    const feed = iterate(client.plants.changes({ since: 1 }));
    const next = feed.next();
    await streamOpen();
    server.cutStreams();
    await eventually('the reconnection', () => feedRequests(server).length === 2 && server.openStreams() === 1);
    await client.plants.create({ name: 'Two' });
    expect((await next).seq).toBe(2);
    await feed.stop();
    expect(feedRequests(server).map((r) => r.headers['last-event-id'])).toEqual([undefined, '1']);
  });

  it('follows one tag: plant.left for a plant that leaves, and bookmarks move where it resumes', async () => {
    const client = clientFor();
    const fern = await client.plants.create({ name: 'Fern', tag: 'a b' }); // 1
    await client.plants.create({ name: 'Ivy', tag: 'other' }); // 2
    await client.plants.update(fern.id, { tag: 'other' }); // 3: leaves
    const feed = iterate(client.plants.changes({ since: 0, tag: 'a b' }));
    expect(await feed.next()).toMatchObject({ seq: 1, type: 'plant.created', data: { name: 'Fern', tag: 'a b' } });
    expect(await feed.next()).toEqual({
      seq: 3,
      type: 'plant.left',
      timestamp: server.changes[2]?.timestamp,
      data: { id: fern.id },
    });
    await streamOpen();
    // Changes of other plants, then the server's bookmark: not given, but where it resumes from.
    await client.plants.create({ name: 'Moss' }); // 4
    await client.plants.create({ name: 'Palm', tag: 'other' }); // 5
    server.bookmarkStreams();
    const next = feed.next();
    // The stream ends cleanly after the bookmark (a shutdown): the client reads both, in order.
    server.endStreams();
    await eventually('the reconnection', () => feedRequests(server).length === 2 && server.openStreams() === 1);
    await client.plants.update(fern.id, { tag: 'a b' }); // 6: enters again
    expect(await next).toMatchObject({ seq: 6, type: 'plant.updated', data: { id: fern.id, tag: 'a b' } });
    await feed.stop();
    expect(feedRequests(server).map((r) => [r.url, r.headers['last-event-id']])).toEqual([
      ['/plants/changes?tag=a+b&since=0', undefined],
      ['/plants/changes?tag=a+b&since=0', '5'],
    ]);
  });

  it('without since, asks for the newest number of the feed of its tag', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'Before', tag: 'x' });
    const feed = iterate(client.plants.changes({ tag: 'x' }));
    const first = feed.next();
    await streamOpen();
    await client.plants.create({ name: 'After', tag: 'x' });
    expect(await first).toMatchObject({ seq: 2, data: { name: 'After' } });
    await feed.stop();
    expect(feedRequests(server).map((r) => r.url)).toEqual([
      '/plants/changes?tag=x&limit=1',
      '/plants/changes?tag=x&since=1',
    ]);
  });

  it('refuses a tag the server would refuse before sending anything', async () => {
    const client = clientFor();
    for (const tag of ['', 'x'.repeat(101), 'a\u0007b']) {
      const error = await failureOf(client.plants.changes({ since: 0, tag }));
      expect(error, JSON.stringify(tag)).toBeInstanceOf(BadRequestError);
      expect((error as BadRequestError).message, JSON.stringify(tag)).toMatch(/^tag: /);
    }
    expect(feedRequests(server)).toEqual([]);
  });

  it('refuses a bookmark that is not one: no number, another id, or a number it has passed', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'One', tag: 't' });
    await client.plants.create({ name: 'Two', tag: 't' });
    for (const [bookmark, problem] of [
      ['id: 3\nevent: bookmark\ndata: {}\n\n', 'is a bookmark whose data has no change number'],
      ['id: 3\nevent: bookmark\ndata: {"seq":4}\n\n', 'is a bookmark of 4'],
      ['id: 1\nevent: bookmark\ndata: {"seq":1}\n\n', 'bookmark 1 came after change 2'],
    ] as const) {
      const feed = iterate(client.plants.changes({ since: 0, tag: 't' }));
      await feed.next();
      await feed.next();
      await streamOpen();
      server.writeToStreams(bookmark);
      const failure = await feed.end().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, bookmark).toBeInstanceOf(UnexpectedResponseError);
      expect(String((failure as UnexpectedResponseError).problems), bookmark).toContain(problem);
      await eventually('the stream to close', () => server.openStreams() === 0);
    }
  });

  it('reconnects after a network error before any answer', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'One' });
    server.enqueue(drop, drop);
    expect(await take(client.plants.changes({ since: 0 }), 1)).toMatchObject([{ seq: 1 }]);
    expect(retries.map((r) => r.error.constructor)).toEqual([ConnectionError, ConnectionError]);
    expect(retries.map((r) => r.request.attempt)).toEqual([1, 2]);
  });

  it('honours the stream retry as the base of its backoff, and starts again from it after a connection opened', async () => {
    server.feed.retryMs = 40;
    const client = clientFor();
    await client.plants.create({ name: 'One' });
    const feed = iterate(client.plants.changes({ since: 0 }));
    expect((await feed.next()).seq).toBe(1);
    // A cut, then two failed connections in a row (ceilings 40, 80, 160 ms), then one that opens.
    const second = feed.next();
    server.enqueue(reply(500), reply(502));
    server.cutStreams();
    await eventually('the reconnection', () => feedRequests(server).length === 4 && server.openStreams() === 1);
    await client.plants.create({ name: 'Two' });
    expect((await second).seq).toBe(2);
    // A cut after a connection that opened: back to 40 ms.
    const third = feed.next();
    server.cutStreams();
    await eventually('the reconnection', () => feedRequests(server).length === 5 && server.openStreams() === 1);
    await client.plants.create({ name: 'Three' });
    expect((await third).seq).toBe(3);
    await feed.stop();
    expect(retries.map((r) => [r.error.constructor, r.error.status])).toEqual([
      [ConnectionError, undefined],
      [ServerError, 500],
      [ServerError, 502],
      [ConnectionError, undefined],
    ]);
    const delays = retries.map((r) => r.delayMs);
    [40, 80, 160, 40].forEach((ceiling, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(0);
      expect(delays[i]).toBeLessThan(ceiling);
    });
  });

  it('ends with ChangesExpiredError on a 410, at the start or at a reconnection', async () => {
    const client = clientFor();
    for (const name of ['One', 'Two', 'Three']) await client.plants.create({ name });
    server.feed.expiredBefore = 2;
    const first = await failureOf(client.plants.changes({ since: 1 }));
    expect(first).toBeInstanceOf(ChangesExpiredError);
    expect(first).toMatchObject({ _tag: 'ChangesExpired', status: 410 });
    expect((first as Error).message).toMatch(/the changes after 1 have expired/);
    expect(feedRequests(server)).toHaveLength(1);

    const feed = iterate(client.plants.changes({ since: 2 }));
    expect((await feed.next()).seq).toBe(3);
    await streamOpen();
    server.feed.expiredBefore = 4; // the changes after 3, where the feed stands, have expired
    server.cutStreams();
    await expect(feed.next()).rejects.toBeInstanceOf(ChangesExpiredError);
    expect(feedRequests(server).map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '3']);
    expect(retries).toHaveLength(1);
  });

  it.each([
    ['401', () => createPlantStoreClient({ baseUrl: server.url, token: 'revoked' }), UnauthorizedError],
    ['403', () => (server.enqueue(reply(403, 'this token lacks the scope plants:read')), clientFor()), ForbiddenError],
  ] as const)('ends at once with the error of a %s, without reconnecting', async (_status, makeClient, type) => {
    const error = await failureOf(makeClient().plants.changes({ since: 0 }));
    expect(error).toBeInstanceOf(type);
    expect(feedRequests(server)).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('ends with BadRequestError for a since above the newest number, and refuses a bad since before sending', async () => {
    const error = await failureOf(clientFor().plants.changes({ since: 7 }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as Error).message).toBe('since: 7 is above the newest change number, 0');
    const invalid = await failureOf(clientFor().plants.changes({ since: -1 }));
    expect(invalid).toMatchObject({ _tag: 'Validation' });
    expect(feedRequests(server)).toHaveLength(1);
  });

  it('ends quietly and closes the stream when its signal aborts, or the client-wide one', async () => {
    for (const which of ['call', 'client'] as const) {
      const controller = new AbortController();
      const client = clientFor(which === 'client' ? { signal: controller.signal } : {});
      const feed = iterate(
        client.plants.changes(which === 'call' ? { since: 0, signal: controller.signal } : { since: 0 }),
      );
      const end = feed.end();
      await streamOpen();
      controller.abort();
      expect(await end).toEqual({ done: true, value: undefined });
      await eventually('the stream to close', () => server.openStreams() === 0);
    }
  });

  it('ends quietly when aborted while it waits to reconnect', async () => {
    server.feed.retryMs = 60_000;
    const controller = new AbortController();
    const feed = iterate(clientFor().plants.changes({ since: 0, signal: controller.signal }));
    const end = feed.end();
    await streamOpen();
    server.cutStreams();
    await eventually('the wait before reconnecting', () => retries.length === 1);
    controller.abort();
    expect(await end).toEqual({ done: true, value: undefined });
    expect(feedRequests(server)).toHaveLength(1);
  });

  it('closes the connection on break', async () => {
    const client = clientFor();
    await client.plants.create({ name: 'One' });
    await client.plants.create({ name: 'Two' });
    for await (const change of client.plants.changes({ since: 0 })) {
      expect(server.openStreams()).toBe(1);
      if (change.seq === 1) break;
    }
    await eventually('the stream to close', () => server.openStreams() === 0);
  });

  it('reads events split anywhere, with comments and CRLF line ends', async () => {
    const feed = iterate(clientFor().plants.changes({ since: 0 }));
    const next = feed.next();
    await streamOpen();
    const data = '{"seq":1,"type":"plant.deleted","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7},"extra":true}';
    // Paced so that the pieces reach the client as separate reads: the splits are the subject.
    server.writeToStreams(':\r\n\r\nid: 1\r\nevent: plant.');
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.writeToStreams(`deleted\r\ndata: ${data.slice(0, 30)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.writeToStreams(`${data.slice(30)}\r\n\r\n`);
    expect(await next).toEqual({
      seq: 1,
      type: 'plant.deleted',
      timestamp: '2026-11-24T10:00:00.123Z',
      data: { id: 7 },
    });
    await feed.stop();
  });

  it.each([
    ['data that is not JSON', 'id: 1\nevent: plant.deleted\ndata: {nope\n\n', /is not JSON/],
    [
      'a change that does not decode',
      'id: 1\nevent: plant.deleted\ndata: {"seq":1,"type":"plant.deleted"}\n\n',
      /timestamp/,
    ],
    [
      'an id that is not the change number',
      'id: 2\nevent: plant.deleted\ndata: {"seq":1,"type":"plant.deleted","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7}}\n\n',
      /carries change 1/,
    ],
    [
      'a change at or below the position',
      'id: 3\nevent: plant.deleted\ndata: {"seq":3,"type":"plant.deleted","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":7}}\n\n',
      /change 3 came after change 5/,
    ],
  ])('ends with UnexpectedResponseError for %s', async (_what, text, message) => {
    const client = clientFor();
    for (let i = 0; i < 5; i++) await client.plants.create({ name: `p${i}` });
    const feed = iterate(client.plants.changes({ since: 5 }));
    const next = feed.next();
    await streamOpen();
    server.writeToStreams(text);
    const error = await next.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(message);
    await eventually('the stream to close', () => server.openStreams() === 0);
  });

  it('refuses a 200 that is not an event stream', async () => {
    server.enqueue(raw(200, '[]'));
    const error = await failureOf(clientFor().plants.changes({ since: 0 }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toBe('expected Content-Type: text/event-stream, got "application/json"');
  });

  it('reconnects when nothing, not even a comment, arrives within idleTimeout', async () => {
    const client = clientFor();
    // idleTimeout is 20 times the comments' interval, so that a loaded machine (CI runs the older
    // Node lines at nice 10 beside the others) does not stall the comments past it by chance.
    const feed = iterate(client.plants.changes({ since: 0, idleTimeout: 600 }));
    const next = feed.next();
    await streamOpen();
    const heartbeat = setInterval(() => server.writeToStreams(':\n\n'), 30);
    // Over twice idleTimeout with a comment every 30 ms: proves the comments keep it from reconnecting.
    await new Promise((resolve) => setTimeout(resolve, 1300));
    clearInterval(heartbeat);
    expect(retries).toEqual([]);
    await eventually('the silence to count as a lost connection', () => retries.length === 1);
    expect(retries[0]?.error).toBeInstanceOf(TimeoutError);
    expect(retries[0]?.error.message).toBe('nothing arrived on the change stream for 600 ms');
    await eventually('the reconnection', () => server.openStreams() === 1);
    await client.plants.create({ name: 'One' });
    expect((await next).seq).toBe(1);
    await feed.stop();
  });
});
