import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fold, type PlantId } from '@plant-store/domain';
import { until } from '@plant-store/testkit';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { PageQuery } from '../../ports/plant-store.js';
import { plantId, plantName, rightOf } from '../../../test/contract/values.js';
import { openSqliteStore } from './open.js';
import { SEARCH_INDEX_DELAY_MS } from './search-index.js';

// The search index kept behind the writes (migration 7, search-index.ts), on real files: random
// creates, renames and deletes, some searched before the indexer ran and some after, every
// search compared with the plants themselves, and FTS5's own check of the index against the
// plants once the store is closed.

const dir = mkdtempSync(join(tmpdir(), 'plant-store-search-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORDS = ['Fern', 'moss', 'IVY', 'fernmoss', 'Ivy fern', 'Palm'];
const QUERIES = ['fern', 'moss', 'ivy', 'n m', 'palm', 'rnm'];
/** Plants the store's search indexer has still to add, read from the file beside the store. */
const pendingCount = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM plants_search_pending').pluck().get() as number;
  } finally {
    db.close();
  }
};

type Step =
  | { readonly kind: 'create'; readonly word: number }
  | { readonly kind: 'rename'; readonly pick: number; readonly word: number }
  | { readonly kind: 'delete'; readonly pick: number }
  | { readonly kind: 'settle' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('create' as const), word: fc.nat(WORDS.length - 1) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('rename' as const), pick: fc.nat(), word: fc.nat(WORDS.length - 1) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'settle' as const }) },
);

describe('the search index behind the writes (SQLite)', () => {
  it('finds every plant as its name is now, before and after the index catches up, and ends whole', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
        const file = join(dir, `store-${run++}.db`);
        const store = await openSqliteStore({ file, synchronous: 'NORMAL' });
        const names = new Map<number, string>();
        let next = 1;
        const check = async (): Promise<void> => {
          for (const q of QUERIES) {
            const matching = [...names].filter(([, name]) => fold(name).includes(q)).map(([id]) => id);
            for (const order of [
              { by: 'id', descending: false },
              { by: 'id', descending: true },
              { by: 'name', descending: false },
            ] as const) {
              const query: PageQuery = { q, limit: 100, order };
              const page = rightOf(await store.plants.list(query)()).plants.map((p) => p.id as number);
              const expected = [...matching].sort((a, b) => {
                if (order.by === 'id') return order.descending ? b - a : a - b;
                const [fa, fb] = [fold(names.get(a) ?? ''), fold(names.get(b) ?? '')];
                return fa < fb ? -1 : fa > fb ? 1 : a - b;
              });
              expect(page, `q=${q} ${order.by}${order.descending ? ' desc' : ''}`).toEqual(expected);
            }
            expect(rightOf(await store.plants.count({ q })()), `count q=${q}`).toBe(matching.length);
          }
        };
        try {
          for (const s of steps) {
            const ids = [...names.keys()];
            if (s.kind === 'create') {
              const name = `${WORDS[s.word] ?? 'x'} ${next}`;
              rightOf(await store.plants.create({ id: plantId(next), name: plantName(name) })());
              names.set(next, name);
              next += 1;
            } else if (s.kind === 'rename' && ids.length > 0) {
              const id = ids[s.pick % ids.length] as number;
              const name = `${WORDS[s.word] ?? 'x'} r${id}`;
              rightOf(await store.plants.update(plantId(id) as PlantId, { name: plantName(name) }, {})());
              names.set(id, name);
            } else if (s.kind === 'delete' && ids.length > 0) {
              const id = ids[s.pick % ids.length] as number;
              rightOf(await store.plants.delete(plantId(id) as PlantId)());
              names.delete(id);
            } else if (s.kind === 'settle') {
              // The indexer has run: nothing is left in the pending list (its timer fires
              // SEARCH_INDEX_DELAY_MS after a write).
              await until('the search index to catch up', () => pendingCount(file) === 0, 10_000, {
                everyMs: SEARCH_INDEX_DELAY_MS / 4,
              });
              await check();
            }
          }
          await check();
        } finally {
          await store.close();
        }
        const db = new Database(file);
        try {
          expect(db.prepare('SELECT count(*) FROM plants_search_pending').pluck().get()).toBe(0);
          expect(() =>
            db.prepare("INSERT INTO plants_search (plants_search, rank) VALUES ('integrity-check', 1)").run(),
          ).not.toThrow();
        } finally {
          db.close();
        }
      }),
      { numRuns: 25 },
    );
    // 25 fresh stores: about 10 s alone, near vitest's 30 s beside other suites on 2 cores. The
    // bound only guards against a hang.
  }, 180_000);
});
