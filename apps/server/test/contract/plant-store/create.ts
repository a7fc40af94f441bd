import { MAX_PLANT_ID, PlantId } from '@plant-store/domain';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/ports/store.js';
import { plainPlant, plantId, plantName, plantTag, rightOf } from '../values.js';
import { page, tagOf, type PlantStoreSuite } from './suite.js';

/** Creates: assigned and client-chosen ids, what is stored, the high-water mark, IdTaken. */
export const createContract = (suite: PlantStoreSuite): void => {
  const { freshBase, create } = suite;
  describe('create', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    it('assigns an id when none is given and returns the stored plant', async () => {
      const plant = rightOf(await create({ name: plantName('Monstera'), tag: plantTag('tropical') }));
      expect(PlantId.is(plant.id)).toBe(true);
      expect(plant).toEqual({ id: plant.id, name: 'Monstera', tag: 'tropical' });
      expect(rightOf(await store.plants.get(plant.id)().then(plainPlant))).toEqual(plant);
    });

    it('keeps a client-chosen id and stores the name exactly as sent', async () => {
      const id = plantId(freshBase() + 1);
      const name = plantName('  Ficus lyrata \u{1F331} ünïcödé  ');
      expect(rightOf(await create({ id, name, tag: plantTag('tag with spaces') }))).toEqual({
        id,
        name,
        tag: 'tag with spaces',
      });
      expect(rightOf(await store.plants.get(id)().then(plainPlant))).toEqual({ id, name, tag: 'tag with spaces' });
    });

    it('omits an absent tag (no member, never null) in create, get and list', async () => {
      const id = plantId(freshBase() + 1);
      const created = rightOf(await create({ id, name: plantName('Pothos') }));
      const got = rightOf(await store.plants.get(id)().then(plainPlant));
      const listed = rightOf(await store.plants.list(page(1, id - 1))()).plants;
      for (const plant of [created, got, listed[0]]) {
        expect(plant).toEqual({ id, name: 'Pothos' });
        expect(Object.hasOwn(plant ?? {}, 'tag')).toBe(false);
      }
    });

    it('returns IdTaken for a taken id and changes nothing', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('first'), tag: plantTag('a') }));
      expect(await create({ id, name: plantName('second') })).toEqual({ _tag: 'Left', left: { _tag: 'IdTaken', id } });
      expect(rightOf(await store.plants.get(id)().then(plainPlant))).toEqual({ id, name: 'first', tag: 'a' });
    });

    it('never assigns an id that a client chose', async () => {
      const first = rightOf(await create({ name: plantName('server') }));
      const chosen = [first.id + 1, first.id + 2, first.id + 5].map(plantId);
      for (const id of chosen) rightOf(await create({ id, name: plantName('client') }));
      const assigned: number[] = [];
      for (let i = 0; i < 6; i += 1) assigned.push(rightOf(await create({ name: plantName(`server ${i}`) })).id);
      expect(new Set(assigned).size).toBe(assigned.length);
      for (const id of [first.id, ...chosen]) expect(assigned).not.toContain(id);
      for (const id of chosen) expect(rightOf(await store.plants.get(id)().then(plainPlant)).name).toBe('client');
    });

    it('never reuses a deleted id, server-assigned or client-chosen', async () => {
      const assigned = rightOf(await create({ name: plantName('to delete') }));
      rightOf(await store.plants.delete(assigned.id)());
      const chosen = plantId(assigned.id + 10);
      rightOf(await create({ id: chosen, name: plantName('client, to delete') }));
      rightOf(await store.plants.delete(chosen)());
      const later: number[] = [];
      for (let i = 0; i < 12; i += 1) later.push(rightOf(await create({ name: plantName(`later ${i}`) })).id);
      expect(later).not.toContain(assigned.id);
      expect(later).not.toContain(chosen);
    });

    // Only ids that get stored raise the high-water mark. A 404 delete of 2^53−1 that moved it
    // would send every later server-assigned create to the gap search, which reuses deleted ids.
    it('does not move the high-water mark on a delete of an absent id', async () => {
      const before = rightOf(await create({ name: plantName('before the failed deletes') }));
      for (const absent of [MAX_PLANT_ID, before.id + 5].map(plantId)) {
        expect(await store.plants.delete(absent)()).toEqual({
          _tag: 'Left',
          left: { _tag: 'PlantNotFound', id: absent },
        });
      }
      expect(rightOf(await create({ name: plantName('after the failed deletes') })).id).toBe(before.id + 1);
      // In the same batch as a create, too.
      const [deleted, assigned] = await Promise.all([
        store.plants.delete(plantId(MAX_PLANT_ID))(),
        create({ name: plantName('same batch') }),
      ]);
      expect(tagOf(deleted)).toBe('PlantNotFound');
      expect(rightOf(assigned).id).toBe(before.id + 2);
    });

    it('does not lower the high-water mark on a delete of the highest id', async () => {
      const assigned = rightOf(await create({ name: plantName('below the high id') }));
      const high = plantId(assigned.id + 10);
      rightOf(await create({ id: high, name: plantName('the highest id') }));
      rightOf(await store.plants.delete(high)());
      expect(rightOf(await create({ name: plantName('after the delete') })).id).toBe(high + 1);
    });

    it('gives each of 50 concurrent server-assigned creates its own id', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => create({ name: plantName(`bulk ${i}`) })));
      const ids = results.map((r) => rightOf(r).id);
      expect(new Set(ids).size).toBe(50);
      for (const [i, id] of ids.entries())
        expect(rightOf(await store.plants.get(id)().then(plainPlant)).name).toBe(`bulk ${i}`);
    });
  });
};
