import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, jsonHeaders, request, startTestServer, type TestServer } from './support.js';

/*
 * `X-Change-Seq` (docs/guides/changes.md, "List, then follow: an exact copy") through a listening
 * server, on both stores (the `postgres` project runs this file again): every list page and every
 * plant carries the number of the newest change its answer includes.
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
    // An empty page says where it stands too; a 404 carries no number.
    const empty = await read('/plants?after=9000&limit=5');
    expect(empty.json).toEqual([]);
    expect(seqOf(empty.headers)).toBe(start + 3);
    expect((await read('/plants/9001')).headers['x-change-seq']).toBeUndefined();
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
