import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PLANT_ID } from '@plant-store/domain';
import { describePostgres } from '@plant-store/testkit';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { NewPlant } from '../ports/plant-store.js';
import type { Store } from '../ports/store.js';
import { plainPlant } from '../../test/contract/values.js';
import { id, name, rightOf, useFreshSchema } from '../../test/support/postgres-store.js';
import { openSqliteStore } from './sqlite/open.js';

/*
 * Arrays of creates where the id space runs out and where a refused array must leave the ids as
 * they were: fresh stores of their own (the contract suite never moves the high-water mark to
 * the end of the id space), on both stores.
 */

const idsOf = async (store: Store, plants: readonly NewPlant[]): Promise<number[]> => {
  const outcome = rightOf(await store.plants.createMany(plants)());
  return rightOf(outcome.result).plants.map((p) => p.id);
};

const batchTraps = (open: () => Promise<Store>) => {
  it('gives server-assigned plants the smallest free ids above the cursor once 2^53-1 is taken, never a given one', async () => {
    const store = await open();
    for (const n of [MAX_PLANT_ID, 1, 2, 4])
      rightOf(await store.plants.create({ id: id(n), name: name(`chosen ${n}`) })());
    const ids = await idsOf(store, [
      { name: name('a') },
      { id: id(5), name: name('given 5') },
      { name: name('b') },
      { name: name('c') },
    ]);
    expect(ids).toEqual([3, 5, 6, 7]);
    for (const n of ids) expect(rightOf(await store.plants.get(id(n))().then(plainPlant)).id).toBe(n);
    // A single create goes on above the cursor the array left.
    expect(rightOf(await store.plants.create({ name: name('next') })()).plant.id).toBe(8);
  });

  it('leaves the ids as they were after an array refused for a taken id, across a restart', async () => {
    let store = await open();
    // Two creates, so that the mark is not written with the second (SQLite writes it with a
    // batch that reserves a block of versions, here the first).
    rightOf(await store.plants.create({ id: id(10), name: name('ten') })());
    rightOf(await store.plants.create({ id: id(50), name: name('fifty') })());
    const refused = rightOf(
      await store.plants.createMany([
        { id: id(100), name: name('hundred') },
        { name: name('assigned') },
        { id: id(50), name: name('again') },
      ])(),
    );
    expect(refused.result).toEqual(E.left({ _tag: 'IdsTaken', ids: [50] }));
    rightOf(await store.plants.delete(id(50))());
    await store.close();
    store = await open();
    // 50 was the largest id ever stored: it is never handed out again, and 100 was never stored.
    expect(rightOf(await store.plants.create({ name: name('after') })()).plant.id).toBe(51);
  });
};

describe('arrays of creates on SQLite, at the ends of the id space', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-batch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  let n = 0;
  let file = '';
  const fresh = () => {
    n += 1;
    file = join(dir, `case-${n}.db`);
  };
  const openStore = async (): Promise<Store> => {
    if (file === '') fresh();
    const store = await openSqliteStore({ file });
    open.push(store);
    return store;
  };
  afterEach(() => {
    file = '';
  });
  batchTraps(openStore);
});

describePostgres('arrays of creates on PostgreSQL, at the ends of the id space', () => {
  const fresh = useFreshSchema();
  batchTraps(() => fresh.open());
});
