import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFastifyPostgresPeer } from '../src/peers/fastify-postgres.js';
import { createFastifySqlitePeer } from '../src/peers/fastify-sqlite.js';
import { createKoaMinimalPeer } from '../src/peers/koa-minimal.js';
import type { Peer, PeerFactory } from '../src/peers/peer.js';
import { seedPlants, smokeCheck, smokeCheckPatch } from '../src/seed.js';
import { startPeer } from '../src/servers.js';
import { createPgDatabase, type PgDatabase } from '../src/stores.js';

/**
 * The peers answer the bench's requests as docs/reference/api.md says, over a real socket: each
 * on a real SQLite file in a temporary folder, and fastify-postgres on a throwaway PostgreSQL
 * database (created and dropped as the bench does). Without PostgreSQL its suite is skipped with a
 * line saying so, except with CI=true, where it fails.
 */

const TOKEN = 'peer-test-token-0123456789';
const pgAdminUrl = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const inCi = process.env['CI'] === 'true';

const work = mkdtempSync(join(tmpdir(), 'plant-bench-peers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const pg: PgDatabase | string = await createPgDatabase(pgAdminUrl);
afterAll(async () => {
  if (typeof pg !== 'string') await pg.drop();
});
if (typeof pg === 'string' && !inCi)
  console.log(`fastify-postgres peer tests skipped: no PostgreSQL at ${pgAdminUrl} (${pg}; CI=true fails instead)`);

const suites: readonly (readonly [string, PeerFactory, () => string, boolean])[] = [
  ['fastify-sqlite', createFastifySqlitePeer, () => join(work, 'fastify.db'), false],
  ['koa-minimal', createKoaMinimalPeer, () => join(work, 'koa.db'), false],
  [
    'fastify-postgres',
    createFastifyPostgresPeer,
    () => {
      if (typeof pg === 'string') throw new Error(`PostgreSQL is not reachable at ${pgAdminUrl}: ${pg}`);
      return pg.url;
    },
    typeof pg === 'string' && !inCi,
  ],
];

describe.each(suites)('peer %s', (_name, factory, database, skip) => {
  let peer: Peer | undefined;
  let base = '';

  beforeAll(async () => {
    if (skip) return;
    peer = await factory({ token: TOKEN, database: database() });
    base = `http://127.0.0.1:${await peer.listen(0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    await peer?.close();
  });

  const auth = { authorization: `Bearer ${TOKEN}` };
  const create = (body: unknown, headers: Record<string, string> = { ...auth, 'content-type': 'application/json' }) =>
    fetch(`${base}/plants`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const patch = (id: number | string, body: unknown, contentType = 'application/merge-patch+json') =>
    fetch(`${base}/plants/${id}`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': contentType },
      body: JSON.stringify(body),
    });
  const get = (path: string) => fetch(`${base}${path}`, { headers: auth });
  const errorOf = async (res: Response) => ({
    status: res.status,
    body: (await res.json()) as { error: number; message: string },
  });

  it.skipIf(skip)('is ready without a token', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it.skipIf(skip)('creates a plant: 201, Location, the name and tag only', async () => {
    const res = await create({ id: 7, name: 'Monstera', tag: 'aroid' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/plants/7');
    expect(await res.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
    const plain = await create({ id: 9, name: 'Pilea' });
    expect(await plain.json()).toEqual({ name: 'Pilea' });
  });

  it.skipIf(skip)('answers 409 for a taken id and keeps the first plant', async () => {
    expect((await create({ id: 8, name: 'first' })).status).toBe(201);
    const again = await create({ id: 8, name: 'second' });
    expect(await errorOf(again)).toEqual({ status: 409, body: { error: 409, message: expect.any(String) } });
    expect(await (await get('/plants/8')).json()).toEqual({ id: 8, name: 'first' });
  });

  it.skipIf(skip)('assigns an id above the largest when none is sent', async () => {
    await create({ id: 1000, name: 'high' });
    const res = await create({ name: 'assigned' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/plants/1001');
  });

  it.skipIf(skip)('refuses a create body the contract refuses with 400, naming the field', async () => {
    const unknown = await errorOf(await create({ name: 'x', colour: 'green' }));
    expect(unknown).toEqual({ status: 400, body: { error: 400, message: expect.stringContaining('colour') } });
    for (const [body, field] of [
      [{ name: '' }, 'name'],
      [{ name: ' \t' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'a\u0007b' }, 'name'],
      [{ name: '\ud800' }, 'name'],
      [{}, 'name'],
      [{ name: 'x', tag: 'y'.repeat(101) }, 'tag'],
      [{ name: 'x', id: 1.5 }, 'id'],
      [{ name: 'x', id: '7' }, 'id'],
      [{ name: 'x', id: 0 }, 'id'],
      [{ name: 'x', id: 2 ** 53 }, 'id'],
      [{ name: null }, 'name'],
    ] as const) {
      const res = await errorOf(await create(body));
      expect([JSON.stringify(body), res.status, res.body.message]).toEqual([
        JSON.stringify(body),
        400,
        expect.stringContaining(field),
      ]);
    }
    expect((await create('{not json')).status).toBe(400);
    expect((await create('[]')).status).toBe(400);
    expect((await get('/plants/6000')).status).toBe(404);
  });

  it.skipIf(skip)('takes application/json only (415), up to 16 KiB (413)', async () => {
    for (const type of ['text/plain', 'application/merge-patch+json', 'application/x-www-form-urlencoded']) {
      expect((await errorOf(await create({ name: 'x' }, { ...auth, 'content-type': type }))).body.error).toBe(415);
    }
    expect(
      (await create({ name: 'x', id: 11 }, { ...auth, 'content-type': 'application/json; charset=utf-8' })).status,
    ).toBe(201);
    const big = await errorOf(await create({ name: 'x', tag: 'y'.repeat(17 * 1024) }));
    expect(big).toEqual({ status: 413, body: { error: 413, message: expect.any(String) } });
  });

  it.skipIf(skip)('checks the bearer token before anything else, as the ceiling does', async () => {
    const none = await create({ name: 'x', colour: 'no' }, { 'content-type': 'application/json' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
    expect(await none.json()).toMatchObject({ error: 401 });
    const basic = await fetch(`${base}/plants/7`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    const wrong = await fetch(`${base}/plants/7`, { headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="plant-store", error="invalid_token"');
    const malformed = await fetch(`${base}/plants`, { headers: { authorization: 'Bearer !!' } });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('www-authenticate')).toBe('Bearer realm="plant-store", error="invalid_request"');
    const empty = await fetch(`${base}/plants`, { headers: { authorization: 'Bearer' } });
    expect(empty.status).toBe(400);
  });

  it.skipIf(skip)('gets a plant by id (200, 404) and refuses an id segment the contract refuses (400)', async () => {
    expect(await (await get('/plants/7')).json()).toEqual({ id: 7, name: 'Monstera', tag: 'aroid' });
    expect(await errorOf(await get('/plants/424242'))).toEqual({
      status: 404,
      body: { error: 404, message: expect.any(String) },
    });
    for (const segment of ['0', '07', '-7', '7.0', 'x', '9007199254740992']) {
      expect([segment, (await errorOf(await get(`/plants/${segment}`))).status]).toEqual([segment, 400]);
    }
  });

  it.skipIf(skip)('lists in id order, with a next Link on a full page, and filters by tag', async () => {
    for (const id of [503, 501, 502, 504])
      await create({ id, name: `p${id}`, ...(id % 2 === 0 ? { tag: 'even' } : {}) });
    const page = await get('/plants?limit=2&after=500');
    expect(page.status).toBe(200);
    expect(await page.json()).toEqual([
      { id: 501, name: 'p501' },
      { id: 502, name: 'p502', tag: 'even' },
    ]);
    expect(page.headers.get('link')).toBe('</plants?limit=2&after=502>; rel="next"');
    const tagged = await get('/plants?tag=even&limit=1&after=500');
    expect(await tagged.json()).toEqual([{ id: 502, name: 'p502', tag: 'even' }]);
    expect(tagged.headers.get('link')).toBe('</plants?limit=1&after=502&tag=even>; rel="next"');
    const rest = await get('/plants?tag=even&after=502');
    expect(await rest.json()).toEqual([{ id: 504, name: 'p504', tag: 'even' }]);
    expect(rest.headers.get('link')).toBeNull();
    const first = (await (await get('/plants')).json()) as { id: number }[];
    expect(first.map((p) => p.id)).toEqual([...first.map((p) => p.id)].sort((a, b) => a - b));
    for (const query of [
      'limit=0',
      'limit=1001',
      'limit=01',
      'after=-1',
      'after=x',
      'tag=',
      'colour=green',
      'limit=1&limit=2',
    ]) {
      expect([query, (await errorOf(await get(`/plants?${query}`))).status]).toEqual([query, 400]);
    }
    expect((await get('/plants?limit=1000&after=0')).status).toBe(200);
  });

  it.skipIf(skip)('patches name and tag as a merge patch (200 with the plant), null removing the tag', async () => {
    await create({ id: 601, name: 'before', tag: 'old' });
    const renamed = await patch(601, { name: 'after' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ id: 601, name: 'after', tag: 'old' });
    expect(await (await patch(601, { tag: 'new' }, 'application/json')).json()).toEqual({
      id: 601,
      name: 'after',
      tag: 'new',
    });
    expect(await (await patch(601, { tag: null })).json()).toEqual({ id: 601, name: 'after' });
    expect(await (await patch(601, {})).json()).toEqual({ id: 601, name: 'after' });
    expect(await (await get('/plants/601')).json()).toEqual({ id: 601, name: 'after' });
  });

  it.skipIf(skip)(
    'refuses a patch with an id, another member, a null name or another media type, and of an unknown plant',
    async () => {
      await create({ id: 602, name: 'kept' });
      expect(await errorOf(await patch(602, { id: 9, name: 'x' }))).toEqual({
        status: 400,
        body: { error: 400, message: expect.stringContaining('id') },
      });
      expect((await errorOf(await patch(602, { colour: 'green' }))).body.message).toContain('colour');
      expect((await errorOf(await patch(602, { name: null }))).body.message).toContain('name');
      expect((await patch(602, { name: 'x' }, 'text/plain')).status).toBe(415);
      expect((await patch(999_999, { name: 'x' })).status).toBe(404);
      expect((await patch('0602', { name: 'x' })).status).toBe(400);
      expect(await (await get('/plants/602')).json()).toEqual({ id: 602, name: 'kept' });
    },
  );

  it.skipIf(skip)('deletes: 204, then 404', async () => {
    await create({ id: 701, name: 'short-lived' });
    const gone = await fetch(`${base}/plants/701`, { method: 'DELETE', headers: auth });
    expect(gone.status).toBe(204);
    expect(await gone.text()).toBe('');
    expect(await errorOf(await fetch(`${base}/plants/701`, { method: 'DELETE', headers: auth }))).toEqual({
      status: 404,
      body: { error: 404, message: expect.any(String) },
    });
    expect((await get('/plants/701')).status).toBe(404);
  });

  it.skipIf(skip)("passes the bench's own seeding and smoke checks", async () => {
    await seedPlants(base, TOKEN, 2001, 2150);
    await smokeCheck(base, TOKEN, 2001, 2150);
    await smokeCheckPatch(base, TOKEN, 2001);
  });
});

describe('peer-main', () => {
  const entry = fileURLToPath(new URL('../dist/peers/peer-main.js', import.meta.url));

  it('runs a peer as its own process, as the bench starts it, and stops on SIGTERM', async () => {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`pnpm build\` in apps/bench first`);
    const server = await startPeer('koa-minimal', undefined, join(work, 'process.db'), entry);
    try {
      const res = await fetch(`${server.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, name: 'from a process' }),
      });
      expect(res.status).toBe(201);
      expect(server.alive()).toBe(true);
    } finally {
      await server.stop();
    }
    expect(server.alive()).toBe(false);
  });
});
