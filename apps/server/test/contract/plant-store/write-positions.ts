import * as E from 'fp-ts/lib/Either.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalRequest } from '../../../src/idempotency/canonical-request.js';
import type { Change } from '../../../src/ports/change-log.js';
import type { WrittenPlant } from '../../../src/ports/plant-store.js';
import type { Store } from '../../../src/ports/store.js';
import { idempotencyKey, plantId, plantName, plantTag, rightOf } from '../values.js';
import type { PlantStoreSuite } from './suite.js';

const HOUR_AGO = (): number => Date.now() - 3_600_000;

/** The change numbered `seq`, or undefined. */
const changeAt = async (store: Store, seq: number): Promise<Change | undefined> => {
  const read = rightOf(await store.changes.above(seq - 1, 1, HOUR_AGO())());
  if (read.kind !== 'changes') throw new TypeError(`change ${seq}: ${read.kind}`);
  return read.changes[0]?.seq === seq ? read.changes[0] : undefined;
};

/**
 * Where each write stands in the change log (X-Change-Seq on a write's answer): the number of
 * the change it made, or, when it changed nothing, the newest number its snapshot saw; a keyed
 * create's number is saved with its key and replayed.
 */
export const writePositionsContract = (suite: PlantStoreSuite): void => {
  const { freshBase, runId } = suite;
  describe("each write's change number", () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });
    const newest = async (): Promise<number> => rightOf(await store.changes.newest()());

    it('is the number of the change a create, an update, a replace and a delete made', async () => {
      const id = plantId(freshBase() + 1);
      const other = plantId(freshBase() + 1);
      const created = rightOf(await store.plants.create({ id, name: plantName('fern') })());
      const assigned = rightOf(await store.plants.create({ name: plantName('assigned') })());
      const updated = rightOf(await store.plants.update(id, { tag: plantTag('green') }, {})());
      const replaced = rightOf(await store.plants.replace(id, { name: plantName('ivy') }, {})());
      const put = rightOf(await store.plants.replace(other, { name: plantName('new') }, {})());
      const deleted = rightOf(await store.plants.delete(id)());
      const numbers = [created, assigned, updated, replaced, put, deleted].map((w) => w.changeSeq);
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      expect(new Set(numbers).size).toBe(numbers.length);
      expect(await newest()).toBeGreaterThanOrEqual(deleted.changeSeq);
      expect(await changeAt(store, created.changeSeq)).toMatchObject({
        type: 'plant.created',
        id,
        version: created.version,
      });
      expect(await changeAt(store, assigned.changeSeq)).toMatchObject({ type: 'plant.created', id: assigned.plant.id });
      expect(await changeAt(store, updated.changeSeq)).toMatchObject({ type: 'plant.updated', id, tag: 'green' });
      expect(await changeAt(store, replaced.changeSeq)).toMatchObject({ type: 'plant.updated', id, name: 'ivy' });
      expect(await changeAt(store, put.changeSeq)).toMatchObject({ type: 'plant.created', id: other, name: 'new' });
      expect(await changeAt(store, deleted.changeSeq)).toMatchObject({ type: 'plant.deleted', id });
    });

    it('is the newest number for a write that changed nothing', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await store.plants.create({ id, name: plantName('same') })());
      const before = await newest();
      expect(rightOf(await store.plants.update(id, {}, {})()).changeSeq).toBe(before);
      expect(rightOf(await store.plants.update(id, { name: plantName('same') }, {})()).changeSeq).toBe(before);
      expect(rightOf(await store.plants.replace(id, { name: plantName('same') }, {})()).changeSeq).toBe(before);
      expect(await newest()).toBe(before);
    });

    it('gives concurrent writes each the number of its own change', async () => {
      const base = freshBase();
      const writes = await Promise.all(
        Array.from({ length: 30 }, (_, i): Promise<E.Either<unknown, WrittenPlant>> => {
          const id = plantId(base + 1 + (i % 10));
          if (i < 10) return store.plants.create({ id, name: plantName(`c ${i}`) })();
          if (i < 20) return store.plants.replace(id, { name: plantName(`r ${i}`) }, {})();
          return store.plants.create({ name: plantName(`a ${i}`) })();
        }),
      );
      const numbers = writes.map((w) => rightOf(w).changeSeq);
      expect(new Set(numbers).size).toBe(30);
      for (const [i, w] of writes.entries()) {
        const written = rightOf(w);
        expect(await changeAt(store, written.changeSeq), `write ${i}`).toMatchObject({
          id: written.plant.id,
          version: written.version,
          name: written.plant.name,
        });
      }
    });

    it("saves a keyed create's number with its key and replays it; a 409 is saved without one", async () => {
      const id = plantId(freshBase() + 1);
      const plant = { id, name: plantName('keyed') };
      const claim = { owner: `positions-${runId}`, key: idempotencyKey(`k-${id}`), request: canonicalRequest(plant) };
      const first = rightOf(await store.plants.createOnce(plant, claim)());
      expect(first.replayed).toBe(false);
      const created = rightOf(first.result);
      expect(created.changeSeq).toBeDefined();
      expect(await changeAt(store, created.changeSeq ?? 0)).toMatchObject({ type: 'plant.created', id });
      rightOf(await store.plants.update(id, { name: plantName('changed since') }, {})());
      const again = rightOf(await store.plants.createOnce(plant, claim)());
      expect(again).toEqual({ result: E.right(created), replayed: true });
      const taken = { id, name: plantName('other') };
      const takenClaim = { ...claim, key: idempotencyKey(`t-${id}`), request: canonicalRequest(taken) };
      expect(rightOf(await store.plants.createOnce(taken, takenClaim)()).result).toEqual(
        E.left({ _tag: 'IdTaken', id }),
      );
      expect(rightOf(await store.plants.createOnce(taken, takenClaim)())).toEqual({
        result: E.left({ _tag: 'IdTaken', id }),
        replayed: true,
      });
    });
  });
};
