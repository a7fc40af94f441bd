import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compareIn,
  matches,
  plantName,
  walk,
  wirePlant,
  type Search,
  type Sort,
  type WirePlant,
} from './search-support.js';
import { bearer, jsonHeaders, request, startTestServer, type TestServer } from './support.js';
import { seedFrom } from '../support/seed.js';

/*
 * Keyset paging while another client writes (docs/reference/api.md): a reader pages through a
 * query, in each order, while a writer creates and deletes other plants — some between the
 * reader's pages, at the place its cursor points to (the plant that ended a page deleted, one of
 * the same name created), the rest concurrently. Every plant that existed unchanged throughout
 * must appear exactly once and in order; no plant may appear twice; whatever appears is a plant
 * that existed, as it was. Both stores (the `postgres` project runs this file again).
 * SEARCH_PAGING_SEED (default fixed, `random`) sets the names and the writer's choices.
 */

const SEED = seedFrom('SEARCH_PAGING_SEED', 4242);
const STABLE = 48;
/** Ids of the stable plants are GAP apart; the writer's plants take ids in between. */
const GAP = 16;

/** A small seeded generator for the writer's choices (mulberry32). */
const random = (seed: number) => {
  let a = seed >>> 0;
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const create = async (plant: WirePlant): Promise<boolean> => {
  const reply = await request(server, '/plants', {
    method: 'POST',
    headers: jsonHeaders(server.tokens.all),
    body: JSON.stringify(plant),
  });
  if (reply.status !== 201 && reply.status !== 409) throw new Error(`POST ${JSON.stringify(plant)}: ${reply.text}`);
  return reply.status === 201;
};

const remove = async (id: number): Promise<void> => {
  const reply = await request(server, `/plants/${id}`, { method: 'DELETE', headers: bearer(server.tokens.all) });
  if (reply.status !== 204 && reply.status !== 404) throw new Error(`DELETE /plants/${id}: ${reply.text}`);
};

const cases: Array<[Sort, string | undefined]> = [
  ['id', undefined],
  ['-id', undefined],
  ['name', undefined],
  ['-name', undefined],
  ['id', 'e'],
  ['-id', 'e'],
  ['name', 'e'],
  ['-name', 'e'],
];

describe('paging while another client creates and deletes', () => {
  it.each(cases.map(([sort, q], i) => [sort, q, i] as const))(
    'sort=%s q=%s: every plant that stayed appears once, in order; none twice',
    async (sort, q, index) => {
      const tag = `paging ${index}`;
      const base = (index + 1) * 1_000_000;
      const names = fc.sample(plantName, { seed: SEED + index, numRuns: STABLE * 4 });
      const stable = Array.from({ length: STABLE }, (_, i) => wirePlant(base + i * GAP, names[i] as string, tag));
      for (let i = 0; i < stable.length; i += 8) await Promise.all(stable.slice(i, i + 8).map(create));
      const next = random(SEED + index);
      // Every plant the writer made (deleted ones too: the reader may have seen them), and those alive.
      const volatile = new Map<number, WirePlant>();
      const alive = new Set<number>();
      let named = STABLE;
      let writes = 0;
      const write = async (name?: string): Promise<void> => {
        writes += 1;
        const live = [...alive];
        if (live.length > 0 && next() < 0.4) {
          const id = live[Math.floor(next() * live.length)] as number;
          alive.delete(id);
          await remove(id);
          return;
        }
        const id = base + Math.floor(next() * STABLE) * GAP + 1 + Math.floor(next() * (GAP - 1));
        // An id is used once, so a plant seen is the one plant that ever had its id.
        if (volatile.has(id)) return;
        const plant = wirePlant(id, name ?? (names[named++ % names.length] as string), next() < 0.2 ? `${tag} x` : tag);
        volatile.set(id, plant);
        if (await create(plant)) alive.add(id);
      };

      let done = false;
      const writer = (async () => {
        while (!done) await write();
      })();
      const search: Search = { tag, q, sort, limit: 4 };
      let walked: WirePlant[];
      try {
        walked = (
          await walk(server, search, {
            // At the cursor: the plant that ended the page deleted when the writer made it, and one
            // of the same name (a tie, ordered by id) created.
            between: async (page) => {
              const last = page[page.length - 1] as WirePlant;
              if (alive.has(last.id) && next() < 0.7) {
                alive.delete(last.id);
                await remove(last.id);
              }
              await write(last.name);
            },
          })
        ).plants;
      } finally {
        done = true;
        await writer;
      }

      const what = `sort=${sort} q=${String(q)} (SEARCH_PAGING_SEED=${SEED})`;
      const ids = walked.map((p) => p.id);
      expect(new Set(ids).size, `${what}: a plant appeared twice`).toBe(ids.length);
      const stayed = stable.filter((p) => matches(p, search));
      const shown = new Map(walked.map((p) => [p.id, p]));
      for (const plant of stayed) expect(shown.get(plant.id), `${what}: plant ${plant.id}`).toEqual(plant);
      for (const plant of walked) {
        const known = stable.find((p) => p.id === plant.id) ?? volatile.get(plant.id);
        expect(plant, `${what}: a plant that never existed as shown`).toEqual(known);
        expect(matches(plant, search), `${what}: ${JSON.stringify(plant)} does not match`).toBe(true);
      }
      const order = compareIn(sort);
      for (let i = 1; i < walked.length; i++) {
        const [a, b] = [walked[i - 1] as WirePlant, walked[i] as WirePlant];
        expect(order(a, b) < 0, `${what}: ${JSON.stringify(a)} before ${JSON.stringify(b)}`).toBe(true);
      }
      // The writer did write while the reader paged.
      expect(writes, what).toBeGreaterThan(0);
      // Enough plants stayed to page through several times over.
      expect(stayed.length).toBeGreaterThan(q === undefined ? STABLE - 1 : 2);
    },
    60_000,
  );
});
