import { beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import type { Store } from '../../../src/ports/store.js';
import { plainPlant, plantId, plantName, rightOf } from '../values.js';
import { tagOf, type PlantStoreSuite } from './suite.js';

/** Concurrent writes, within one store and across two instances over one database. */
export const concurrencyContract = (suite: PlantStoreSuite): void => {
  const { open, persistent, freshBase, newToken, create } = suite;
  describe('concurrency', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    it('lets exactly one of 50 concurrent creates of one id succeed', async () => {
      const id = plantId(freshBase() + 1);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => create({ id, name: plantName(`racer ${i}`) })),
      );
      const winners = results.flatMap((r, i) => (E.isRight(r) ? [i] : []));
      expect(winners).toHaveLength(1);
      for (const r of results) if (E.isLeft(r)) expect(r.left).toEqual({ _tag: 'IdTaken', id });
      expect(rightOf(await store.plants.get(id)().then(plainPlant)).name).toBe(`racer ${winners[0]}`);
    });

    it('lets exactly one of 20 concurrent deletes of one plant succeed', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('contested') }));
      const results = await Promise.all(Array.from({ length: 20 }, () => store.plants.delete(id)()));
      expect(results.filter((r) => E.isRight(r))).toHaveLength(1);
      for (const r of results) if (E.isLeft(r)) expect(r.left).toEqual({ _tag: 'PlantNotFound', id });
    });

    it('fails only the conflicting write among concurrent good ones', async () => {
      const base = freshBase();
      const taken = plantId(base + 1);
      rightOf(await create({ id: taken, name: plantName('original') }));
      const results = await Promise.all([
        create({ id: plantId(base + 2), name: plantName('good 2') }),
        create({ id: taken, name: plantName('conflict') }),
        create({ id: plantId(base + 3), name: plantName('good 3') }),
        store.tokens.insert(newToken())(),
        // Last: a server-assigned id may be any free id, base + 3 included.
        create({ name: plantName('good, assigned') }),
      ]);
      expect(results.map(tagOf)).toEqual(['Right', 'IdTaken', 'Right', 'Right', 'Right']);
      expect(rightOf(await store.plants.get(taken)().then(plainPlant)).name).toBe('original');
      expect(
        rightOf(
          await store.plants
            .get(plantId(base + 2))()
            .then(plainPlant),
        ).name,
      ).toBe('good 2');
      expect(
        rightOf(
          await store.plants
            .get(plantId(base + 3))()
            .then(plainPlant),
        ).name,
      ).toBe('good 3');
    });

    it('applies concurrent writes of one id in the order they were made', async () => {
      const base = freshBase();
      const id = plantId(base + 1);
      const absent = plantId(base + 2);
      const results = await Promise.all([
        create({ id, name: plantName('first') }),
        store.plants.delete(id)(),
        create({ id, name: plantName('second') }),
        store.plants.delete(absent)(),
        create({ id: absent, name: plantName('after the failed delete') }),
      ]);
      expect(results.map(tagOf)).toEqual(['Right', 'Right', 'Right', 'PlantNotFound', 'Right']);
      expect(rightOf(await store.plants.get(id)().then(plainPlant)).name).toBe('second');
    });

    it.runIf(persistent)('lets exactly one create win across two store instances over one database', async () => {
      const other = await open();
      try {
        const id = plantId(freshBase() + 1);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 === 0 ? store : other).plants.create({ id, name: plantName(`racer ${i}`) })(),
          ),
        );
        expect(results.filter((r) => E.isRight(r))).toHaveLength(1);
        expect(
          results
            .map(tagOf)
            .filter((tag) => tag !== 'Right')
            .every((tag) => tag === 'IdTaken'),
        ).toBe(true);
        expect(tagOf(await other.plants.get(id)().then(plainPlant))).toBe('Right');
      } finally {
        await other.close();
      }
    });
  });
};
