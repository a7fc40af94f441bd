import http from 'node:http';
import { ChangePage, type Change } from '@plant-store/domain';
import { until } from '@plant-store/testkit';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, jsonHeaders, request, startTestServer, type TestServer } from './support.js';

/*
 * GET /plants/changes?tag=T (docs/reference/api.md, "Watching a subset") through a listening
 * server, on both stores (the `postgres` project runs this file again): the changes of plants that
 * have the tag before or after them, `plant.left` for a plant that leaves, the same bytes as the
 * whole feed for every other change, and positions that move when nothing matches (the Link of a
 * page, a long poll, a stream's bookmarks).
 */

interface Frame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: string;
  readonly comment?: boolean;
}

interface Stream {
  readonly status: number;
  readonly frames: Frame[];
  close(): void;
}

const openStream = (server: TestServer, path: string, headers: Record<string, string> = {}): Promise<Stream> =>
  new Promise((resolve, reject) => {
    const req = http.get(
      `${server.url}${path}`,
      { headers: { accept: 'text/event-stream', ...bearer(server.tokens.all), ...headers } },
      (res) => {
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
        res.on('error', () => undefined);
        resolve({ status: res.statusCode ?? 0, frames, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
  });

/** The elements of a JSON page as the bytes the server wrote them. */
const elements = (text: string): string[] => (text === '[]' ? [] : text.slice(1, -1).split(/,(?={"seq")/));

const changesOf = (json: unknown): Change[] => {
  const decoded = ChangePage.decode(json);
  if (E.isLeft(decoded)) throw new Error(`not a page of changes: ${JSON.stringify(json)}`);
  return [...decoded.right];
};

describe('GET /plants/changes?tag=T', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ changes: { heartbeatMs: 1000 } });
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
  // Chosen ids count down from here: above every id the server assigns in this file.
  let nextId = 2 ** 40;
  const freshId = (): number => (nextId -= 1);

  it('shows the changes of plants with the tag before or after them, plant.left for one that leaves', async () => {
    const start = await newest();
    const T = 'a b/ü'; // sent form-urlencoded, as the list's tag
    const [a, b, c] = [freshId(), freshId(), freshId()];
    await createPlant(server, { id: a, name: 'fern', tag: T }); // 1 created in T
    await patch(a, { name: 'ivy' }); // 2 updated in T
    await createPlant(server, { id: b, name: 'moss', tag: 'other' }); // 3 not in T
    await patch(a, { tag: 'other' }); // 4 a leaves T
    await patch(b, { tag: T }); // 5 b enters T
    await patch(a, { name: 'palm' }); // 6 not in T
    await patch(a, { tag: T }); // 7 a enters T again
    await patch(b, { tag: null }); // 8 b leaves T
    await createPlant(server, { id: c, name: 'agave', tag: T }); // 9 created in T
    await remove(c); // 10 a plant of T deleted
    await remove(b); // 11 not in T (no tag any more)
    const whole = await read(`/plants/changes?since=${start}`);
    const all = elements(whole.text);
    expect(all).toHaveLength(11);
    const query = new URLSearchParams({ since: String(start), tag: T }).toString();
    const page = await read(`/plants/changes?${query}`);
    expect(page.status).toBe(200);
    const shown = changesOf(page.json);
    expect(shown.map((x) => [x.seq - start, x.type, x.data])).toEqual([
      [1, 'plant.created', { id: a, name: 'fern', tag: T }],
      [2, 'plant.updated', { id: a, name: 'ivy', tag: T }],
      [4, 'plant.left', { id: a }],
      [5, 'plant.updated', { id: b, name: 'moss', tag: T }],
      [7, 'plant.updated', { id: a, name: 'palm', tag: T }],
      [8, 'plant.left', { id: b }],
      [9, 'plant.created', { id: c, name: 'agave', tag: T }],
      [10, 'plant.deleted', { id: c }],
    ]);
    // Every change but plant.left is the whole feed's, byte for byte; plant.left keeps its
    // number and time, and names only the plant.
    const texts = elements(page.text);
    shown.forEach((x, i) => {
      const original = all[x.seq - start - 1] as string;
      if (x.type !== 'plant.left') expect(texts[i]).toBe(original);
      else {
        const { timestamp } = JSON.parse(original) as { timestamp: string };
        expect(texts[i]).toBe(
          `{"seq":${x.seq},"type":"plant.left","timestamp":"${timestamp}","data":{"id":${x.data.id}}}`,
        );
      }
    });
    // Not full: the Link moves to the newest number the answer saw (11), the tag encoded as the
    // list's Link encodes it.
    expect(page.headers['link']).toBe(`</plants/changes?since=${start + 11}&tag=a+b%2F%C3%BC&limit=100>; rel="next"`);
    // Full: it stops at the last change.
    const full = await read(`/plants/changes?${query}&limit=3`);
    expect(changesOf(full.json).map((x) => x.seq - start)).toEqual([1, 2, 4]);
    expect(full.headers['link']).toBe(`</plants/changes?since=${start + 4}&tag=a+b%2F%C3%BC&limit=3>; rel="next"`);
    const next = await read(`/plants/changes?since=${start + 4}&tag=a+b%2F%C3%BC&limit=3`);
    expect(changesOf(next.json).map((x) => x.seq - start)).toEqual([5, 7, 8]);
  });

  it('moves an empty page to the newest number when nothing of the tag changed', async () => {
    const start = await newest();
    for (let i = 0; i < 5; i++) await createPlant(server, { name: `elsewhere ${i}`, tag: 'elsewhere' });
    const page = await read(`/plants/changes?since=${start}&tag=quiet`);
    expect(page.json).toEqual([]);
    expect(page.headers['link']).toBe(`</plants/changes?since=${start + 5}&tag=quiet&limit=100>; rel="next"`);
    // Without since: from now on, like the whole feed.
    const now = await read('/plants/changes?tag=quiet');
    expect(now.headers['link']).toBe(`</plants/changes?since=${start + 5}&tag=quiet&limit=100>; rel="next"`);
  });

  it('holds a long poll of a subset until a change of the tag arrives', async () => {
    const start = await newest();
    const polled = read(`/plants/changes?since=${start}&tag=awaited&wait=10`);
    await until('the long poll to be held', () => server.changeHub.size === 1);
    // Changes it does not show reach the poll (the hub hands every change over) and do not answer it.
    await createPlant(server, { name: 'not it', tag: 'elsewhere' });
    await createPlant(server, { name: 'not it either' });
    const id = freshId();
    await createPlant(server, { id, name: 'it', tag: 'awaited' });
    const answer = await polled;
    expect(changesOf(answer.json).map((x) => [x.seq - start, x.type, x.data])).toEqual([
      [3, 'plant.created', { id, name: 'it', tag: 'awaited' }],
    ]);
    expect(answer.headers['link']).toBe(`</plants/changes?since=${start + 3}&tag=awaited&limit=100>; rel="next"`);
  });

  it('ends a long poll of a subset with an empty page that moved past the changes it passed', async () => {
    const start = await newest();
    const polled = read(`/plants/changes?since=${start}&tag=never&wait=2`);
    await until('the long poll to be held', () => server.changeHub.size === 1);
    await createPlant(server, { name: 'passed', tag: 'elsewhere' });
    const answer = await polled;
    expect(answer.json).toEqual([]);
    expect(answer.headers['link']).toBe(`</plants/changes?since=${start + 1}&tag=never&limit=100>; rel="next"`);
  });

  it('streams the changes of the tag, and bookmarks where it stands after changes it did not send', async () => {
    const start = await newest();
    const a = freshId();
    await createPlant(server, { id: a, name: 'before', tag: 'streamed' });
    await createPlant(server, { name: 'elsewhere', tag: 'elsewhere' });
    const stream = await openStream(server, `/plants/changes?since=${start}&tag=streamed`);
    try {
      expect(stream.status).toBe(200);
      await until('the first change', () => stream.frames.length >= 2);
      expect(stream.frames[0]).toEqual({ retry: '2000' });
      const first = stream.frames[1] as Frame;
      expect([first.id, first.event]).toEqual([String(start + 1), 'plant.created']);
      expect(`[${first.data}]`).toBe((await read(`/plants/changes?since=${start}&limit=1`)).text);
      // It read through change 2 (not its tag) before it opened: a bookmark says so.
      await until('a bookmark', () => stream.frames.some((f) => f.event === 'bookmark'), 5000);
      const mark = stream.frames.find((f) => f.event === 'bookmark') as Frame;
      expect(mark).toEqual({ id: String(start + 2), event: 'bookmark', data: `{"seq":${start + 2}}` });
      // A change that takes the plant away, then quiet elsewhere: plant.left, then a bookmark past it all.
      await patch(a, { tag: 'gone' });
      for (let i = 0; i < 3; i++) await createPlant(server, { name: `elsewhere ${i}` });
      await until('plant.left', () => stream.frames.some((f) => f.event === 'plant.left'), 3000);
      const left = stream.frames.find((f) => f.event === 'plant.left') as Frame;
      expect(left.id).toBe(String(start + 3));
      expect(JSON.parse(left.data as string)).toMatchObject({ seq: start + 3, type: 'plant.left', data: { id: a } });
      await until(
        'a bookmark past the quiet changes',
        () => stream.frames.some((f) => f.event === 'bookmark' && f.id === String(start + 6)),
        5000,
      );
      // Every event id the stream sent increases: a client resuming from any of them misses nothing.
      const ids = stream.frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));
      expect(ids).toEqual([...new Set(ids)].sort((x, y) => x - y));
    } finally {
      stream.close();
    }
    // Resumed from the bookmark: nothing it passed comes again.
    const resumed = await read(`/plants/changes?tag=streamed`, { 'last-event-id': String(start + 6) });
    expect(resumed.json).toEqual([]);
  });

  it('refuses what it cannot answer, judged by the position: 400, 406', async () => {
    const start = await newest();
    for (const bad of ['tag=', 'tag=a&tag=b', `tag=${'x'.repeat(101)}`, 'tag=%ZZ', 'tag']) {
      const answer = await read(`/plants/changes?${bad}`);
      expect(answer.status, bad).toBe(400);
      expect((answer.json as { message: string }).message, bad).toMatch(/tag/);
    }
    const ahead = await read(`/plants/changes?since=${start + 5}&tag=x`);
    expect(ahead.json).toEqual({
      error: 400,
      message: `since: ${start + 5} is above the newest change number, ${start}`,
    });
    expect((await read('/plants/changes?tag=x', { accept: 'text/html' })).status).toBe(406);
  });
});

describe('GET /plants/changes?tag=T past the retention', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A retention of 1 ms: every change is older than it by the time it is read.
    server = await startTestServer({ changes: { retentionMs: 1 } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 410 when a change of any tag above since is older than the retention, not only one of its own', async () => {
    const before = Number(
      (await request(server, '/plants?limit=1', { headers: bearer(server.tokens.all) })).headers['x-change-seq'],
    );
    await createPlant(server, { name: 'elsewhere', tag: 'elsewhere' });
    await new Promise((resolve) => setTimeout(resolve, 5)); // older than the retention
    const expired = await request(server, `/plants/changes?since=${before}&tag=quiet`, {
      headers: bearer(server.tokens.all),
    });
    expect(expired.status).toBe(410);
    // From the newest number, nothing above it has expired.
    const fresh = await request(server, `/plants/changes?since=${before + 1}&tag=quiet`, {
      headers: bearer(server.tokens.all),
    });
    expect([fresh.status, fresh.json]).toEqual([200, []]);
  });
});
