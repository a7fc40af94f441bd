import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, expectError, request, startTestServer, type Reply, type TestServer } from './support.js';

// docs/reference/api.md, "Replacing a plant", through a listening server: PUT /plants/{id} creates
// or replaces, with If-Match / If-None-Match, and its events in the change log. Both stores: the
// `postgres` project runs this file again.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const put = (
  id: number | string,
  body: unknown,
  headers: Record<string, string> = {},
  token = server.tokens.all,
): Promise<Reply> =>
  request(server, `/plants/${id}`, {
    method: 'PUT',
    headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
const get = (id: number | string, headers: Record<string, string> = {}): Promise<Reply> =>
  request(server, `/plants/${id}`, { headers: { ...bearer(server.tokens.all), ...headers } });

/** The X-Change-Seq of an answer, which must be there. */
const seqOf = (reply: Reply): number => {
  const value = reply.headers['x-change-seq'];
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]*)$/.test(value))
    throw new Error(`X-Change-Seq ${String(value)} on a ${reply.status}`);
  return Number(value);
};
const newest = async (): Promise<number> =>
  seqOf(await request(server, '/plants?limit=1', { headers: bearer(server.tokens.all) }));

/** The changes numbered above `since`, as the feed's JSON form gives them. */
const changesAbove = async (since: number): Promise<{ seq: number; type: string; data: unknown; etag?: string }[]> =>
  (
    await request(server, `/plants/changes?since=${since}&limit=1000`, {
      headers: { ...bearer(server.tokens.all), accept: 'application/json' },
    })
  ).json as { seq: number; type: string; data: unknown; etag?: string }[];

// Counting down from a random high id: the server assigns ids above the highest one stored, so an
// id below the first one this file chose is never taken by a server-assigned create.
let nextId = 2 ** 41 + Math.floor(Math.random() * 2 ** 30);
const freshId = (): number => (nextId -= 1);

describe('PUT /plants/{id}', () => {
  it('creates an absent plant: 201 with Location, ETag, X-Change-Seq and the whole plant', async () => {
    const id = freshId();
    const before = await newest();
    const reply = await put(id, { name: 'Ficus lyrata', tag: 'living room' });
    expect(reply.status).toBe(201);
    expect(reply.headers.location).toBe(`/plants/${id}`);
    expect(reply.headers.etag).toMatch(/^"[0-9a-z]+"$/);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.json).toEqual({ id, name: 'Ficus lyrata', tag: 'living room' });
    expect(seqOf(reply)).toBe(before + 1);
    const read = await get(id);
    expect(read.json).toEqual(reply.json);
    expect(read.headers.etag).toBe(reply.headers.etag);
    expect(await changesAbove(before)).toEqual([
      {
        seq: before + 1,
        type: 'plant.created',
        timestamp: expect.any(String),
        data: { id, name: 'Ficus lyrata', tag: 'living room' },
        etag: reply.headers.etag,
      },
    ]);
  });

  it('replaces an existing plant whole: 200, a new ETag, and a member left out is removed', async () => {
    const created = await createPlant(server, { id: freshId(), name: 'Monstera', tag: 'tropical' });
    const id = Number(String(created.headers.location).split('/')[2]);
    const before = await newest();
    const reply = await put(id, { name: 'Monstera deliciosa' });
    expect(reply.status).toBe(200);
    expect(reply.headers.location).toBeUndefined();
    expect(reply.json).toEqual({ id, name: 'Monstera deliciosa' });
    expect(reply.text).not.toContain('tag');
    expect(reply.headers.etag).not.toBe(created.headers.etag);
    expect(seqOf(reply)).toBe(before + 1);
    expect((await get(id)).json).toEqual({ id, name: 'Monstera deliciosa' });
    expect((await changesAbove(before)).map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'plant.updated', data: { id, name: 'Monstera deliciosa' } },
    ]);
  });

  it('changes nothing when the body is what the plant already is: same ETag, no change, the newest number', async () => {
    const id = freshId();
    const first = await put(id, { name: 'Same', tag: 't' });
    const before = await newest();
    const again = await put(id, { tag: 't', name: 'Same' });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ id, name: 'Same', tag: 't' });
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(seqOf(again)).toBe(before);
    expect(await newest()).toBe(before);
  });

  it.each([
    [{ id: 5, name: 'x' }, 'id: cannot be changed'],
    [{ name: 'x', tag: null }, 'tag: expected a string, got null'],
    [{ name: null }, 'name: expected a string, got null'],
    [{ tag: 'x' }, 'name: required'],
    [{ name: '' }, 'name: expected 1–200 characters, got 0'],
    [{ name: 'x', colour: 'green' }, 'colour: unknown member'],
    [[], 'expected a JSON object'],
    ['null', 'expected a JSON object'],
    ['{"name":', 'not valid JSON'],
  ])('answers %j with 400 naming the problem, and changes nothing', async (body, message) => {
    const id = freshId();
    const first = await put(id, { name: 'Unchanged', tag: 'kept' });
    expectError(await put(id, body), 400, message);
    const read = await get(id);
    expect(read.json).toEqual({ id, name: 'Unchanged', tag: 'kept' });
    expect(read.headers.etag).toBe(first.headers.etag);
  });

  it("takes create's media type and body rules: 415, 413, invalid UTF-8, a bad id", async () => {
    const id = freshId();
    for (const type of ['text/plain', 'application/merge-patch+json', 'application/json; charset=latin1'])
      expectError(
        await put(id, { name: 'x' }, { 'content-type': type }),
        415,
        'expected Content-Type application/json',
      );
    expectError(await put(id, { name: 'x' }, { 'content-encoding': 'gzip' }), 415);
    expect((await put(id, { name: 'x' }, { 'content-type': 'Application/JSON; charset="UTF-8"' })).status).toBe(201);
    expectError(await put(id, JSON.stringify({ name: 'x'.repeat(20_000) })), 413);
    expectError(
      await put(id, Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])),
      400,
      'not valid UTF-8',
    );
    expectError(await put('07', { name: 'x' }), 400, /^id: /);
    expectError(await put('9007199254740992', { name: 'x' }), 400, /^id: /);
  });

  it('needs plants:write, checked before the body', async () => {
    const id = freshId();
    expectError(await put(id, { name: 'x' }, {}, server.tokens.read), 403);
    const anonymous = await request(server, `/plants/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'not json',
    });
    expectError(anonymous, 401);
    expect((await get(id)).status).toBe(404);
  });

  it('accepts an Idempotency-Key and ignores it: PUT is idempotent by itself', async () => {
    const id = freshId();
    const first = await put(id, { name: 'one' }, { 'idempotency-key': 'put-key' });
    expect(first.status).toBe(201);
    const second = await put(id, { name: 'two' }, { 'idempotency-key': 'put-key' });
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ id, name: 'two' });
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    // Even a key a create would refuse is no concern of a PUT.
    expect((await put(id, { name: 'three' }, { 'idempotency-key': 'not a key' })).status).toBe(200);
  });
});

describe('PUT /plants/{id} with preconditions', () => {
  it('If-None-Match: * creates only: 201 when absent, 412 when present', async () => {
    const id = freshId();
    const created = await put(id, { name: 'first' }, { 'if-none-match': '*' });
    expect(created.status).toBe(201);
    expectError(await put(id, { name: 'second' }, { 'if-none-match': '*' }), 412, `plant ${id} matches If-None-Match`);
    expect((await get(id)).json).toEqual({ id, name: 'first' });
  });

  it('If-Match on an absent plant is 412, never 404, and creates nothing', async () => {
    for (const value of ['*', '"abc"', 'W/"abc"']) {
      const id = freshId();
      expectError(
        await put(id, { name: 'x' }, { 'if-match': value }),
        412,
        `no plant with id ${id}: If-Match needs an existing plant`,
      );
      expect((await get(id)).status).toBe(404);
    }
  });

  it('If-Match replaces only the plant with that ETag (strong comparison), or any with *', async () => {
    const id = freshId();
    const { headers } = await put(id, { name: 'v1' });
    const etag = String(headers.etag);
    expectError(await put(id, { name: 'no' }, { 'if-match': '"stale"' }), 412, 'If-Match');
    expectError(await put(id, { name: 'no' }, { 'if-match': `W/${etag}` }), 412, 'If-Match');
    const replaced = await put(id, { name: 'v2' }, { 'if-match': `"other", ${etag}` });
    expect(replaced.status).toBe(200);
    expectError(await put(id, { name: 'no' }, { 'if-match': etag }), 412, 'If-Match');
    expect((await put(id, { name: 'v3' }, { 'if-match': '*' })).status).toBe(200);
    expect((await get(id)).json).toEqual({ id, name: 'v3' });
  });

  it('If-None-Match with an ETag: 412 when it matches the plant (weakly), else the PUT proceeds', async () => {
    const id = freshId();
    const etag = String((await put(id, { name: 'v1' })).headers.etag);
    expectError(await put(id, { name: 'no' }, { 'if-none-match': `W/${etag}` }), 412, 'If-None-Match');
    expect((await put(id, { name: 'v2' }, { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await put(freshId(), { name: 'new' }, { 'if-none-match': etag })).status).toBe(201);
  });

  it('answers a malformed If-Match or If-None-Match with 400', async () => {
    expectError(await put(freshId(), { name: 'x' }, { 'if-match': 'abc' }), 400, 'If-Match');
    expectError(await put(freshId(), { name: 'x' }, { 'if-none-match': '"a' }), 400, 'If-None-Match');
  });
});

describe('concurrent PUTs of one new id', () => {
  it('create it exactly once: one 201, the others 200, each the plant its own body made', async () => {
    const id = freshId();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => put(id, { name: `writer ${i}` })));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(19);
    replies.forEach((r, i) => expect(r.json).toEqual({ id, name: `writer ${i}` }));
    expect(new Set(replies.map((r) => r.headers.etag)).size).toBe(20);
    expect(new Set(replies.map(seqOf)).size).toBe(20);
    // The plant is the last of them in the change log.
    const last = replies.reduce((a, b) => (seqOf(a) > seqOf(b) ? a : b));
    const read = await get(id);
    expect(read.json).toEqual(last.json);
    expect(read.headers.etag).toBe(last.headers.etag);
  });

  it('with If-None-Match: * create it exactly once, and every other one is 412', async () => {
    const id = freshId();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => put(id, { name: `writer ${i}` }, { 'if-none-match': '*' })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([201, ...Array<number>(19).fill(412)]);
  });
});
