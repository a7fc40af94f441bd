import { MAX_PLANT_ID, type Plant } from '@plant-store/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/ports/store.js';
import { plainPlant, plantId, plantName, plantTag, rightOf } from '../values.js';
import { page, tagOf, type PlantStoreSuite } from './suite.js';

/** Get by id and delete: PlantNotFound, a delete that takes effect once, a deleted id created again. */
export const getAndDeleteContract = (suite: PlantStoreSuite): void => {
  const { freshBase, create } = suite;
  describe('get and delete', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    it('returns PlantNotFound for an unknown id, with the change number of the read', async () => {
      const id = plantId(freshBase() + 1);
      expect(await store.plants.get(id)().then(plainPlant)).toEqual({
        _tag: 'Left',
        left: { _tag: 'PlantNotFound', id, changeSeq: expect.any(Number) },
      });
    });

    it('deletes a plant once; afterwards get and delete return PlantNotFound', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('short-lived') }));
      expect(await store.plants.delete(id)()).toEqual({ _tag: 'Right', right: { changeSeq: expect.any(Number) } });
      expect(tagOf(await store.plants.get(id)().then(plainPlant))).toBe('PlantNotFound');
      expect(await store.plants.delete(id)()).toEqual({ _tag: 'Left', left: { _tag: 'PlantNotFound', id } });
    });

    it('lets a deleted id be created again by a client', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('one') }));
      rightOf(await store.plants.delete(id)());
      expect(rightOf(await create({ id, name: plantName('two') }))).toEqual({ id, name: 'two' });
    });
  });
};

/** Listing: pages in ascending id order, with limit and after. */
export const listContract = (suite: PlantStoreSuite): void => {
  const { freshBase, create } = suite;
  describe('list', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    it('pages in ascending id order with limit and after', async () => {
      const base = freshBase();
      // Created out of order, so the order cannot come from insertion.
      for (const offset of [3, 1, 5, 2, 4]) {
        const tag = offset % 2 === 0 ? { tag: plantTag(`even ${offset}`) } : {};
        rightOf(await create({ id: plantId(base + offset), name: plantName(`plant ${offset}`), ...tag }));
      }
      const expected = (offset: number): Plant =>
        offset % 2 === 0
          ? ({ id: base + offset, name: `plant ${offset}`, tag: `even ${offset}` } as Plant)
          : ({ id: base + offset, name: `plant ${offset}` } as Plant);
      expect(rightOf(await store.plants.list(page(2, base))()).plants).toEqual([expected(1), expected(2)]);
      expect(rightOf(await store.plants.list(page(2, base + 2))()).plants).toEqual([expected(3), expected(4)]);
      const last = rightOf(await store.plants.list(page(2, base + 4))()).plants;
      expect(last[0]).toEqual(expected(5));
      expect(last.every((p) => p.id > base + 4)).toBe(true);
      expect(rightOf(await store.plants.list(page(3, base + 1))()).plants.map((p) => p.id)).toEqual([
        base + 2,
        base + 3,
        base + 4,
      ]);
    });

    it('returns every page in strictly ascending order from the start', async () => {
      const plants = rightOf(await store.plants.list(page(1000, 0))()).plants;
      expect(plants.length).toBeGreaterThan(0);
      expect(plants.length).toBeLessThanOrEqual(1000);
      for (let i = 1; i < plants.length; i += 1)
        expect((plants[i] as Plant).id).toBeGreaterThan((plants[i - 1] as Plant).id);
    });

    it('returns an empty page after the last possible id', async () => {
      expect(rightOf(await store.plants.list(page(10, MAX_PLANT_ID))()).plants).toEqual([]);
    });
  });
};

/** Listing with a tag filter. */
export const listByTagContract = (suite: PlantStoreSuite): void => {
  const { freshBase } = suite;
  describe('list by tag', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    it('keeps only plants whose tag equals the tag exactly, in id order, with limit and after', async () => {
      const base = freshBase();
      const tag = plantTag(`Tag ${base} é+&%`);
      const near = [plantTag(`tag ${base} é+&%`), plantTag(`Tag ${base} e\u0301+&%`), plantTag(`Tag ${base} é+&% `)];
      const mine: number[] = [];
      for (let i = 1; i <= 9; i += 1) {
        const id = plantId(base + i);
        if (i % 3 === 0) {
          rightOf(
            await store.plants.create({
              id,
              name: plantName(`other ${i}`),
              tag: near[(i / 3 - 1) % near.length] ?? tag,
            })(),
          );
        } else if (i === 4) {
          rightOf(await store.plants.create({ id, name: plantName('untagged') })());
        } else {
          rightOf(await store.plants.create({ id, name: plantName(`mine ${i}`), tag })());
          mine.push(base + i);
        }
      }
      const list = async (limit: number, after: number) =>
        rightOf(await store.plants.list({ ...page(limit, after), tag })()).plants;
      expect((await list(1000, 0)).map((p) => p.id)).toEqual(mine);
      expect((await list(2, 0)).map((p) => p.id)).toEqual(mine.slice(0, 2));
      expect((await list(2, mine[1] ?? 0)).map((p) => p.id)).toEqual(mine.slice(2, 4));
      for (const plant of await list(1000, 0)) expect(plant.tag).toBe(tag);
      // A patch moves a plant in and out of the filter.
      rightOf(await store.plants.update(plantId(base + 4), { tag }, {})());
      rightOf(await store.plants.update(plantId(base + 1), { tag: null }, {})());
      expect((await list(1000, 0)).map((p) => p.id)).toEqual([base + 2, base + 4, ...mine.slice(2)]);
    });
  });
};
