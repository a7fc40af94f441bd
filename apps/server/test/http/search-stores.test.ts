import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/adapters/postgres/open.js';
import { openSqliteStore } from '../../src/adapters/sqlite/open.js';
import {
  describeSearch,
  expectedList,
  expectSameList,
  firstPath,
  nextPath,
  plantName,
  plantTag,
  querySpec,
  resolveQuery,
  SORTS,
  walk,
  wirePlant,
  type Search,
  type WirePlant,
} from './search-support.js';
import { bearer, jsonHeaders, request, startTestServer, type Reply, type TestServer } from './support.js';
import { seedFrom } from '../support/seed.js';

/*
 * One random store built on SQLite and on PostgreSQL by the same requests (creates with explicit
 * ids, renames, re-tags, deletes), then many random queries sent to both, answer by answer: the
 * status, the body byte for byte, the Link and the count headers must be the same, and the
 * plants those of the model. The contract promises the two stores answer alike, cursors
 * included, so a store may replace the other behind a client that is paging.
 *
 * Needs both stores at once, so it runs in the `sqlite` project only (vitest.config.ts leaves it
 * out of the `postgres` one). SEARCH_STORES_SEED (default fixed, `random`), SEARCH_STORES_PLANTS
 * and SEARCH_STORES_QUERIES set the run.
 */

const SEED = seedFrom('SEARCH_STORES_SEED', 1126);
const PLANTS = Number(process.env['SEARCH_STORES_PLANTS'] ?? 300);
const QUERIES = Number(process.env['SEARCH_STORES_QUERIES'] ?? 150);
/** Pages compared per query at most: enough to cross many cursors, few enough to keep the run short. */
const MAX_PAGES = 12;

describePostgres('the same store on SQLite and PostgreSQL', () => {
  let sqlite: TestServer;
  let pg: TestServer;
  let schema: FreshPostgres;
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-search-stores-'));
  const model = new Map<number, WirePlant>();

  beforeAll(async () => {
    schema = await freshPostgresUrl();
    [sqlite, pg] = await Promise.all([
      startTestServer({ open: () => openSqliteStore({ file: join(dir, 'plants.db') }) }),
      startTestServer({ open: () => openPostgresStore({ url: schema.url, poolSize: 4 }) }),
    ]);
    // Both servers issued the same token names; each checks its own, so requests carry each its own.
    const rnd = fc.sample(
      fc.tuple(
        fc.uniqueArray(fc.integer({ min: 1, max: 50_000 }), { minLength: PLANTS, maxLength: PLANTS }),
        fc.array(fc.tuple(plantName, plantTag), { minLength: PLANTS, maxLength: PLANTS }),
        fc.array(fc.tuple(fc.nat(), fc.option(plantName, { nil: undefined }), fc.oneof(plantTag, fc.constant(null))), {
          minLength: Math.floor(PLANTS / 3),
          maxLength: Math.floor(PLANTS / 3),
        }),
        fc.array(fc.nat(), { minLength: Math.floor(PLANTS / 6), maxLength: Math.floor(PLANTS / 6) }),
      ),
      { seed: SEED, numRuns: 1 },
    )[0];
    if (rnd === undefined) throw new Error('no sample');
    const [ids, plants, patches, deletes] = rnd;
    const send = async (server: TestServer, path: string, method: string, body?: unknown): Promise<Reply> => {
      const reply = await request(server, path, {
        method,
        headers:
          method === 'PATCH'
            ? { ...bearer(server.tokens.all), 'content-type': 'application/merge-patch+json' }
            : jsonHeaders(server.tokens.all),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (reply.status >= 300) throw new Error(`set-up ${method} ${path}: ${reply.status} ${reply.text}`);
      return reply;
    };
    const onBoth = (path: string, method: string, body?: unknown) =>
      Promise.all([send(sqlite, path, method, body), send(pg, path, method, body)]);
    // Ten at a time: the stores batch concurrent writes, and the order of ids is the store's own.
    for (let i = 0; i < PLANTS; i += 10) {
      await Promise.all(
        ids.slice(i, i + 10).map(async (id, j) => {
          const [name, tag] = plants[i + j] as [string, string | undefined];
          await onBoth('/plants', 'POST', { id, name, tag });
          model.set(id, wirePlant(id, name, tag));
        }),
      );
    }
    for (const [pick, name, tag] of patches) {
      const id = ids[pick % ids.length] as number;
      const plant = model.get(id);
      if (plant === undefined) continue;
      await onBoth(`/plants/${id}`, 'PATCH', { name, tag });
      model.set(id, wirePlant(id, name ?? plant.name, tag === undefined ? plant.tag : (tag ?? undefined)));
    }
    for (const pick of deletes) {
      const id = ids[pick % ids.length] as number;
      if (!model.has(id)) continue;
      await onBoth(`/plants/${id}`, 'DELETE');
      model.delete(id);
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([sqlite?.close(), pg?.close()]);
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every query alike on both stores, page by page, as the model says', async () => {
    const searches = fc.sample(
      fc.record({
        q: querySpec,
        tag: plantTag,
        sort: fc.option(fc.constantFrom(...SORTS), { nil: undefined, freq: 6 }),
        limit: fc.constantFrom(1, 2, 3, 5, 10, 50, 1000),
        count: fc.boolean(),
      }),
      { seed: SEED + 1, numRuns: QUERIES },
    );
    const names = [...model.values()].map((p) => p.name);
    let pagesCompared = 0;
    for (const drawn of searches) {
      const search: Search = { q: resolveQuery(drawn.q, names), tag: drawn.tag, sort: drawn.sort, limit: drawn.limit };
      const expected = expectedList(model.values(), search);
      const got: WirePlant[] = [];
      let path: string | undefined = firstPath(search);
      let pages = 0;
      while (path !== undefined && pages < MAX_PAGES) {
        const what = `GET ${path} (${describeSearch(search)})`;
        const [a, b] = await Promise.all([
          request(sqlite, path, {
            headers: { ...bearer(sqlite.tokens.read), ...(drawn.count ? { prefer: 'count=exact' } : {}) },
          }),
          request(pg, path, {
            headers: { ...bearer(pg.tokens.read), ...(drawn.count ? { prefer: 'count=exact' } : {}) },
          }),
        ]);
        const view = (r: Reply) => ({
          status: r.status,
          body: r.text,
          link: r.headers.link,
          total: r.headers['x-total-count'],
          applied: r.headers['preference-applied'],
        });
        expect(view(b), `${what}: PostgreSQL differs from SQLite`).toEqual(view(a));
        expect(a.status, `${what}: ${a.text}`).toBe(200);
        expect(a.headers['x-total-count'], what).toBe(drawn.count ? String(expected.length) : undefined);
        got.push(...(a.json as WirePlant[]));
        path = nextPath(a);
        pages += 1;
      }
      pagesCompared += pages;
      expectSameList(
        got,
        path === undefined ? expected : expected.slice(0, got.length),
        `${describeSearch(search)} (first ${pages} pages)`,
      );
    }
    console.log(
      `search stores: ${model.size} plants, ${QUERIES} queries, ${pagesCompared} pages compared, seed ${SEED}`,
    );
  }, 240_000);

  it('holds the same plants on both stores, as the model says', async () => {
    const [a, b] = await Promise.all([walk(sqlite, { limit: 1000 }), walk(pg, { limit: 1000 })]);
    expectSameList(
      a.plants,
      [...model.values()].sort((x, y) => x.id - y.id),
      'SQLite',
    );
    expect(b.replies.map((r) => r.text)).toEqual(a.replies.map((r) => r.text));
  });
});
