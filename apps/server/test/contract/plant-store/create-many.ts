import type { CreatePlantRequest, PlantId } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalBatchRequest } from '../../../src/idempotency/batch-request.js';
import { canonicalRequest } from '../../../src/idempotency/canonical-request.js';
import type { Change } from '../../../src/ports/change-log.js';
import type { IdempotencyClaim, NewPlant } from '../../../src/ports/plant-store.js';
import type { Store } from '../../../src/ports/store.js';
import { idempotencyKey, plainPlant, plantId, plantName, plantTag, rightOf } from '../values.js';
import { page, tagOf, type PlantStoreSuite } from './suite.js';

const HOUR_AGO = (): number => Date.now() - 3_600_000;

/** Every change above `since`. */
const changesAbove = async (store: Store, since: number): Promise<Change[]> => {
  const all: Change[] = [];
  for (let from = since; ;) {
    const read = rightOf(await store.changes.above(from, 1000, HOUR_AGO())());
    if (read.kind !== 'changes') throw new TypeError(`changes above ${from}: ${read.kind}`);
    all.push(...read.changes);
    const last = read.changes[read.changes.length - 1];
    if (last === undefined) return all;
    from = last.seq;
  }
};

/** Arrays of creates (POST /plants/batch): one transaction, all or nothing, keyed over the whole array. */
export const createManyContract = (suite: PlantStoreSuite): void => {
  const { freshBase, runId, create } = suite;
  describe('createMany', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    let keys = 0;
    const claimOf = (plants: readonly NewPlant[], owner = `token tok_${runId}`): IdempotencyClaim => {
      keys += 1;
      return {
        owner,
        key: idempotencyKey(`batch-${runId}-${keys}`),
        request: canonicalBatchRequest(plants as readonly CreatePlantRequest[]),
      };
    };
    const createMany = (plants: readonly NewPlant[], claim?: IdempotencyClaim) =>
      store.plants.createMany(plants, claim)();

    it('stores every plant in request order, given ids and assigned ones, with one change each', async () => {
      const base = freshBase();
      const before = rightOf(await store.changes.newest()());
      const plants: NewPlant[] = [
        { name: plantName('first') },
        { id: plantId(base + 5), name: plantName('given'), tag: plantTag('t') },
        { name: plantName('third'), tag: plantTag('u') },
        { id: plantId(base + 2), name: plantName('fourth') },
      ];
      const outcome = rightOf(await createMany(plants));
      expect(outcome.replayed).toBe(false);
      const created = rightOf(outcome.result);
      expect(created.plants.map(({ id: _id, ...rest }) => rest)).toEqual(plants.map(({ id: _id, ...rest }) => rest));
      expect(created.plants[1]?.id).toBe(base + 5);
      expect(created.plants[3]?.id).toBe(base + 2);
      // Server-assigned ids: above every given one, distinct, never one the array gives.
      const assigned = [created.plants[0]?.id ?? 0, created.plants[2]?.id ?? 0];
      expect(new Set(assigned).size).toBe(2);
      for (const id of assigned) expect(id).toBeGreaterThan(base + 5);
      for (const plant of created.plants)
        expect(rightOf(await store.plants.get(plant.id)().then(plainPlant))).toEqual(plant);
      const mine = (await changesAbove(store, before)).filter((c) => created.plants.some((p) => p.id === c.id));
      expect(mine.map((c) => c.type)).toEqual(['plant.created', 'plant.created', 'plant.created', 'plant.created']);
      expect(Math.max(...mine.map((c) => c.seq))).toBe(created.changeSeq);
      expect(rightOf(await store.changes.newest()())).toBeGreaterThanOrEqual(created.changeSeq);
    });

    it('stores nothing when a given id is taken, and names every taken id in array order', async () => {
      const base = freshBase();
      const [a, b] = [plantId(base + 1), plantId(base + 2)];
      rightOf(await create({ id: b, name: plantName('holder b') }));
      rightOf(await create({ id: a, name: plantName('holder a') }));
      const before = rightOf(await store.changes.newest()());
      const fresh = plantId(base + 3);
      const outcome = rightOf(
        await createMany([
          { id: fresh, name: plantName('fresh') },
          { id: b, name: plantName('late b') },
          { name: plantName('assigned') },
          { id: a, name: plantName('late a') },
        ]),
      );
      expect(outcome).toEqual({ result: { _tag: 'Left', left: { _tag: 'IdsTaken', ids: [b, a] } }, replayed: false });
      expect(tagOf(await store.plants.get(fresh)())).toBe('PlantNotFound');
      expect(rightOf(await store.plants.get(b)().then(plainPlant)).name).toBe('holder b');
      expect((await changesAbove(store, before)).filter((c) => c.id >= base && c.id < base + 2 ** 20)).toEqual([]);
      // Nothing of the refused array moved the ids on: the next one assigned follows the holders.
      const next = rightOf(await createMany([{ name: plantName('after') }]));
      const id = rightOf(next.result).plants[0]?.id ?? 0;
      expect(id).toBeGreaterThan(a);
      const between = rightOf(await store.plants.list(page(1000, a))()).plants.filter((p) => p.id < id);
      expect(between.map((p) => p.id)).toEqual([b]);
    });

    it('creates a thousand plants in one call', async () => {
      const base = freshBase();
      const plants: NewPlant[] = Array.from({ length: 1000 }, (_, i) =>
        i % 2 === 0 ? { id: plantId(base + 1 + i), name: plantName(`p${i}`) } : { name: plantName(`q${i}`) },
      );
      const created = rightOf(rightOf(await createMany(plants)).result);
      expect(created.plants).toHaveLength(1000);
      expect(new Set(created.plants.map((p) => p.id)).size).toBe(1000);
      const listed = rightOf(await store.plants.list(page(1000, base))()).plants;
      // The given ids are base+1, base+3 … base+999; the assigned ones all come after them.
      expect(listed.filter((p) => p.id <= base + 999).length).toBe(500);
      expect(Math.min(...created.plants.filter((_, i) => i % 2 === 1).map((p) => p.id))).toBe(base + 1000);
    });

    it('saves the outcome with the key and replays it, change number included, changing nothing', async () => {
      const plants: NewPlant[] = [{ name: plantName('k1') }, { name: plantName('k2'), tag: plantTag('x') }];
      const claim = claimOf(plants);
      const first = rightOf(await createMany(plants, claim));
      expect(first.replayed).toBe(false);
      const created = rightOf(first.result);
      rightOf(await store.plants.delete(created.plants[0]?.id ?? plantId(1))());
      const before = rightOf(await store.changes.newest()());
      expect(rightOf(await createMany(plants, claim))).toEqual({ result: E.right(created), replayed: true });
      expect(rightOf(await store.changes.newest()())).toBe(before);
    });

    it('answers IdempotencyKeyReused for another array, another order, or a single create, and keeps the outcome', async () => {
      const plants: NewPlant[] = [{ name: plantName('o1') }, { name: plantName('o2') }];
      const claim = claimOf(plants);
      const created = rightOf(rightOf(await createMany(plants, claim)).result);
      const reused = { _tag: 'Left', left: { _tag: 'IdempotencyKeyReused', key: claim.key } };
      const reversed = [...plants].reverse();
      expect(
        await createMany(reversed, { ...claim, request: canonicalBatchRequest(reversed as CreatePlantRequest[]) }),
      ).toEqual(reused);
      const one = [{ name: plantName('o1') }];
      expect(await createMany(one, { ...claim, request: canonicalBatchRequest(one) })).toEqual(reused);
      const single = { name: plantName('o1') };
      expect(await store.plants.createOnce(single, { ...claim, request: canonicalRequest(single) })()).toEqual(reused);
      expect(rightOf(await createMany(plants, claim)).result).toEqual(E.right(created));
    });

    it("answers IdempotencyKeyReused for an array with a single create's key", async () => {
      const single = { name: plantName('solo') };
      const key = idempotencyKey(`batch-${runId}-single`);
      const owner = `token tok_${runId}`;
      rightOf(await store.plants.createOnce(single, { owner, key, request: canonicalRequest(single) })());
      const plants = [single];
      expect(await createMany(plants, { owner, key, request: canonicalBatchRequest(plants) })).toEqual({
        _tag: 'Left',
        left: { _tag: 'IdempotencyKeyReused', key },
      });
    });

    it('saves and replays IdsTaken, even after the holder is gone', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('holder') }));
      const plants: NewPlant[] = [{ name: plantName('a') }, { id, name: plantName('late') }];
      const claim = claimOf(plants);
      const taken = { result: { _tag: 'Left', left: { _tag: 'IdsTaken', ids: [id] } } };
      expect(rightOf(await createMany(plants, claim))).toEqual({ ...taken, replayed: false });
      rightOf(await store.plants.delete(id)());
      expect(rightOf(await createMany(plants, claim))).toEqual({ ...taken, replayed: true });
      expect(tagOf(await store.plants.get(id)())).toBe('PlantNotFound');
    });

    it('keeps keys apart by owner', async () => {
      const plants: NewPlant[] = [{ name: plantName('mine') }];
      const mine = claimOf(plants);
      rightOf(await createMany(plants, mine));
      const theirs = rightOf(await createMany(plants, { ...mine, owner: `${mine.owner}-other` }));
      expect(theirs.replayed).toBe(false);
    });

    it.runIf(suite.persistent)(
      'creates each array once when the same keyed array arrives on two stores at once',
      async () => {
        const other = await suite.open();
        try {
          const plants: NewPlant[] = [{ name: plantName('race 1') }, { name: plantName('race 2') }];
          const claim = claimOf(plants);
          const [a, b] = await Promise.all([
            store.plants.createMany(plants, claim)(),
            other.plants.createMany(plants, claim)(),
          ]);
          const outcomes = [rightOf(a), rightOf(b)];
          expect(outcomes.map((o) => o.replayed).sort()).toEqual([false, true]);
          expect(rightOf(outcomes[0]?.result ?? E.left(null))).toEqual(rightOf(outcomes[1]?.result ?? E.left(null)));
        } finally {
          await other.close();
        }
      },
    );

    it('gives one array of concurrent ones each id, when they give ids that collide', async () => {
      const base = freshBase();
      const ids = [1, 2, 3].map((n) => plantId(base + n));
      const arrays = [0, 1, 2, 3].map((k): NewPlant[] => [
        { name: plantName(`a${k}`) },
        ...ids.map((id) => ({ id, name: plantName(`a${k} ${id}`) })),
      ]);
      const outcomes = (await Promise.all(arrays.map((plants) => createMany(plants)))).map(rightOf);
      const won = outcomes.filter((o) => E.isRight(o.result));
      expect(won).toHaveLength(1);
      for (const o of outcomes.filter((x) => E.isLeft(x.result)))
        expect(o.result).toEqual({ _tag: 'Left', left: { _tag: 'IdsTaken', ids } });
      const winner = rightOf(won[0]?.result ?? E.left(null));
      for (const plant of winner.plants)
        expect(
          rightOf(
            await store.plants
              .get(plant.id as PlantId)()
              .then(plainPlant),
          ),
        ).toEqual(plant);
    });
  });
};
