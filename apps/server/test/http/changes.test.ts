import http from 'node:http';
import { ChangePage, type Change } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, jsonHeaders, request, startTestServer, type TestServer } from './support.js';
import { until } from '@plant-store/testkit';

/*
 * GET /plants/changes (docs/reference/api.md, "Follow the changes") through a listening server, on
 * both stores (the `postgres` project runs this file again): JSON pages, long polls, the stream,
 * and the answers that refuse.
 */

interface Frame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
  readonly comment?: boolean;
}

/** An open `text/event-stream` answer, its frames parsed as they come. */
interface Stream {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly frames: Frame[];
  /** Resolves once the server ended the answer (cleanly: `complete`). */
  readonly ended: Promise<{ readonly complete: boolean }>;
  close(): void;
}

const openStream = (server: TestServer, path: string, headers: Record<string, string>): Promise<Stream> =>
  new Promise((resolve, reject) => {
    const req = http.get(`${server.url}${path}`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const frames: Frame[] = [];
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const frame: Record<string, string | boolean> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame['comment'] = true;
            else {
              const colon = line.indexOf(': ');
              frame[line.slice(0, colon)] = line.slice(colon + 2);
            }
          }
          frames.push(frame as Frame);
        }
      });
      const ended = new Promise<{ complete: boolean }>((done) => {
        res.on('end', () => done({ complete: res.complete }));
        res.on('error', () => done({ complete: false }));
        res.on('aborted', () => done({ complete: false }));
      });
      resolve({ status: res.statusCode ?? 0, headers: res.headers, frames, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
  });

const changesOf = (json: unknown): Change[] => {
  const decoded = ChangePage.decode(json);
  if (E.isLeft(decoded)) throw new Error(`not a page of changes: ${JSON.stringify(json)}`);
  return [...decoded.right];
};

describe('GET /plants/changes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ changes: { heartbeatMs: 1000, maxStreams: 3 } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const read = (path: string, headers: Record<string, string> = {}) =>
    request(server, path, { headers: { ...bearer(server.tokens.all), ...headers } });
  const patch = (id: number, body: unknown) =>
    request(server, `/plants/${id}`, {
      method: 'PATCH',
      headers: { ...jsonHeaders(server.tokens.all), 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify(body),
    });
  const remove = (id: number) =>
    request(server, `/plants/${id}`, { method: 'DELETE', headers: bearer(server.tokens.all) });
  const newest = async (): Promise<number> => Number((await read('/plants?limit=1')).headers['x-change-seq']);

  it('pages every change above since, in order, the same bytes on every read', async () => {
    const start = await newest();
    const etags = [
      (await createPlant(server, { id: 501, name: 'fern', tag: 'green' })).headers['etag'],
      (await patch(501, { name: 'ivy' })).headers['etag'],
    ];
    await patch(501, { name: 'ivy' }); // changes nothing: no change
    etags.push((await createPlant(server, { id: 502, name: 'moss' })).headers['etag'], undefined);
    await remove(501);
    const page = await read(`/plants/changes?since=${start}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
    const changes = changesOf(page.json);
    expect(changes.map((c) => [c.seq - start, c.type, c.data])).toEqual([
      [1, 'plant.created', { id: 501, name: 'fern', tag: 'green' }],
      [2, 'plant.updated', { id: 501, name: 'ivy', tag: 'green' }],
      [3, 'plant.created', { id: 502, name: 'moss' }],
      [4, 'plant.deleted', { id: 501 }],
    ]);
    // Each change carries the ETag its write answered with.
    expect(changes.map((c) => ('etag' in c ? c.etag : undefined))).toEqual(etags);
    expect(page.headers['link']).toBe(`</plants/changes?since=${start + 4}&limit=100>; rel="next"`);
    const again = await read(`/plants/changes?since=${start}&limit=2`);
    expect(again.text).toBe(
      `[${page.text
        .slice(1, -1)
        .split(/,(?={"seq")/)
        .slice(0, 2)
        .join(',')}]`,
    );
    expect(again.headers['link']).toBe(`</plants/changes?since=${start + 2}&limit=2>; rel="next"`);
    // Above the newest change: an empty page whose Link stays where it was.
    const empty = await read(`/plants/changes?since=${start + 4}&limit=7`);
    expect(empty.json).toEqual([]);
    expect(empty.headers['link']).toBe(`</plants/changes?since=${start + 4}&limit=7>; rel="next"`);
  });

  it('answers from now on without since, and Last-Event-ID wins over since', async () => {
    const start = await newest();
    const now = await read('/plants/changes');
    expect(now.json).toEqual([]);
    expect(now.headers['link']).toBe(`</plants/changes?since=${start}&limit=100>; rel="next"`);
    await createPlant(server, { name: 'after' });
    const resumed = await read('/plants/changes?since=0', { 'last-event-id': String(start) });
    expect(changesOf(resumed.json).map((c) => c.seq)).toEqual([start + 1]);
  });

  it('holds a long poll until a change arrives', async () => {
    const start = await newest();
    const holdEnds = Date.now() + 5000; // wait=5 runs out after this, on the server's clock too
    const polled = read(`/plants/changes?since=${start}&wait=5`);
    await until('the long poll to be held', () => server.changeHub.size === 1);
    const created = await createPlant(server, { name: 'awaited' });
    const answer = await polled;
    expect(created.status).toBe(201);
    // Answered by the change, not by the wait running out.
    expect(Date.now()).toBeLessThan(holdEnds);
    expect(changesOf(answer.json).map((c) => [c.seq, c.data])).toEqual([
      [start + 1, { id: expect.any(Number), name: 'awaited' }],
    ]);
    expect(answer.headers['link']).toBe(`</plants/changes?since=${start + 1}&limit=100>; rel="next"`);
  });

  it('ends a long poll with an empty page when nothing comes', async () => {
    const start = await newest();
    const answer = await read(`/plants/changes?since=${start}&wait=1`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([]);
  });

  it('refuses what it cannot answer: 400, 406, 401', async () => {
    const start = await newest();
    const ahead = await read(`/plants/changes?since=${start + 5}`);
    expect(ahead.status).toBe(400);
    expect(ahead.json).toEqual({
      error: 400,
      message: `since: ${start + 5} is above the newest change number, ${start}`,
    });
    const aheadHeader = await read('/plants/changes', { 'last-event-id': String(start + 1) });
    expect((aheadHeader.json as { message: string }).message).toMatch(/^Last-Event-ID: /);
    for (const bad of [
      'since=-1',
      'since=01',
      'since=',
      'since=1&since=2',
      'limit=0',
      'wait=31',
      'wait=0',
      'sort=id',
    ]) {
      const answer = await read(`/plants/changes?${bad}`);
      expect(answer.status, bad).toBe(400);
    }
    expect((await read('/plants/changes', { 'last-event-id': 'x' })).status).toBe(400);
    const html = await read('/plants/changes', { accept: 'text/html' });
    expect(html.status).toBe(406);
    expect(html.json).toEqual({
      error: 406,
      message: 'GET /plants/changes answers application/json or text/event-stream',
    });
    expect((await request(server, '/plants/changes')).status).toBe(401);
    expect((await read('/plants/changes', { authorization: `Bearer ${server.tokens.write}` })).status).toBe(403);
  });

  it('streams the changes above since, then each new one, with heartbeats', async () => {
    const start = await newest();
    await createPlant(server, { id: 601, name: 'before' });
    const stream = await openStream(server, `/plants/changes?since=${start}`, bearer(server.tokens.all));
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      expect(stream.headers['cache-control']).toBe('no-store');
      expect(stream.headers['content-encoding']).toBeUndefined();
      await until('the first change', () => stream.frames.length >= 2);
      expect(stream.frames[0]).toEqual({ retry: '2000' });
      const first = stream.frames[1] as Frame;
      expect(first.id).toBe(String(start + 1));
      expect(first.event).toBe('plant.created');
      const page = await read(`/plants/changes?since=${start}&limit=1`);
      expect(`[${first.data}]`).toBe(page.text);
      await patch(601, { tag: 'shade' });
      await until('the patch', () => stream.frames.some((f) => f.id === String(start + 2)), 1000);
      const updated = stream.frames.find((f) => f.id === String(start + 2)) as Frame;
      expect(updated.event).toBe('plant.updated');
      expect(JSON.parse(updated.data as string)).toMatchObject({ data: { id: 601, name: 'before', tag: 'shade' } });
      await until('a heartbeat', () => stream.frames.some((f) => f.comment === true), 3000);
    } finally {
      stream.close();
    }
  });

  it('caps streams and long polls per instance with a 503 and Retry-After', async () => {
    const streams = await Promise.all(
      [1, 2, 3].map(() => openStream(server, '/plants/changes', bearer(server.tokens.all))),
    );
    try {
      expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
      const refused = await read('/plants/changes', { accept: 'text/event-stream' });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      const longPoll = await read('/plants/changes?wait=1');
      expect(longPoll.status).toBe(503);
      // A page that does not wait is not held: it is answered.
      expect((await read('/plants/changes')).status).toBe(200);
    } finally {
      for (const stream of streams) stream.close();
    }
    await until('the cap freed', async () => (await read('/plants/changes?wait=1')).status === 200);
  });

  it('ends a stream within 5 s of its token being revoked', async () => {
    const token = server.tokens.read;
    const stream = await openStream(server, '/plants/changes', bearer(token));
    expect(stream.status).toBe(200);
    const revokedAt = Date.now();
    await server.store.tokens.revoke('read', new Date())();
    const end = await stream.ended;
    expect(end.complete).toBe(true);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
    expect((await read('/plants/changes', { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('ends every stream and long poll cleanly when the hub closes (the start of a shutdown)', async () => {
    const stream = await openStream(server, '/plants/changes', bearer(server.tokens.all));
    const polled = read(`/plants/changes?since=${await newest()}&wait=10`);
    await until('both held', () => server.changeHub.size === 2);
    const closedAt = Date.now();
    server.changeHub.close();
    expect(await stream.ended).toEqual({ complete: true });
    const answer = await polled;
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([]);
    expect(Date.now() - closedAt).toBeLessThan(1000);
  });
});
