import { compareCodePoints, fold, type Plant } from '@plant-store/domain';
import { describe, expect, it } from 'vitest';
import type { NamePlace, PageQuery, PlantOrder } from '../../../src/ports/plant-store.js';
import { plantId, plantName, plantTag, rightOf } from '../values.js';
import type { PlantStoreSuite } from './suite.js';

/**
 * Orders, `q` and counts at the port: every page of every order, walked to the end, is the
 * model's order of the plants the filter keeps. Each test keeps to plants of a tag of its own
 * (the store is shared with the rest of the suite).
 */
export const searchContract = (suite: PlantStoreSuite): void => {
  const { freshBase, runId } = suite;

  // Mixed case, compatibility forms, astral and private-use characters (whose code-point order
  // differs from UTF-16 order), a `%`/`_`/`\` that must not act as wildcards, and equal folds.
  const names = [
    'Boston Fern',
    'FERNLEAF',
    'Sta\uFB00',
    'staff',
    '\uFF26ern (fullwidth)',
    'İvy',
    '\u{1F33F} herb',
    '\uE000 private',
    '50% off_sale\\',
    '50x offxsale',
    'ΣΊΣΥΦΟΣ',
    'fern',
  ];

  const seed = async (tagText: string): Promise<Plant[]> => {
    const store = suite.store();
    const base = freshBase();
    const tag = plantTag(tagText);
    const plants: Plant[] = [];
    for (const [i, name] of names.entries()) {
      const plant = { id: plantId(base + i + 1), name: plantName(name), tag };
      rightOf(await store.plants.create(plant)());
      plants.push(plant);
    }
    return plants;
  };

  const inOrder = (plants: readonly Plant[], order: PlantOrder['by'], descending: boolean): Plant[] => {
    const sorted = [...plants].sort((a, b) =>
      order === 'id' ? a.id - b.id : compareCodePoints(fold(a.name), fold(b.name)) || a.id - b.id,
    );
    return descending ? sorted.reverse() : sorted;
  };

  /** Every page of the query, each starting after the last plant of the one before. */
  const walk = async (query: Omit<PageQuery, 'order'>, by: 'id' | 'name', descending: boolean) => {
    const seen: Plant[] = [];
    for (let pages = 0; pages < 100; pages++) {
      const last = seen.at(-1);
      const order: PlantOrder =
        by === 'id'
          ? { by, descending, ...(last === undefined ? {} : { after: last.id }) }
          : {
              by,
              descending,
              ...(last === undefined ? {} : { after: { folded: fold(last.name), id: last.id } satisfies NamePlace }),
            };
      const page = rightOf(await suite.store().plants.list({ ...query, order })()).plants;
      seen.push(...page);
      if (page.length < query.limit) return seen;
    }
    throw new Error('more than 100 pages');
  };

  describe('orders, search and counts', () => {
    it('walks every order in pages of any size, as the model orders the plants', async () => {
      const tagText = `orders-${runId}`;
      const plants = await seed(tagText);
      const tag = plantTag(tagText);
      for (const by of ['id', 'name'] as const) {
        for (const descending of [false, true]) {
          for (const limit of [1, 3, 5, 100]) {
            const got = await walk({ tag, limit }, by, descending);
            expect(got, `${by} ${descending ? 'desc' : 'asc'} by ${limit}`).toEqual(inOrder(plants, by, descending));
          }
        }
      }
    });

    it('finds folded substrings, with no wildcard, in every order, and counts them exactly', async () => {
      const tagText = `search-${runId}`;
      const plants = await seed(tagText);
      const tag = plantTag(tagText);
      for (const text of [
        'fern',
        'FERN',
        'ff',
        'ﬀ',
        'σίσ',
        '%',
        '_',
        '\\',
        '0% o',
        'i\u0307',
        '\u{1F33F}',
        'e',
        'zzz',
      ]) {
        const q = fold(text);
        const expected = plants.filter((p) => fold(p.name).includes(q));
        expect(rightOf(await suite.store().plants.count({ tag, q })()), text).toBe(expected.length);
        for (const by of ['id', 'name'] as const) {
          for (const descending of [false, true]) {
            const got = await walk({ tag, q, limit: 2 }, by, descending);
            expect(got, `${text} ${by} ${descending}`).toEqual(inOrder(expected, by, descending));
          }
        }
      }
    });

    it('keeps the index and the folded name in step with renames and deletes', async () => {
      const tagText = `renames-${runId}`;
      const plants = await seed(tagText);
      const tag = plantTag(tagText);
      const [first, second] = plants;
      if (first === undefined || second === undefined) throw new Error('seeded too few');
      rightOf(await suite.store().plants.update(first.id, { name: plantName('Maidenhair') }, {})());
      rightOf(await suite.store().plants.delete(second.id)());
      const count = (q: string) =>
        suite
          .store()
          .plants.count({ tag, q: fold(q) })()
          .then(rightOf);
      expect(await count('boston')).toBe(0);
      expect(await count('maidenhair')).toBe(1);
      expect(await count('fernleaf')).toBe(0);
      expect(rightOf(await suite.store().plants.count({ tag })())).toBe(plants.length - 1);
      const byName = await walk({ tag, limit: 4 }, 'name', false);
      expect(byName.map((p) => p.id)).not.toContain(second.id);
      expect(byName.find((p) => p.id === first.id)?.name).toBe('Maidenhair');
      // A tag moved, removed, and a plant created and deleted: each tag's count follows.
      const other = plantTag(`renames-other-${runId}`);
      const [, , third, fourth] = plants;
      if (third === undefined || fourth === undefined) throw new Error('seeded too few');
      rightOf(await suite.store().plants.update(third.id, { tag: other }, {})());
      rightOf(await suite.store().plants.update(fourth.id, { tag: null }, {})());
      const extra = plantId(freshBase() + 1);
      rightOf(await suite.store().plants.create({ id: extra, name: plantName('extra'), tag: other })());
      const counted = (t: typeof tag) => suite.store().plants.count({ tag: t })().then(rightOf);
      expect(await counted(tag)).toBe(plants.length - 3);
      expect(await counted(other)).toBe(2);
      rightOf(await suite.store().plants.delete(extra)());
      expect(await counted(other)).toBe(1);
      expect(await counted(plantTag(`never-${runId}`))).toBe(0);
    });
  });
};
