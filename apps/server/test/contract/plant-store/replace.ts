import { Plant, ReplacePlantRequest, type PlantId } from '@plant-store/domain';
import { arbitraryOf } from '@plant-store/testkit';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Change } from '../../../src/ports/change-log.js';
import type { ReplacedPlant, WriteCondition } from '../../../src/ports/plant-store.js';
import type { Store } from '../../../src/ports/store.js';
import { plantId, plantName, plantTag, rightOf, versioned } from '../values.js';
import { tagOf, type PlantStoreSuite } from './suite.js';

const HOUR_AGO = (): number => Date.now() - 3_600_000;

/** The changes above `since` (at most 1000: enough for one test's writes). */
const changesAbove = async (store: Store, since: number): Promise<readonly Change[]> => {
  const read = rightOf(await store.changes.above(since, 1000, HOUR_AGO())());
  if (read.kind !== 'changes') throw new TypeError(`changes above ${since}: ${read.kind}`);
  return read.changes;
};

/** A replace's outcome without its place in the log: the plant, its version and whether it was created. */
const outcome = ({ changeSeq: _seq, ...rest }: ReplacedPlant) => rest;

/**
 * Replacing a plant by its id (PUT): create or replace, a replace that changes nothing, the
 * preconditions of RFC 9110 §13 on a present and on an absent plant, and concurrent replaces of
 * an absent id (exactly one creates).
 */
export const replaceContract = (suite: PlantStoreSuite): void => {
  const { open, persistent, freshBase } = suite;
  describe('replace (PUT)', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    const replace = (id: PlantId, plant: ReplacePlantRequest, condition: WriteCondition = {}) =>
      store.plants.replace(id, plant, condition)();

    it('creates an absent plant, then replaces it whole: a member absent from the body is removed', async () => {
      const id = plantId(freshBase() + 1);
      const created = rightOf(await replace(id, { name: plantName('Fern'), tag: plantTag('green') }));
      expect(outcome(created)).toEqual({
        plant: { id, name: 'Fern', tag: 'green' },
        version: expect.any(Number),
        created: true,
      });
      expect(rightOf(versioned(await store.plants.get(id)()))).toEqual({
        plant: created.plant,
        version: created.version,
      });
      const replaced = rightOf(await replace(id, { name: plantName('Ivy') }));
      expect(outcome(replaced)).toEqual({ plant: { id, name: 'Ivy' }, version: expect.any(Number), created: false });
      expect(Object.hasOwn(replaced.plant, 'tag')).toBe(false);
      expect(replaced.version).not.toBe(created.version);
      expect(rightOf(versioned(await store.plants.get(id)()))).toEqual({
        plant: replaced.plant,
        version: replaced.version,
      });
    });

    it('keeps the version and logs nothing when the body is what the plant already is', async () => {
      const id = plantId(freshBase() + 1);
      const created = rightOf(await replace(id, { name: plantName('Same'), tag: plantTag('t') }));
      const before = rightOf(await store.changes.newest()());
      const again = rightOf(await replace(id, { name: plantName('Same'), tag: plantTag('t') }));
      expect(outcome(again)).toEqual({ ...outcome(created), created: false });
      expect(again.changeSeq).toBe(before);
      expect((await changesAbove(store, before)).filter((c) => c.id === id)).toEqual([]);
    });

    it('logs plant.created for a replace that creates and plant.updated for one that changes the plant', async () => {
      const id = plantId(freshBase() + 1);
      const before = rightOf(await store.changes.newest()());
      const created = rightOf(await replace(id, { name: plantName('fern'), tag: plantTag('green') }));
      const replaced = rightOf(await replace(id, { name: plantName('fern') }));
      const mine = (await changesAbove(store, before)).filter((c) => c.id === id);
      expect(mine.map(({ at: _a, ...rest }) => rest)).toEqual([
        { seq: created.changeSeq, type: 'plant.created', id, name: 'fern', tag: 'green', version: created.version },
        // The tag the replace removed is kept with the change, for the feed of that tag (plant.left).
        {
          seq: replaced.changeSeq,
          type: 'plant.updated',
          id,
          name: 'fern',
          leftTag: 'green',
          version: replaced.version,
        },
      ]);
    });

    it('replaces every member a body may hold, for each member alone', async () => {
      // The members come from the codec's declaration, so a member added to Plant is tried too.
      const optional = Object.keys(ReplacePlantRequest.optional).filter((m) => m !== 'id');
      const samples = fc.sample(arbitraryOf(Plant), { numRuns: 300, seed: 56 });
      for (const member of optional) {
        const value = samples.map((p) => (p as Readonly<Record<string, unknown>>)[member]).find((v) => v !== undefined);
        expect(value, `a sample value for ${member}`).toBeDefined();
        const id = plantId(freshBase() + 1);
        rightOf(await replace(id, { name: plantName('bare') }));
        const body = { name: plantName('bare'), [member]: value } as ReplacePlantRequest;
        const replaced = rightOf(await replace(id, body));
        expect(replaced.plant, member).toEqual({ ...body, id });
        expect(rightOf(await store.plants.get(id)()).plant, member).toEqual({ ...body, id });
        const removed = rightOf(await replace(id, { name: plantName('bare') }));
        expect(removed.plant, member).toEqual({ id, name: 'bare' });
      }
    });

    it('on an absent plant: If-Match fails (any tag, or *), If-None-Match creates', async () => {
      const base = freshBase();
      const failed = (id: PlantId) => ({
        _tag: 'Left',
        left: { _tag: 'PreconditionFailed', id, header: 'If-Match', absent: true },
      });
      for (const [offset, condition] of [
        [1, { ifMatch: 'any' }],
        [2, { ifMatch: [1] }],
        [3, { ifMatch: [] }],
        [4, { ifMatch: 'any', ifNoneMatch: 'any' }],
      ] as const) {
        const id = plantId(base + offset);
        expect(await replace(id, { name: plantName('no') }, condition)).toEqual(failed(id));
        expect(tagOf(await store.plants.get(id)())).toBe('PlantNotFound');
      }
      for (const [offset, condition] of [
        [5, { ifNoneMatch: 'any' }],
        [6, { ifNoneMatch: [1, 2] }],
      ] as const) {
        const id = plantId(base + offset);
        expect(rightOf(await replace(id, { name: plantName('yes') }, condition)).created).toBe(true);
      }
    });

    it('on a present plant: replaces only when If-Match names its version (or is any) and If-None-Match does not', async () => {
      const id = plantId(freshBase() + 1);
      const { version } = rightOf(await replace(id, { name: plantName('guarded') }));
      const failed = (header: string) => ({ _tag: 'Left', left: { _tag: 'PreconditionFailed', id, header } });
      const body = { name: plantName('changed') };
      expect(await replace(id, body, { ifNoneMatch: 'any' })).toEqual(failed('If-None-Match'));
      expect(await replace(id, body, { ifNoneMatch: [version] })).toEqual(failed('If-None-Match'));
      expect(await replace(id, body, { ifMatch: [version + 1000] })).toEqual(failed('If-Match'));
      expect(await replace(id, body, { ifMatch: [] })).toEqual(failed('If-Match'));
      expect(rightOf(versioned(await store.plants.get(id)()))).toEqual({ plant: { id, name: 'guarded' }, version });
      const replaced = rightOf(await replace(id, body, { ifMatch: [version], ifNoneMatch: [version + 1] }));
      expect(outcome(replaced)).toEqual({
        plant: { id, name: 'changed' },
        version: expect.any(Number),
        created: false,
      });
      expect(rightOf(await replace(id, { name: plantName('any') }, { ifMatch: 'any' })).plant.name).toBe('any');
      expect(await replace(id, body, { ifMatch: [version] })).toEqual(failed('If-Match'));
    });

    it('lets exactly one of concurrent replaces of an absent id create it; every answer is a state the plant had', async () => {
      const id = plantId(freshBase() + 1);
      const bodies = Array.from({ length: 20 }, (_, i) => ({ name: plantName(`writer ${i}`) }));
      const answers = (await Promise.all(bodies.map((body) => replace(id, body)))).map((r, i) => ({
        i,
        ...rightOf(r),
      }));
      expect(answers.filter((a) => a.created)).toHaveLength(1);
      for (const a of answers) expect(a.plant).toEqual({ id, name: `writer ${a.i}` });
      expect(new Set(answers.map((a) => a.version)).size).toBe(20);
      // In version order, the first is the create and the last is what the store holds.
      const ordered = [...answers].sort((a, b) => a.version - b.version);
      expect(ordered[0]?.created).toBe(true);
      const last = ordered[ordered.length - 1];
      expect(rightOf(versioned(await store.plants.get(id)()))).toEqual({ plant: last?.plant, version: last?.version });
    });

    it('applies a replace between other writes of one id in the order they were made', async () => {
      const id = plantId(freshBase() + 1);
      const results = await Promise.all([
        replace(id, { name: plantName('first') }),
        store.plants.update(id, { tag: plantTag('one') }, {})(),
        replace(id, { name: plantName('second') }),
        store.plants.delete(id)(),
        replace(id, { name: plantName('third') }, { ifMatch: 'any' }),
        replace(id, { name: plantName('fourth') }),
      ]);
      expect(results.map(tagOf)).toEqual(['Right', 'Right', 'Right', 'Right', 'PreconditionFailed', 'Right']);
      const created = results.flatMap((r) => (E.isRight(r) && 'created' in r.right ? [r.right.created] : []));
      expect(created).toEqual([true, false, true]);
      expect(rightOf(await store.plants.get(id)()).plant).toEqual({ id, name: 'fourth' });
    });

    it('counts an id it creates as chosen: a server-assigned id never takes it', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await replace(id, { name: plantName('chosen by PUT') }));
      const assigned = rightOf(await store.plants.create({ name: plantName('assigned') })());
      expect(assigned.plant.id).toBeGreaterThan(id);
    });

    it.runIf(persistent)('lets exactly one replace of an absent id create it across two store instances', async () => {
      const other = await open();
      try {
        const id = plantId(freshBase() + 1);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? store : other).plants.replace(id, { name: plantName(`writer ${i}`) }, {})(),
          ),
        );
        expect(results.filter((r) => E.isRight(r) && r.right.created)).toHaveLength(1);
        expect(results.every(E.isRight)).toBe(true);
      } finally {
        await other.close();
      }
    });
  });
};
