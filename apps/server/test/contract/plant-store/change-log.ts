import { Plant, UpdatePlantRequest, type PlantId } from '@plant-store/domain';
import { arbitraryOf } from '@plant-store/testkit';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import type { Change } from '../../../src/ports/change-log.js';
import type { Store } from '../../../src/ports/store.js';
import { plantId, plantName, plantTag, rightOf } from '../values.js';
import { page, type PlantStoreSuite } from './suite.js';

const HOUR_AGO = (): number => Date.now() - 3_600_000;

/** Every change above `since`, read a page at a time. */
const allAbove = async (store: Store, since: number, limit = 1000): Promise<Change[]> => {
  const all: Change[] = [];
  for (let from = since; ;) {
    const read = rightOf(await store.changes.above(from, limit, HOUR_AGO())());
    if (read.kind !== 'changes') throw new TypeError(`changes above ${from}: ${read.kind}`);
    all.push(...read.changes);
    const last = read.changes[read.changes.length - 1];
    if (last === undefined) return all;
    from = last.seq;
  }
};

/**
 * The change log (docs/guides/changes.md): every committed change numbered in commit order over the
 * whole store, and reads that say where they stand in it.
 */
export const changeLogContract = (suite: PlantStoreSuite): void => {
  const { open, persistent, freshBase, create } = suite;
  describe('the change log', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    it('numbers a create, an update that changes the plant and a delete, and not an update that changes nothing', async () => {
      const before = rightOf(await store.changes.newest()());
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('fern'), tag: plantTag('green') }));
      const renamed = rightOf(await store.plants.update(id, { name: plantName('ivy') }, {})());
      rightOf(await store.plants.update(id, { name: plantName('ivy') }, {})());
      rightOf(await store.plants.update(id, { tag: null }, {})());
      rightOf(await store.plants.delete(id)());
      const mine = (await allAbove(store, before)).filter((c) => c.id === id);
      expect(mine.map((c) => c.type)).toEqual(['plant.created', 'plant.updated', 'plant.updated', 'plant.deleted']);
      expect(mine.map(({ seq: _s, at: _a, version: _v, ...rest }) => rest)).toEqual([
        { type: 'plant.created', id, name: 'fern', tag: 'green' },
        { type: 'plant.updated', id, name: 'ivy', tag: 'green' },
        // The change that took the tag away remembers it.
        { type: 'plant.updated', id, name: 'ivy', leftTag: 'green' },
        { type: 'plant.deleted', id },
      ]);
      expect(mine[1]?.version).toBe(renamed.version);
      const seqs = mine.map((c) => c.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(4);
      for (const c of mine) expect(Math.abs(c.at - Date.now())).toBeLessThan(60_000);
      expect(rightOf(await store.changes.newest()())).toBeGreaterThanOrEqual(seqs[3] ?? Infinity);
    });

    it('stores and logs a patch that names one member alone, for every member a patch may name', async () => {
      // Issue 54, (2) and (3): the store wrote, and the log compared, named columns only. Every
      // member is tried here, from the codecs' declarations, so a member added later is too.
      const members = Object.keys(UpdatePlantRequest.optional).filter((m) => m !== 'id');
      const samples = fc.sample(arbitraryOf(Plant), { numRuns: 300, seed: 54 });
      for (const member of members) {
        const id = plantId(freshBase() + 1);
        const made = rightOf(await create({ id, name: plantName('fern') }));
        const was = (made as Readonly<Record<string, unknown>>)[member];
        const value = samples
          .map((p) => (p as Readonly<Record<string, unknown>>)[member])
          .find((v) => v !== undefined && v !== was);
        expect(value, `a sample value for ${member}`).toBeDefined();
        const before = rightOf(await store.changes.newest()());
        const patched = rightOf(await store.plants.update(id, { [member]: value } as UpdatePlantRequest, {})());
        expect((patched.plant as Readonly<Record<string, unknown>>)[member], member).toEqual(value);
        const got = rightOf(await store.plants.get(id)());
        expect(got.plant, member).toEqual(patched.plant);
        const logged = (await allAbove(store, before)).filter((c) => c.id === id);
        expect(
          logged.map(({ seq: _s, at: _a, version: _v, ...rest }) => rest),
          `a patch of ${member} alone reaches the log`,
        ).toEqual([{ type: 'plant.updated', ...patched.plant }]);
        expect(logged[0]?.version).toBe(patched.version);
      }
    });

    it('remembers the tag each change took its plant away from, and reads the changes of one tag by it', async () => {
      const before = rightOf(await store.changes.newest()());
      const base = freshBase();
      // Tags of this test alone: the store is shared with the other tests.
      const [T, S] = [plantTag(`t ${base}`), plantTag(`s ${base}`)];
      const [a, b, c] = [plantId(base + 1), plantId(base + 2), plantId(base + 3)];
      rightOf(await create({ id: a, name: plantName('fern'), tag: T }));
      rightOf(await store.plants.update(a, { name: plantName('ivy') }, {})()); // T → T
      rightOf(await store.plants.update(a, { tag: S }, {})()); // leaves T
      rightOf(await store.plants.update(a, { tag: null }, {})()); // leaves S
      rightOf(await store.plants.update(a, { tag: T }, {})()); // enters T
      rightOf(await create({ id: b, name: plantName('moss'), tag: S }));
      rightOf(await store.plants.update(b, { tag: T }, {})()); // leaves S, enters T
      rightOf(await store.plants.delete(a)()); // a plant of T is deleted
      rightOf(await create({ id: c, name: plantName('palm') }));
      rightOf(await store.plants.delete(c)()); // had no tag
      const all = (await allAbove(store, before)).filter((x) => [a, b, c].includes(x.id));
      const shape = (x: Change) => [x.id, x.type, x.type === 'plant.deleted' ? undefined : x.tag, x.leftTag];
      expect(all.map(shape)).toEqual([
        [a, 'plant.created', T, undefined],
        [a, 'plant.updated', T, undefined],
        [a, 'plant.updated', S, T],
        [a, 'plant.updated', undefined, S],
        [a, 'plant.updated', T, undefined],
        [b, 'plant.created', S, undefined],
        [b, 'plant.updated', T, S],
        [a, 'plant.deleted', undefined, T],
        [c, 'plant.created', undefined, undefined],
        [c, 'plant.deleted', undefined, undefined],
      ]);
      const newest = rightOf(await store.changes.newest()());
      const ofTag = async (tag: typeof T, since: number, limit: number) => {
        const read = rightOf(await store.changes.aboveTagged(since, tag, limit, HOUR_AGO())());
        if (read.kind !== 'changes') throw new TypeError(`changes of ${tag} above ${since}: ${read.kind}`);
        return read;
      };
      // Every change of a plant that has the tag before or after it, in order, as the log keeps it.
      const inT = all.filter((x) => (x.type !== 'plant.deleted' && x.tag === T) || x.leftTag === T);
      expect(inT.map((x) => x.seq)).toEqual([0, 1, 2, 4, 6, 7].map((i) => all[i]?.seq));
      expect(await ofTag(T, before, 100)).toEqual({ kind: 'changes', changes: inT, newest });
      const inS = await ofTag(S, before, 100);
      expect(inS.changes.map((x) => x.seq)).toEqual([2, 3, 5, 6].map((i) => all[i]?.seq));
      // A page of `limit`, and the next from its last number.
      const first = await ofTag(T, before, 4);
      expect(first.changes).toEqual(inT.slice(0, 4));
      expect((await ofTag(T, inT[3]?.seq ?? 0, 4)).changes).toEqual(inT.slice(4));
      // Nothing of the tag: no change, and the newest number, which the reader may move to.
      expect(await ofTag(plantTag(`none ${base}`), before, 100)).toEqual({ kind: 'changes', changes: [], newest });
    });

    it('judges a read of one tag by its position: ahead, and expired by a change of any tag', async () => {
      const newest = rightOf(await store.changes.newest()());
      const tag = plantTag(`quiet ${freshBase()}`);
      expect(rightOf(await store.changes.aboveTagged(newest + 1, tag, 10, HOUR_AGO())())).toEqual({
        kind: 'ahead',
        newest,
      });
      // A change of another tag, older than a retention reaching into the future: the reader of
      // `tag` above `newest` cannot know it missed none of its own.
      rightOf(await create({ id: plantId(freshBase() + 1), name: plantName('agave'), tag: plantTag('other') }));
      expect(rightOf(await store.changes.aboveTagged(newest, tag, 10, Date.now() + 60_000)())).toEqual({
        kind: 'expired',
      });
      expect(rightOf(await store.changes.aboveTagged(newest + 1, tag, 10, Date.now() + 60_000)())).toEqual({
        kind: 'changes',
        changes: [],
        newest: newest + 1,
      });
    });

    it('gives a read by id and a page the newest change their snapshot includes', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('moss') }));
      const newest = rightOf(await store.changes.newest()());
      const got = rightOf(await store.plants.get(id)());
      const listed = rightOf(await store.plants.list(page(1, id - 1))());
      // Nothing else writes to the store now: both see exactly the newest change, the create.
      expect(got.changeSeq).toBe(newest);
      expect(listed.changeSeq).toBe(newest);
      expect(listed.plants.map((p) => p.id)).toEqual([id]);
      const created = (await allAbove(store, newest - 1)).find((c) => c.id === id);
      expect(created?.seq).toBe(newest);
      // An empty page says where it stands too.
      const empty = rightOf(await store.plants.list(page(10, 2 ** 52))());
      expect(empty).toEqual({ plants: [], changeSeq: newest });
    });

    it('answers ahead for a number above the newest, and expired for changes older than the retention', async () => {
      const newest = rightOf(await store.changes.newest()());
      expect(rightOf(await store.changes.above(newest + 1, 10, HOUR_AGO())())).toEqual({ kind: 'ahead', newest });
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('palm') }));
      // The retention reaching into the future: the create is older than it.
      expect(rightOf(await store.changes.above(newest, 10, Date.now() + 60_000)())).toEqual({ kind: 'expired' });
      expect(rightOf(await store.changes.above(newest + 1, 10, Date.now() + 60_000)())).toMatchObject({
        kind: 'changes',
        changes: [],
      });
    });

    it('forgets the oldest changes, and a reader behind them has expired', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await create({ id, name: plantName('cactus') }));
      const newest = rightOf(await store.changes.newest()());
      let forgotten = 0;
      for (let step = 0; step < 10_000; step++) {
        const n = rightOf(await store.changes.forget(Date.now() + 60_000, 500)());
        forgotten += n;
        if (n === 0) break;
      }
      expect(forgotten).toBeGreaterThan(0);
      expect(rightOf(await store.changes.newest()())).toBe(newest);
      expect(rightOf(await store.changes.above(newest - 1, 10, HOUR_AGO())())).toEqual({ kind: 'expired' });
      expect(rightOf(await store.changes.above(newest, 10, HOUR_AGO())())).toEqual({
        kind: 'changes',
        changes: [],
        newest,
      });
      // Numbering goes on above the forgotten ones.
      rightOf(await create({ id: plantId(id + 1), name: plantName('agave') }));
      expect((await allAbove(store, newest)).map((c) => c.seq)).toEqual([newest + 1]);
    });

    it('numbers in commit order across two instances: a follower reading while 16 writers commit misses nothing', async () => {
      // In memory, a second open is another store: the two "instances" are then one.
      const other = persistent ? await open() : store;
      try {
        const start = rightOf(await store.changes.newest()());
        const base = freshBase();
        const written = new Set<number>();
        let writing = true;
        let writersDone = false;
        const writer = async (w: number, on: Store): Promise<void> => {
          for (let i = 0; writing; i++) {
            const id = plantId(base + w * 10_000 + i + 1);
            const made = await on.plants.create({ id, name: plantName(`w${w} ${i}`) })();
            if (E.isRight(made)) written.add(id);
            if (i % 3 === 2) {
              const gone = await on.plants.delete(plantId(id - 1) as PlantId)();
              if (E.isRight(gone)) written.add(-(id - 1));
            }
          }
        };
        // The follower reads what is there, again and again, from where it got to.
        const followed: Change[] = [];
        const follow = async (): Promise<void> => {
          let from = start;
          for (;;) {
            // A turn of the event loop between reads, as a real reader's network gives (SQLite's
            // reads resolve at once: without it the loop would starve the writers).
            await new Promise((resolve) => setImmediate(resolve));
            const done = writersDone;
            const read = rightOf(
              await (followed.length % 2 === 0 ? store : other).changes.above(from, 200, HOUR_AGO())(),
            );
            if (read.kind !== 'changes') throw new TypeError(read.kind);
            followed.push(...read.changes);
            from = read.changes[read.changes.length - 1]?.seq ?? from;
            if (done && read.changes.length === 0) return;
          }
        };
        const writers = Array.from({ length: 16 }, (_, w) => writer(w, w % 2 === 0 ? store : other));
        const following = follow();
        await new Promise((resolve) => setTimeout(resolve, 1500)); // how long the writers run (a load, not a wait)
        writing = false;
        await Promise.all(writers);
        writersDone = true;
        await following;
        const all = await allAbove(store, start);
        // What the follower saw while the writers committed is the whole log, in order.
        expect(followed.map((c) => c.seq)).toEqual(all.map((c) => c.seq));
        const seqs = all.map((c) => c.seq);
        expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
        // Every acknowledged write is in it.
        const logged = new Set(all.map((c) => (c.type === 'plant.deleted' ? -c.id : c.id)));
        const missing = [...written].filter((w) => !logged.has(w));
        expect(missing).toEqual([]);
        expect(written.size).toBeGreaterThan(100);
      } finally {
        if (other !== store) await other.close();
      }
    });
  });
};
