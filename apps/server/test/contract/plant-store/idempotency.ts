import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalRequest } from '../../../src/idempotency/canonical-request.js';
import type { IdempotencyClaim, NewPlant } from '../../../src/ports/plant-store.js';
import type { Store } from '../../../src/ports/store.js';
import { idempotencyKey, plainPlant, plantId, plantName, plantTag, rightOf } from '../values.js';
import { page, tagOf, type PlantStoreSuite } from './suite.js';

/** Idempotency keys: saved outcomes and replays, reuse with another request, owners, concurrent keyed creates, the purge. */
export const idempotencyContract = (suite: PlantStoreSuite): void => {
  const { open, persistent, freshBase, runId, create } = suite;
  describe('idempotency keys', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    let claims = 0;
    /** A claim of `plant` with a key no other test uses. */
    const claim = (plant: NewPlant, owner = `token tok_${runId}`): IdempotencyClaim => {
      claims += 1;
      return { owner, key: idempotencyKey(`key-${runId}-${claims}`), request: canonicalRequest(plant) };
    };
    /** A create of `plant` with the key of `c` (which may have been claimed for another request). */
    const createOnce = (plant: NewPlant, c: IdempotencyClaim, on: Store = store) =>
      on.plants.createOnce(plant, { ...c, request: canonicalRequest(plant) })();

    it('saves the outcome with the plant and replays it, changing nothing', async () => {
      const plant: NewPlant = { name: plantName('keyed'), tag: plantTag('t') };
      const c = claim(plant);
      const first = rightOf(await createOnce(plant, c));
      expect(first.replayed).toBe(false);
      const stored = rightOf(first.result);
      const created = stored.plant;
      expect(created).toEqual({ id: created.id, name: 'keyed', tag: 't' });
      // The replay carries the version the 201 had: the same ETag.
      const again = rightOf(await createOnce(plant, c));
      expect(again).toEqual({ result: { _tag: 'Right', right: stored }, replayed: true });
      // Nothing was created by the replay: the next assigned id follows the first plant's directly.
      const next = rightOf(await create({ name: plantName('after') }));
      expect(rightOf(await store.plants.list(page(10, created.id))()).plants.filter((p) => p.id < next.id)).toEqual([]);
    });

    it('answers IdempotencyKeyReused for another request with the key, and keeps the saved outcome', async () => {
      const original: NewPlant = { name: plantName('original') };
      const c = claim(original);
      const created = rightOf(rightOf(await createOnce(original, c)).result);
      expect(await createOnce({ name: plantName('different') }, c)).toEqual({
        _tag: 'Left',
        left: { _tag: 'IdempotencyKeyReused', key: c.key },
      });
      expect(await createOnce({ name: plantName('original'), tag: plantTag('t') }, c)).toEqual({
        _tag: 'Left',
        left: { _tag: 'IdempotencyKeyReused', key: c.key },
      });
      expect(rightOf(await createOnce(original, c)).result).toEqual({ _tag: 'Right', right: created });
    });

    it('saves and replays IdTaken, even after the plant is gone', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('holder') }));
      const late: NewPlant = { id, name: plantName('late') };
      const c = claim(late);
      expect(rightOf(await createOnce(late, c))).toEqual({
        result: { _tag: 'Left', left: { _tag: 'IdTaken', id } },
        replayed: false,
      });
      rightOf(await store.plants.delete(id)());
      expect(rightOf(await createOnce(late, c))).toEqual({
        result: { _tag: 'Left', left: { _tag: 'IdTaken', id } },
        replayed: true,
      });
      expect(tagOf(await store.plants.get(id)().then(plainPlant))).toBe('PlantNotFound');
    });

    it('keeps keys apart by owner', async () => {
      const mine = claim({ name: plantName('mine') });
      const theirs = { ...mine, owner: `${mine.owner}-other` };
      const a = rightOf(rightOf(await createOnce({ name: plantName('mine') }, mine)).result).plant;
      const b = rightOf(await createOnce({ name: plantName('theirs') }, theirs));
      expect(b.replayed).toBe(false);
      expect(rightOf(b.result).plant.id).not.toBe(a.id);
    });

    it('gives each keyed create of one group its own outcome, a failing neighbour included', async () => {
      const base = freshBase();
      const taken = plantId(base + 1);
      rightOf(await create({ id: taken, name: plantName('taken') }));
      const writes = Array.from({ length: 30 }, (_, i) => {
        const plant: NewPlant =
          i % 3 === 0
            ? { id: taken, name: plantName(`conflict ${i}`) }
            : i % 3 === 1
              ? { id: plantId(base + 10 + i), name: plantName(`chosen ${i}`) }
              : { name: plantName(`assigned ${i}`) };
        return { plant, c: claim(plant) };
      });
      const first = await Promise.all(writes.map(({ plant, c }) => createOnce(plant, c)));
      const replays = await Promise.all(writes.map(({ plant, c }) => createOnce(plant, c)));
      first.forEach((outcome, i) => {
        const { result, replayed } = rightOf(outcome);
        expect(replayed).toBe(false);
        if (i % 3 === 0) expect(result).toEqual({ _tag: 'Left', left: { _tag: 'IdTaken', id: taken } });
        else expect(rightOf(result).plant.name).toBe(i % 3 === 1 ? `chosen ${i}` : `assigned ${i}`);
        expect(rightOf(replays[i] ?? expect.fail('no replay'))).toEqual({ result, replayed: true });
      });
    });

    it('makes one plant of 20 concurrent creates with one key', async () => {
      const plant: NewPlant = { name: plantName('once') };
      const c = claim(plant);
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => createOnce(plant, c)));
      const plants = outcomes.map((o) => rightOf(rightOf(o).result).plant);
      expect(new Set(plants.map((p) => p.id)).size).toBe(1);
      expect(outcomes.filter((o) => !rightOf(o).replayed)).toHaveLength(1);
    });

    it.runIf(persistent)('makes one plant of concurrent creates with one key across two store instances', async () => {
      const other = await open();
      try {
        const plant: NewPlant = { name: plantName('across') };
        const c = claim(plant);
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => createOnce(plant, c, i % 2 === 0 ? store : other)),
        );
        const plants = outcomes.map((o) => rightOf(rightOf(o).result).plant);
        expect(new Set(plants.map((p) => p.id)).size).toBe(1);
        expect(outcomes.filter((o) => !rightOf(o).replayed)).toHaveLength(1);
        expect(
          rightOf(
            await other.plants
              .get(plants[0]?.id ?? plantId(1))()
              .then(plainPlant),
          ).name,
        ).toBe('across');
      } finally {
        await other.close();
      }
    });

    it('purges nothing that has not expired', async () => {
      const plant: NewPlant = { name: plantName('kept') };
      const c = claim(plant);
      rightOf(await createOnce(plant, c));
      rightOf(await store.plants.purgeExpiredKeys(1000)());
      expect(rightOf(await createOnce(plant, c)).replayed).toBe(true);
    });
  });
};
