import { beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/ports/store.js';
import { plainPlant, plantId, plantName, plantTag, rightOf } from '../values.js';
import { page, tagOf, type PlantStoreSuite } from './suite.js';

/** Ping, close (idempotent, flushing pending writes) and reopening. */
export const lifecycleContract = (suite: PlantStoreSuite): void => {
  const { open, persistent, freshBase, newToken } = suite;
  describe('lifecycle', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    it('answers ping', async () => {
      expect(await store.plants.ping()()).toEqual({ _tag: 'Right', right: undefined });
    });

    it('closes idempotently; afterwards every operation resolves to StoreUnavailable', async () => {
      const other = await open();
      await Promise.all([other.close(), other.close()]);
      await other.close();
      const id = plantId(1);
      const outcomes = await Promise.all([
        other.plants
          .create({ name: plantName('late') })()
          .then(plainPlant),
        other.plants.get(id)().then(plainPlant),
        other.plants.delete(id)(),
        other.plants.list(page(1, 0))(),
        other.plants.ping()(),
        other.tokens.insert(newToken())(),
        other.tokens.count()(),
      ]);
      expect(outcomes.map(tagOf)).toEqual(Array(outcomes.length).fill('StoreUnavailable'));
    });

    it('flushes writes still pending when close is called', async () => {
      const other = await open();
      const id = plantId(freshBase() + 1);
      const pending = other.plants
        .create({ id, name: plantName('pending at close') })()
        .then(plainPlant);
      await other.close();
      expect(tagOf(await pending)).toBe('Right');
      if (persistent) expect(tagOf(await store.plants.get(id)().then(plainPlant))).toBe('Right');
    });

    it.runIf(persistent)('sees committed data after reopening, ids included', async () => {
      const first = await open();
      const id = plantId(freshBase() + 1);
      const token = newToken(['plants:write']);
      rightOf(
        await first.plants
          .create({ id, name: plantName('durable'), tag: plantTag('kept') })()
          .then(plainPlant),
      );
      rightOf(await first.tokens.insert(token)());
      const deleted = rightOf(
        await first.plants
          .create({ name: plantName('deleted before reopen') })()
          .then(plainPlant),
      );
      rightOf(await first.plants.delete(deleted.id)());
      await first.close();

      const second = await open();
      try {
        expect(rightOf(await second.plants.get(id)().then(plainPlant))).toEqual({ id, name: 'durable', tag: 'kept' });
        expect(rightOf(await second.tokens.findByHash(token.hash)())?.id).toBe(token.id);
        const next = rightOf(
          await second.plants
            .create({ name: plantName('after reopen') })()
            .then(plainPlant),
        );
        expect(next.id).not.toBe(deleted.id);
      } finally {
        await second.close();
      }
    });
  });
};
