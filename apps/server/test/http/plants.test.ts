import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, expectError, request, startTestServer, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('POST /plants', () => {
  it('answers 201 with Location and exactly {name, tag}, never the id', async () => {
    const reply = await createPlant(server, { name: 'Monstera deliciosa', tag: 'tropical' });
    expect(reply.status).toBe(201);
    expect(reply.headers.location).toMatch(/^\/plants\/[1-9][0-9]*$/);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.json).toEqual({ name: 'Monstera deliciosa', tag: 'tropical' });
    const read = await request(server, reply.headers.location as string, { headers: bearer(server.tokens.all) });
    expect(read.json).toEqual({
      id: Number((reply.headers.location as string).split('/')[2]),
      name: 'Monstera deliciosa',
      tag: 'tropical',
    });
  });

  it('omits an absent tag from the response (never null)', async () => {
    const reply = await createPlant(server, { name: 'Ficus' });
    expect(reply.status).toBe(201);
    expect(reply.json).toEqual({ name: 'Ficus' });
    expect(reply.text).not.toContain('tag');
  });

  it('keeps a client-chosen id and answers 409 when it is taken, changing nothing', async () => {
    const first = await createPlant(server, { id: 4242, name: 'First' });
    expect(first.status).toBe(201);
    expect(first.headers.location).toBe('/plants/4242');
    const again = await createPlant(server, { id: 4242, name: 'Second' });
    expectError(again, 409, 'a plant with id 4242 already exists');
    const read = await request(server, '/plants/4242', { headers: bearer(server.tokens.all) });
    expect(read.json).toEqual({ id: 4242, name: 'First' });
  });

  it('accepts the largest id, 2^53−1', async () => {
    const reply = await createPlant(server, { id: 9007199254740991, name: 'Edge' });
    expect(reply.status).toBe(201);
    expect(reply.headers.location).toBe('/plants/9007199254740991');
  });

  it('assigns ids that never collide with client-chosen ones', async () => {
    const chosen = await createPlant(server, { id: 77, name: 'Chosen' });
    expect(chosen.status).toBe(201);
    const ids = new Set<string>(['/plants/77']);
    for (let i = 0; i < 20; i++) {
      const reply = await createPlant(server, { name: `Assigned ${i}` });
      expect(reply.status).toBe(201);
      expect(ids.has(reply.headers.location as string)).toBe(false);
      ids.add(reply.headers.location as string);
    }
  });

  it('counts astral characters as one: 200 emoji are a valid name, 201 are not', async () => {
    const ok = await createPlant(server, { name: '🌱'.repeat(200), tag: '🌵'.repeat(100) });
    expect(ok.status).toBe(201);
    expect(ok.json).toEqual({ name: '🌱'.repeat(200), tag: '🌵'.repeat(100) });
    expectError(await createPlant(server, { name: '🌱'.repeat(201) }), 400, 'name: expected 1–200 characters, got 201');
    expectError(
      await createPlant(server, { name: 'x', tag: '🌵'.repeat(101) }),
      400,
      'tag: expected 1–100 characters, got 101',
    );
  });

  it('stores names exactly as sent (spaces, combining marks, RTL)', async () => {
    const name = '  Ficus\u0301 لبلاب ';
    const reply = await createPlant(server, { name });
    expect(reply.status).toBe(201);
    const read = await request(server, reply.headers.location as string, { headers: bearer(server.tokens.all) });
    expect((read.json as { name: string }).name).toBe(name);
  });

  it.each([
    [{ name: '' }, 'name: expected 1–200 characters, got 0'],
    [{ name: '   ' }, 'name: expected at least one non-whitespace character'],
    [{ name: 'a\u0000b' }, 'name: expected no control characters, got U+0000'],
    [{ name: 'tab\there' }, 'name: expected no control characters, got U+0009'],
    [{ name: 'del\u007f' }, 'name: expected no control characters, got U+007F'],
    [{ name: 'ok', tag: 'nl\n' }, 'tag: expected no control characters, got U+000A'],
    [{ name: null }, 'name: expected a string, got null'],
    [{ name: 42 }, 'name: expected a string, got 42'],
    [{ tag: 'x' }, 'name: required'],
    [{ name: 'x', tag: null }, 'tag: expected a string, got null'],
    [{ name: 'x', color: 'green' }, 'color: unknown member (allowed: name, tag, id)'],
    [{ name: 'x', id: 0 }, 'id: expected an integer from 1 to 9007199254740991, got 0'],
    [{ name: 'x', id: -1 }, 'id: expected an integer from 1 to 9007199254740991, got -1'],
    [{ name: 'x', id: 1.5 }, 'id: expected an integer from 1 to 9007199254740991, got 1.5'],
    [{ name: 'x', id: '7' }, 'id: expected an integer from 1 to 9007199254740991, got a string "7"'],
    [{ name: 'x', id: 9007199254740992 }, 'id: expected an integer from 1 to 9007199254740991, got 9007199254740992'],
    [{ name: 'x', id: null }, 'id: expected an integer'],
    [[{ name: 'x' }], 'expected a JSON object, got an array'],
  ])('rejects %j with 400 naming the field', async (body, message) => {
    expectError(await createPlant(server, body), 400, message);
  });

  it.each([
    ['{"name":"x","id":1e400}', 'id: expected an integer from 1 to 9007199254740991, got a number out of range'],
    ['{"name":"x","id":007}', 'not valid JSON'],
    ['{"name":"\\ud800"}', 'name: expected well-formed Unicode, got a lone surrogate U+D800'],
    ['{"name":"x\\udc00y"}', 'name: expected well-formed Unicode, got a lone surrogate U+DC00'],
    ['{"name":"x","__proto__":{"admin":true}}', '__proto__: unknown member'],
    ['{"name":"x","constructor":{"prototype":{}}}', 'constructor: unknown member'],
    ['{"name":"x",}', 'not valid JSON'],
    ['{"name":', 'not valid JSON'],
    ['null', 'expected a JSON object'],
    ['"Monstera"', 'expected a JSON object'],
    ['42', 'expected a JSON object'],
    ['', 'request body is empty'],
  ])('rejects the raw body %s with 400', async (body, message) => {
    expectError(await createPlant(server, body), 400, message);
  });

  it('names every failing field in one 400', async () => {
    const reply = await createPlant(server, { name: '', tag: 7, id: 0, extra: 1 });
    expectError(reply, 400);
    const message = (reply.json as { message: string }).message;
    for (const field of ['name:', 'tag:', 'id:', 'extra:']) expect(message).toContain(field);
  });
});

describe('GET /plants/{id}', () => {
  it('answers 200 with {id, name, tag}', async () => {
    await createPlant(server, { id: 500, name: 'Pilea', tag: 'shade' });
    const reply = await request(server, '/plants/500', { headers: bearer(server.tokens.read) });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.json).toEqual({ id: 500, name: 'Pilea', tag: 'shade' });
  });

  it('answers 404 with the error body for an unknown plant', async () => {
    expectError(
      await request(server, '/plants/999999', { headers: bearer(server.tokens.read) }),
      404,
      'no plant with id 999999',
    );
  });

  it.each(['0', '-1', '1.5', '007', '+7', '9007199254740992', '1e3', 'abc', '%20', '0x10', '1%2C2'])(
    'answers 400 for the path id %s',
    async (id) => {
      expectError(
        await request(server, `/plants/${id}`, { headers: bearer(server.tokens.read) }),
        400,
        /^id: expected decimal digits/,
      );
    },
  );
});

describe('DELETE /plants/{id}', () => {
  it('answers 204 with an empty body, then 404', async () => {
    await createPlant(server, { id: 600, name: 'Doomed' });
    const reply = await request(server, '/plants/600', { method: 'DELETE', headers: bearer(server.tokens.write) });
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(reply.headers['content-type']).toBeUndefined();
    expectError(
      await request(server, '/plants/600', { method: 'DELETE', headers: bearer(server.tokens.write) }),
      404,
      'no plant with id 600',
    );
    expectError(await request(server, '/plants/600', { headers: bearer(server.tokens.read) }), 404);
  });

  it.each(['0', '-1', '1.5', '07', '9007199254740992'])('answers 400 for the path id %s', async (id) => {
    expectError(
      await request(server, `/plants/${id}`, { method: 'DELETE', headers: bearer(server.tokens.write) }),
      400,
      /^id: /,
    );
  });
});

describe('GET /plants', () => {
  let listing: TestServer;
  beforeAll(async () => {
    listing = await startTestServer();
    for (const id of [3, 1, 2, 5, 4])
      expect((await createPlant(listing, { id, name: `p${id}`, ...(id === 2 ? { tag: 't' } : {}) })).status).toBe(201);
  });
  afterAll(() => listing.close());
  const list = (query: string) => request(listing, `/plants${query}`, { headers: bearer(listing.tokens.read) });

  it('lists in ascending id order, tag omitted when absent', async () => {
    const reply = await list('');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual([
      { id: 1, name: 'p1' },
      { id: 2, name: 'p2', tag: 't' },
      { id: 3, name: 'p3' },
      { id: 4, name: 'p4' },
      { id: 5, name: 'p5' },
    ]);
    expect(reply.headers.link).toBeUndefined();
  });

  it('sends Link rel="next" (always with limit) on a full page and none on a shorter one', async () => {
    const first = await list('?limit=2');
    expect(first.json).toEqual([
      { id: 1, name: 'p1' },
      { id: 2, name: 'p2', tag: 't' },
    ]);
    expect(first.headers.link).toBe('</plants?limit=2&after=2>; rel="next"');
    const second = await list('?limit=2&after=2');
    expect((second.json as { id: number }[]).map((p) => p.id)).toEqual([3, 4]);
    expect(second.headers.link).toBe('</plants?limit=2&after=4>; rel="next"');
    const third = await list('?limit=2&after=4');
    expect(third.json).toEqual([{ id: 5, name: 'p5' }]);
    expect(third.headers.link).toBeUndefined();
    const past = await list('?after=5');
    expect(past.json).toEqual([]);
    expect(past.headers.link).toBeUndefined();
  });

  it('treats after=0 as the start and accepts limit 1000', async () => {
    expect(((await list('?after=0&limit=1000')).json as unknown[]).length).toBe(5);
  });

  it.each([
    ['?limit=0', 'limit: expected an integer from 1 to 1000'],
    ['?limit=1001', 'limit: expected an integer from 1 to 1000'],
    ['?limit=-1', 'limit: '],
    ['?limit=abc', 'limit: '],
    ['?limit=', 'limit: '],
    ['?after=-1', 'after: '],
    ['?after=01', 'after: '],
    ['?after=9007199254740992', 'after: '],
    ['?limit=1&limit=2', 'limit: expected a single value'],
    ['?page=2', 'page: unknown query parameter'],
  ])('answers 400 for %s', async (query, message) => {
    expectError(await list(query), 400, message);
  });
});
