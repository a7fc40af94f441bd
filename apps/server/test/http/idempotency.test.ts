import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  expectError,
  jsonHeaders,
  request,
  startTestServer,
  testStoreKind,
  type Reply,
  type TestServer,
} from './support.js';
import * as E from 'fp-ts/lib/Either.js';

/** Idempotency keys (docs/reference/api.md), through a listening server, on the store PLANT_STORE_TEST_STORE names. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

let keys = 0;
const newKey = (): string => `k-${testStoreKind}-${process.pid}-${(keys += 1)}-${Date.now()}`;

const post = (
  body: string | object,
  key: string | readonly string[] | undefined,
  token = server.tokens.all,
  extra: Record<string, string> = {},
): Promise<Reply> =>
  request(server, '/plants', {
    method: 'POST',
    headers: { ...jsonHeaders(token), ...(key === undefined ? {} : { 'idempotency-key': key }), ...extra },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const plantsNamed = async (name: string): Promise<number> => {
  const all: { name: string }[] = [];
  let after = 0;
  for (;;) {
    const page = await request(server, `/plants?limit=1000&after=${after}`, { headers: bearer(server.tokens.all) });
    const plants = page.json as { id: number; name: string }[];
    all.push(...plants);
    if (plants.length < 1000) break;
    after = plants[plants.length - 1]?.id ?? after;
  }
  return all.filter((p) => p.name === name).length;
};

describe('POST /plants with Idempotency-Key', () => {
  it('replays the saved 201 (Location, body, Idempotent-Replayed) with its own X-Request-Id, and stores nothing more', async () => {
    const key = newKey();
    const name = `replayed ${key}`;
    const first = await post({ name, tag: 'once' }, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post({ name, tag: 'once' }, key, server.tokens.all, { 'x-request-id': 'retry-1' });
    expect(again.status).toBe(201);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.json).toEqual({ name, tag: 'once' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['x-request-id']).toBe('retry-1');
    expect(await plantsNamed(name)).toBe(1);
  });

  it('takes reordered members, whitespace, escapes and another number spelling for the same request', async () => {
    const key = newKey();
    const first = await post(`{"id": ${9_000_000 + keys}, "name": "Fern", "tag": "green"}`, key);
    expect(first.status).toBe(201);
    const again = await post(
      `\n{ "tag" : "gr\\u0065en" ,"name":"F\\u0065rn",  "id":${9_000_000 + keys - 0}.0e0 }\t`,
      key,
    );
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
  });

  it('takes k and "k" for one key', async () => {
    const key = newKey();
    const first = await post({ name: 'quoted' }, key);
    const again = await post({ name: 'quoted' }, `"${key}"`);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
  });

  it('answers 422 naming the key for another request with it, and keeps the saved outcome', async () => {
    const key = newKey();
    const first = await post({ name: 'original' }, key);
    expect(first.status).toBe(201);
    const other = await post({ name: 'original', tag: 'changed' }, key);
    expectError(other, 422, `Idempotency-Key "${key}" was already used with a different request`);
    const again = await post({ name: 'original' }, key);
    expect(again.status).toBe(201);
    expect(again.headers.location).toBe(first.headers.location);
  });

  it('saves and replays the 409 of a taken id, even once the plant is deleted', async () => {
    const id = 8_000_000 + keys;
    expect((await post({ id, name: 'holder' }, undefined)).status).toBe(201);
    const key = newKey();
    expectError(await post({ id, name: 'late' }, key), 409, `a plant with id ${id} already exists`);
    expect(
      (await request(server, `/plants/${id}`, { method: 'DELETE', headers: bearer(server.tokens.all) })).status,
    ).toBe(204);
    const again = await post({ id, name: 'late' }, key);
    expectError(again, 409, `a plant with id ${id} already exists`);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['retry-after']).toBeUndefined();
    expect((await request(server, `/plants/${id}`, { headers: bearer(server.tokens.all) })).status).toBe(404);
  });

  it('makes exactly one plant of 20 concurrent identical requests; every answer is its 201 or the in-flight 409', async () => {
    const key = newKey();
    const name = `concurrent ${key}`;
    const replies = await Promise.all(Array.from({ length: 20 }, () => post({ name }, key)));
    const created = replies.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.headers.location)).size).toBe(1);
    expect(created.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 201)) {
      expectError(reply, 409, `a request with Idempotency-Key "${key}" is still in progress`);
      expect(reply.headers['retry-after']).toBe('1');
    }
    expect(await plantsNamed(name)).toBe(1);
  });

  it('keeps one key of two principals apart', async () => {
    const key = newKey();
    const mine = await post({ name: 'mine' }, key, server.tokens.all);
    const theirs = await post({ name: 'theirs' }, key, server.tokens.write);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.headers.location).not.toBe(mine.headers.location);
  });

  it('saves nothing for an answer before the key is looked up: a 400 body, then the key works', async () => {
    const key = newKey();
    expectError(await post({ name: '' }, key), 400, /^name:/);
    expectError(await post('{"name":', key), 400);
    const ok = await post({ name: 'after a 400' }, key);
    expect(ok.status).toBe(201);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it.each([
    ['a space', 'a b'],
    ['an escape', '"a\\"b"'],
    ['a parameter', 'abc;x=1'],
    ['a list', '"a", "b"'],
    ['256 characters', 'k'.repeat(256)],
    ['a character outside the set', 'clé*'],
  ])('answers 400 naming the header for a key with %s', async (_, key) => {
    expectError(await post({ name: 'bad key' }, key), 400, /^Idempotency-Key: /);
  });

  it('answers 400 for an empty key and for a key on two lines', async () => {
    expectError(await post({ name: 'x' }, ''), 400, /^Idempotency-Key: empty/);
    expectError(await post({ name: 'x' }, ['a', 'a']), 400, /^Idempotency-Key: sent on 2 lines/);
  });

  it('checks the key after authentication and the 415s, before the 413 and the body', async () => {
    expect((await post({ name: 'x' }, 'a b', 'not-a-known-token')).status).toBe(401);
    expectError(await post({ name: 'x' }, 'a b', server.tokens.all, { 'content-type': 'text/plain' }), 415);
    expectError(
      await post('{"name":"x"}', 'a b', server.tokens.all, { 'content-length': String(10 ** 7) }),
      400,
      /^Idempotency-Key/,
    );
    expectError(await post('{"nope":1}', 'a b'), 400, /^Idempotency-Key/);
  });

  it('ignores the header on other routes', async () => {
    const reply = await request(server, '/plants?limit=1', {
      headers: { ...bearer(server.tokens.all), 'idempotency-key': 'a b' },
    });
    expect(reply.status).toBe(200);
  });
});

describe('IDEMPOTENCY_TTL_SECONDS', () => {
  let short: TestServer;
  beforeAll(async () => {
    short = await startTestServer({ idempotencyTtlSeconds: 1 });
  });
  afterAll(() => short.close());

  it('forgets a saved outcome after the TTL (the key is new again), and the purge removes it in steps', async () => {
    const key = newKey();
    const send = (name: string, k = key) =>
      request(short, '/plants', {
        method: 'POST',
        headers: { ...jsonHeaders(short.tokens.all), 'idempotency-key': k },
        body: JSON.stringify({ name }),
      });
    const first = await send('before');
    expect(first.status).toBe(201);
    for (const k of ['a', 'b', 'c', 'd']) expect((await send(`other key ${k}`, `${key}-${k}`)).status).toBe(201);
    expect((await send('other')).status).toBe(422);
    await sleep(1500); // past the 1 s TTL: the key expiring is what this test is about
    const after = await send('other');
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(after.headers.location).not.toBe(first.headers.location);
    // Five keys, four expired (the fifth was just saved again): steps of two look at every key once.
    const steps = [];
    for (let more = true; more;) {
      const step = await short.store.plants.purgeExpiredKeys(2)();
      if (E.isLeft(step)) expect.fail(JSON.stringify(step.left));
      steps.push(step.right);
      more = step.right.more && steps.length < 10;
    }
    expect(steps.reduce((n, s) => n + s.forgotten, 0)).toBe(4);
    expect(steps.at(-1)?.more).toBe(false);
    // The key saved again is kept.
    expect((await send('other')).headers['idempotent-replayed']).toBe('true');
  });

  it('states the TTL in force in the served document', async () => {
    const doc = (await request(short, '/openapi.json')).json as {
      paths: { '/plants': { post: { parameters: { name: string; description: string }[] } } };
    };
    const parameter = doc.paths['/plants'].post.parameters.find((p) => p.name === 'Idempotency-Key');
    expect(parameter?.description).toContain('kept for 1 second from its commit');
  });
});
