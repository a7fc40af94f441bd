import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, jsonHeaders, request, startTestServer, type TestServer } from './support.js';

/*
 * `X-Change-Seq` (docs/guides/changes.md, "List, then follow: an exact copy") through a listening
 * server, on both stores (the `postgres` project runs this file again): every list page and every
 * plant carries the number of the newest change its answer includes, and every successful write
 * the number of its own change (docs/reference/api.md, "Every write says where it is in the log").
 */

const seqOf = (headers: Record<string, unknown>): number => {
  const value = headers['x-change-seq'];
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]*)$/.test(value)) throw new Error(`X-Change-Seq ${String(value)}`);
  return Number(value);
};

describe('X-Change-Seq', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const read = (path: string) => request(server, path, { headers: bearer(server.tokens.all) });

  it('counts each committed change, and not a patch that changes nothing', async () => {
    const start = seqOf((await read('/plants?limit=1')).headers);
    const created = await createPlant(server, { id: 9001, name: 'fern', tag: 'green' });
    expect(created.status).toBe(201);
    const afterCreate = await read('/plants/9001');
    expect(afterCreate.status).toBe(200);
    expect(seqOf(afterCreate.headers)).toBe(start + 1);
    const patch = (body: unknown) =>
      request(server, '/plants/9001', {
        method: 'PATCH',
        headers: { ...jsonHeaders(server.tokens.all), 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify(body),
      });
    expect((await patch({ name: 'ivy' })).status).toBe(200);
    expect(seqOf((await read('/plants/9001')).headers)).toBe(start + 2);
    expect((await patch({ name: 'ivy' })).status).toBe(200);
    expect(seqOf((await read('/plants/9001')).headers)).toBe(start + 2);
    const page = await read('/plants?after=9000&limit=5');
    expect(page.json).toEqual([{ id: 9001, name: 'ivy', tag: 'green' }]);
    expect(seqOf(page.headers)).toBe(start + 2);
    expect(
      (await request(server, '/plants/9001', { method: 'DELETE', headers: bearer(server.tokens.all) })).status,
    ).toBe(204);
    // An empty page says where it stands too, and so does a 404: it read a snapshot.
    const empty = await read('/plants?after=9000&limit=5');
    expect(empty.json).toEqual([]);
    expect(seqOf(empty.headers)).toBe(start + 3);
    const missing = await read('/plants/9001');
    expect(missing.status).toBe(404);
    expect(seqOf(missing.headers)).toBe(start + 3);
  });

  it("is on every write's answer: the number of the change it made, or the newest when it changed nothing", async () => {
    const all = server.tokens.all;
    const write = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      request(server, path, {
        method,
        headers: { ...jsonHeaders(all), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const start = seqOf((await read('/plants?limit=1')).headers);
    const created = await createPlant(server, { id: 9201, name: 'fern' });
    expect([created.status, seqOf(created.headers)]).toEqual([201, start + 1]);
    // Assigned above the highest id stored: 9202.
    const assigned = await createPlant(server, { name: 'assigned' });
    expect([assigned.status, assigned.headers.location, seqOf(assigned.headers)]).toEqual([
      201,
      '/plants/9202',
      start + 2,
    ]);
    const patched = await write('PATCH', '/plants/9201', { tag: 'green' });
    expect([patched.status, seqOf(patched.headers)]).toEqual([200, start + 3]);
    const samePatch = await write('PATCH', '/plants/9201', { tag: 'green' });
    expect([samePatch.status, seqOf(samePatch.headers)]).toEqual([200, start + 3]);
    const replaced = await write('PUT', '/plants/9201', { name: 'ivy' });
    expect([replaced.status, seqOf(replaced.headers)]).toEqual([200, start + 4]);
    const samePut = await write('PUT', '/plants/9201', { name: 'ivy' });
    expect([samePut.status, seqOf(samePut.headers)]).toEqual([200, start + 4]);
    const put = await write('PUT', '/plants/9199', { name: 'new' });
    expect([put.status, seqOf(put.headers)]).toEqual([201, start + 5]);
    const deleted = await write('DELETE', '/plants/9201');
    expect([deleted.status, seqOf(deleted.headers)]).toEqual([204, start + 6]);
    // Each number is the change of that write, as the feed shows it.
    const feed = (await read(`/plants/changes?since=${start}`)).json as { seq: number; type: string; data: unknown }[];
    expect(feed.map(({ seq, type, data }) => ({ seq, type, data }))).toEqual([
      { seq: start + 1, type: 'plant.created', data: { id: 9201, name: 'fern' } },
      { seq: start + 2, type: 'plant.created', data: { id: 9202, name: 'assigned' } },
      { seq: start + 3, type: 'plant.updated', data: { id: 9201, name: 'fern', tag: 'green' } },
      { seq: start + 4, type: 'plant.updated', data: { id: 9201, name: 'ivy' } },
      { seq: start + 5, type: 'plant.created', data: { id: 9199, name: 'new' } },
      { seq: start + 6, type: 'plant.deleted', data: { id: 9201 } },
    ]);
    // A failed write says nothing of the log.
    const conflict = await createPlant(server, { id: 9199, name: 'taken' });
    expect(conflict.status).toBe(409);
    expect(conflict.headers['x-change-seq']).toBeUndefined();
  });

  it('is on a replayed 201: the number the first answer had', async () => {
    const keyed = (body: unknown) =>
      request(server, '/plants', {
        method: 'POST',
        headers: { ...jsonHeaders(server.tokens.all), 'idempotency-key': 'change-seq-replay' },
        body: JSON.stringify(body),
      });
    const first = await keyed({ id: 9301, name: 'keyed' });
    expect(first.status).toBe(201);
    expect((await createPlant(server, { id: 9302, name: 'later' })).status).toBe(201);
    const again = await keyed({ id: 9301, name: 'keyed' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(seqOf(again.headers)).toBe(seqOf(first.headers));
  });

  it('is on the 304 and 412 of a get, with the number of the snapshot they read', async () => {
    const created = await createPlant(server, { id: 9401, name: 'cached' });
    const etag = String(created.headers.etag);
    const newest = seqOf((await read('/plants?limit=1')).headers);
    const conditional = (headers: Record<string, string>) =>
      request(server, '/plants/9401', { headers: { ...bearer(server.tokens.all), ...headers } });
    const notModified = await conditional({ 'if-none-match': etag });
    expect([notModified.status, seqOf(notModified.headers)]).toEqual([304, newest]);
    const failed = await conditional({ 'if-match': '"other"' });
    expect([failed.status, seqOf(failed.headers)]).toEqual([412, newest]);
    const head = await request(server, '/plants/9401', {
      method: 'HEAD',
      headers: { ...bearer(server.tokens.all), 'if-none-match': '*' },
    });
    expect([head.status, seqOf(head.headers)]).toEqual([304, newest]);
  });

  it('is on every page of a walk, and never goes back', async () => {
    for (let id = 9101; id <= 9105; id++) expect((await createPlant(server, { id, name: `p${id}` })).status).toBe(201);
    let last = 0;
    for (const after of [9100, 9102, 9104]) {
      const seq = seqOf((await read(`/plants?after=${after}&limit=2`)).headers);
      expect(seq).toBeGreaterThanOrEqual(last);
      last = seq;
    }
  });
});
