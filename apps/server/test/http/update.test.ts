import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, expectError, request, startTestServer, type Reply, type TestServer } from './support.js';

// docs/reference/api.md through a listening server: PATCH (JSON Merge Patch), ETags with If-Match /
// If-None-Match, and the tag filter. Both stores: the `postgres` project runs this file again.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const MERGE_PATCH = 'application/merge-patch+json';

const patch = (
  id: number | string,
  body: unknown,
  headers: Record<string, string> = {},
  token = server.tokens.all,
): Promise<Reply> =>
  request(server, `/plants/${id}`, {
    method: 'PATCH',
    headers: { ...bearer(token), 'content-type': MERGE_PATCH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const get = (id: number | string, headers: Record<string, string> = {}): Promise<Reply> =>
  request(server, `/plants/${id}`, { headers: { ...bearer(server.tokens.all), ...headers } });
const del = (id: number | string, headers: Record<string, string> = {}): Promise<Reply> =>
  request(server, `/plants/${id}`, { method: 'DELETE', headers: { ...bearer(server.tokens.all), ...headers } });

/** Creates a plant and returns its id and the ETag of the 201. */
const created = async (body: Record<string, unknown>): Promise<{ id: number; etag: string }> => {
  const reply = await createPlant(server, body);
  expect(reply.status).toBe(201);
  return { id: Number((reply.headers.location as string).split('/')[2]), etag: reply.headers.etag as string };
};

// Counting down from a random high id: the server assigns ids above the highest one stored, so an
// id below the first one this file chose is never taken by a server-assigned create.
let nextId = 2 ** 40 + Math.floor(Math.random() * 2 ** 30);
const freshId = (): number => (nextId -= 1);

describe('ETag', () => {
  it('is on the 201, the GET 200 and the PATCH 200: strong, quoted, the same for the same plant', async () => {
    const { id, etag } = await created({ name: 'Fern', tag: 'green' });
    expect(etag).toMatch(/^"[0-9a-z]+"$/);
    const read = await get(id);
    expect(read.headers.etag).toBe(etag);
    expect(read.json).toEqual({ id, name: 'Fern', tag: 'green' });
    const changed = await patch(id, { name: 'Fern II' });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect((await get(id)).headers.etag).toBe(changed.headers.etag);
  });

  it('stays when a patch sets the values the plant already has, and changes when one changes it', async () => {
    const { id, etag } = await created({ name: 'Same', tag: 't' });
    for (const body of [{}, { name: 'Same' }, { tag: 't' }]) {
      const reply = await patch(id, body);
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ id, name: 'Same', tag: 't' });
      expect(reply.headers.etag).toBe(etag);
    }
    const untagged = await patch(id, { tag: null });
    expect(untagged.json).toEqual({ id, name: 'Same' });
    expect(untagged.headers.etag).not.toBe(etag);
    const back = await patch(id, { tag: 't' });
    expect([etag, untagged.headers.etag]).not.toContain(back.headers.etag);
  });

  it('is never given again to a plant with the same id after a delete and re-create', async () => {
    const id = freshId();
    const seen = new Set<string>();
    for (let round = 0; round < 3; round += 1) {
      seen.add((await created({ id, name: 'again' })).etag);
      seen.add((await patch(id, { name: `changed ${round}` })).headers.etag as string);
      expect((await del(id)).status).toBe(204);
    }
    expect(seen.size).toBe(6);
  });

  it('is on a replayed 201 too, the one the first answer had', async () => {
    const key = `etag-replay-${freshId()}`;
    const first = await request(server, '/plants', {
      method: 'POST',
      headers: { ...bearer(server.tokens.all), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ name: 'keyed' }),
    });
    const again = await request(server, '/plants', {
      method: 'POST',
      headers: { ...bearer(server.tokens.all), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ name: 'keyed' }),
    });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(first.headers.etag).toMatch(/^"[0-9a-z]+"$/);
  });
});

describe('PATCH /plants/{id}', () => {
  it('applies a JSON Merge Patch and answers 200 with the whole plant', async () => {
    const { id } = await created({ name: 'Monstera', tag: 'tropical' });
    const renamed = await patch(id, { name: 'Monstera deliciosa' });
    expect(renamed.status).toBe(200);
    expect(renamed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(renamed.headers['cache-control']).toBe('no-store');
    expect(renamed.json).toEqual({ id, name: 'Monstera deliciosa', tag: 'tropical' });
    expect((await patch(id, { tag: 'living room' })).json).toEqual({
      id,
      name: 'Monstera deliciosa',
      tag: 'living room',
    });
    const untagged = await patch(id, { tag: null });
    expect(untagged.json).toEqual({ id, name: 'Monstera deliciosa' });
    expect(untagged.text).not.toContain('tag');
    expect((await get(id)).json).toEqual({ id, name: 'Monstera deliciosa' });
  });

  it('accepts application/json and a charset parameter, and nothing else', async () => {
    const { id } = await created({ name: 'Types' });
    for (const type of [
      'application/json',
      'application/merge-patch+json; charset=utf-8',
      'Application/Merge-Patch+JSON;charset="UTF-8"',
    ]) {
      expect((await patch(id, { tag: 'ok' }, { 'content-type': type })).status).toBe(200);
    }
    for (const type of ['text/plain', 'application/json-patch+json', 'application/merge-patch+json; charset=latin1']) {
      expectError(
        await patch(id, { tag: 'no' }, { 'content-type': type }),
        415,
        'expected Content-Type application/merge-patch+json or application/json',
      );
    }
    expectError(await patch(id, { tag: 'no' }, { 'content-encoding': 'gzip' }), 415);
  });

  it.each([
    [{ id: 5 }, 'id: cannot be changed'],
    [{ name: null }, 'name: expected a string, got null'],
    [{ name: '' }, 'name: expected 1–200 characters, got 0'],
    [{ tag: 5 }, 'tag: expected a string, or null to remove the tag'],
    [{ colour: 'green' }, 'colour: unknown member'],
    [[], 'expected a JSON object'],
    ['null', 'expected a JSON object'],
    ['{"name":', 'not valid JSON'],
  ])('answers %j with 400 naming the problem, and changes nothing', async (body, message) => {
    const { id, etag } = await created({ name: 'Unchanged', tag: 'kept' });
    expectError(await patch(id, body), 400, message);
    const read = await get(id);
    expect(read.json).toEqual({ id, name: 'Unchanged', tag: 'kept' });
    expect(read.headers.etag).toBe(etag);
  });

  it('answers a body over the limit with 413, invalid UTF-8 with 400', async () => {
    const { id } = await created({ name: 'Big' });
    expectError(await patch(id, JSON.stringify({ name: 'x'.repeat(20_000) })), 413);
    expectError(
      await request(server, `/plants/${id}`, {
        method: 'PATCH',
        headers: { ...bearer(server.tokens.all), 'content-type': MERGE_PATCH },
        body: Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
      }),
      400,
      'not valid UTF-8',
    );
  });

  it('answers 404 for an unknown plant, 400 for a bad id, and needs plants:write', async () => {
    expectError(await patch(freshId(), { name: 'x' }), 404, /^no plant with id/);
    expectError(await patch('07', { name: 'x' }), 400, /^id: /);
    const { id } = await created({ name: 'Scoped' });
    expectError(await patch(id, { name: 'x' }, {}, server.tokens.read), 403);
    const anonymous = await request(server, `/plants/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': MERGE_PATCH },
      body: '{}',
    });
    expectError(anonymous, 401);
  });

  it('lists PUT beside PATCH in Allow', async () => {
    const reply = await request(server, '/plants/1', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expectError(reply, 405);
    expect(reply.headers.allow).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
  });
});

describe('conditional requests', () => {
  it('answers a GET with If-None-Match naming the ETag (weakly, or *) with 304, no body, the ETag and the headers of a 200', async () => {
    const { id, etag } = await created({ name: 'Cached' });
    for (const value of [etag, `W/${etag}`, '*', `"zzz", ${etag}`]) {
      const reply = await get(id, { 'if-none-match': value });
      expect(reply.status).toBe(304);
      expect(reply.text).toBe('');
      expect(reply.headers.etag).toBe(etag);
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
    }
    const head = await request(server, `/plants/${id}`, {
      method: 'HEAD',
      headers: { ...bearer(server.tokens.all), 'if-none-match': etag },
    });
    expect(head.status).toBe(304);
    expect((await get(id, { 'if-none-match': '"zzz"' })).status).toBe(200);
  });

  it('answers a GET whose If-Match fails with 412, and one that holds with 200', async () => {
    const { id, etag } = await created({ name: 'Guarded read' });
    expectError(await get(id, { 'if-match': '"zzz"' }), 412);
    expectError(await get(id, { 'if-match': `W/${etag}` }), 412);
    expect((await get(id, { 'if-match': etag })).status).toBe(200);
    expect((await get(id, { 'if-match': '*' })).status).toBe(200);
  });

  it('changes a plant with If-Match only while the ETag is current; otherwise 412 and nothing changes', async () => {
    const { id, etag } = await created({ name: 'v1' });
    const first = await patch(id, { name: 'v2' }, { 'if-match': etag });
    expect(first.status).toBe(200);
    expectError(await patch(id, { name: 'lost update' }, { 'if-match': etag }), 412, 'has changed');
    expectError(await patch(id, { name: 'weak' }, { 'if-match': `W/${first.headers.etag as string}` }), 412);
    expectError(await patch(id, {}, { 'if-match': etag }), 412);
    expect((await get(id)).json).toEqual({ id, name: 'v2' });
    expect((await patch(id, { name: 'v3' }, { 'if-match': `"zzz", ${first.headers.etag as string}` })).status).toBe(
      200,
    );
    expect((await patch(id, { name: 'v4' }, { 'if-match': '*' })).status).toBe(200);
  });

  it('answers a PATCH or DELETE whose If-None-Match matches with 412', async () => {
    const { id, etag } = await created({ name: 'none-match' });
    expectError(await patch(id, { name: 'x' }, { 'if-none-match': '*' }), 412);
    expectError(await patch(id, { name: 'x' }, { 'if-none-match': `W/${etag}` }), 412);
    expectError(await del(id, { 'if-none-match': etag }), 412);
    expect((await patch(id, { name: 'y' }, { 'if-none-match': '"zzz"' })).status).toBe(200);
  });

  it('deletes with If-Match only while the ETag is current', async () => {
    const { id, etag } = await created({ name: 'to delete' });
    const changed = await patch(id, { name: 'changed' });
    expectError(await del(id, { 'if-match': etag }), 412);
    expect((await get(id)).status).toBe(200);
    expect((await del(id, { 'if-match': changed.headers.etag as string })).status).toBe(204);
  });

  it('puts 404 before 412 and 400 before 404', async () => {
    const absent = freshId();
    expectError(await patch(absent, { name: 'x' }, { 'if-match': '"zzz"' }), 404);
    expectError(await del(absent, { 'if-match': '"zzz"' }), 404);
    expectError(await get(absent, { 'if-none-match': '*' }), 404);
    expectError(await patch(absent, { name: '' }, { 'if-match': '"zzz"' }), 400);
    expectError(await patch(absent, { name: 'x' }, { 'if-match': 'zzz' }), 400, 'If-Match must be');
  });

  it.each([['zzz'], ['"a" "b"'], ['W/zzz'], ['*, "a"'], [','], ['"a'], ['w/"a"']])(
    'answers the malformed If-Match %j with 400',
    async (value) => {
      const { id } = await created({ name: 'malformed' });
      expectError(await patch(id, { name: 'x' }, { 'if-match': value }), 400, 'If-Match must be');
      expectError(await get(id, { 'if-none-match': value }), 400, 'If-None-Match must be');
      expectError(await del(id, { 'if-match': value }), 400, 'If-Match must be');
    },
  );

  it('reads two If-Match lines as one list, and ignores If-Unmodified-Since and If-Modified-Since', async () => {
    const { id, etag } = await created({ name: 'lines' });
    expect((await patch(id, { tag: 'a' }, { 'if-match': ['"zzz"', etag] as unknown as string })).status).toBe(200);
    const now = (await get(id)).headers.etag as string;
    const old = new Date(0).toUTCString();
    expect((await patch(id, { tag: 'b' }, { 'if-unmodified-since': old, 'if-match': now })).status).toBe(200);
    expect((await get(id, { 'if-modified-since': new Date(Date.now() + 86_400_000).toUTCString() })).status).toBe(200);
  });

  it('lets exactly one of two patches with the same ETag win', async () => {
    const { id, etag } = await created({ name: 'race' });
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => patch(id, { name: `writer ${i}` }, { 'if-match': etag })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, ...Array<number>(9).fill(412)]);
    const winner = replies.find((r) => r.status === 200);
    expect((await get(id)).json).toEqual(winner?.json);
  });
});

describe('GET /plants?tag=', () => {
  const list = (query: string): Promise<Reply> =>
    request(server, `/plants?${query}`, { headers: bearer(server.tokens.all) });

  it('keeps only plants with exactly that tag, pages with limit and after, and carries tag in Link', async () => {
    const tag = `bed ${freshId()} + é&%`;
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await created({ name: `mine ${i}`, tag })).id);
    await created({ name: 'other case', tag: tag.toUpperCase() });
    await created({ name: 'other normalisation', tag: tag.replace('é', 'e\u0301') });
    await created({ name: 'untagged' });
    const encoded = new URLSearchParams({ tag }).toString();
    const all = await list(`${encoded}&limit=1000`);
    expect(all.status).toBe(200);
    expect((all.json as { id: number }[]).map((p) => p.id)).toEqual(ids);
    const first = await list(`limit=2&${encoded}`);
    expect((first.json as { id: number }[]).map((p) => p.id)).toEqual(ids.slice(0, 2));
    const link = first.headers.link as string;
    expect(link).toBe(`</plants?limit=2&after=${ids[1]}&${encoded}>; rel="next"`);
    const next = await list(link.slice(link.indexOf('?') + 1, link.indexOf('>')));
    expect((next.json as { id: number }[]).map((p) => p.id)).toEqual(ids.slice(2, 4));
    // Percent-encoded spaces work as well as `+`.
    expect((await list(`tag=${encodeURIComponent(tag)}&limit=1000`)).json).toEqual(all.json);
  });

  it.each([
    ['tag', 'tag: expected tag=<value>'],
    ['tag=', 'tag: expected 1–100 characters, got 0'],
    ['tag=a&tag=b', 'tag: expected a single value'],
    ['tag=%zz', 'tag: invalid percent-encoding'],
    ['tag=%', 'tag: invalid percent-encoding'],
    ['tag=%ff', 'tag: not valid UTF-8'],
    ['tag=%C3%28', 'tag: not valid UTF-8'],
    ['tag=%01', 'tag: expected no control characters'],
    [`tag=${'a'.repeat(101)}`, 'tag: expected 1–100 characters, got 101'],
  ])('answers ?%s with 400', async (query, message) => {
    expectError(await list(query), 400, message);
  });
});

describe('events', () => {
  it('is counted under the route template /plants/{id} with method PATCH in the request log', async () => {
    const { id } = await created({ name: 'logged' });
    await patch(id, { name: 'logged twice' });
    const line = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['method'] === 'PATCH');
    expect(line).toMatchObject({ route: '/plants/{id}', status: 200 });
  });
});
