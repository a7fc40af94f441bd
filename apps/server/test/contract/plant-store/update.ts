import type { PlantId, UpdatePlantRequest } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type { Either } from 'fp-ts/lib/Either.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { VersionedPlant, WriteCondition } from '../../../src/ports/plant-store.js';
import type { Store } from '../../../src/ports/store.js';
import { plantId, plantName, plantTag, rightOf, versioned } from '../values.js';
import { patched, tagOf, type PlantStoreSuite } from './suite.js';

/** Merge patches, versions, conditional writes (If-Match, If-None-Match) and the order of concurrent patches. */
export const updateContract = (suite: PlantStoreSuite): void => {
  const { open, persistent, freshBase } = suite;
  describe('update and versions', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

    const update = (id: PlantId, patch: UpdatePlantRequest, condition: WriteCondition = {}) =>
      store.plants.update(id, patch, condition)();
    const versionOf = async (id: PlantId): Promise<number> => rightOf(await store.plants.get(id)()).version;

    it('applies a merge patch: a name replaces, a tag replaces, null removes, absent keeps', async () => {
      const id = plantId(freshBase() + 1);
      const created = rightOf(await store.plants.create({ id, name: plantName('Fern'), tag: plantTag('green') })());
      const renamed = rightOf(await update(id, { name: plantName('Fern II') }));
      expect(renamed.plant).toEqual({ id, name: 'Fern II', tag: 'green' });
      expect(renamed.version).not.toBe(created.version);
      expect(rightOf(await update(id, { tag: plantTag('blue') })).plant).toEqual({ id, name: 'Fern II', tag: 'blue' });
      const untagged = rightOf(versioned(await update(id, { tag: null })));
      expect(untagged.plant).toEqual({ id, name: 'Fern II' });
      expect(Object.hasOwn(untagged.plant, 'tag')).toBe(false);
      expect(rightOf(versioned(await store.plants.get(id)()))).toEqual(untagged);
    });

    it('keeps the version when a patch changes nothing, and changes it when it does', async () => {
      const id = plantId(freshBase() + 1);
      const created = rightOf(
        versioned(await store.plants.create({ id, name: plantName('Same'), tag: plantTag('t') })()),
      );
      for (const patch of [
        {},
        { name: plantName('Same') },
        { tag: plantTag('t') },
        { name: plantName('Same'), tag: plantTag('t') },
      ] as const) {
        expect(rightOf(versioned(await update(id, patch)))).toEqual(created);
      }
      const changed = rightOf(await update(id, { tag: plantTag('u') }));
      expect(changed.version).not.toBe(created.version);
      // Back to the old values: still a change, so a new version, never the old one again.
      const back = rightOf(await update(id, { tag: plantTag('t') }));
      expect(new Set([created.version, changed.version, back.version]).size).toBe(3);
    });

    it('never gives a version twice to one id, across a delete and re-create', async () => {
      const id = plantId(freshBase() + 1);
      const seen = new Set<number>();
      for (let round = 0; round < 3; round += 1) {
        seen.add(rightOf(await store.plants.create({ id, name: plantName('again') })()).version);
        seen.add(rightOf(await update(id, { name: plantName(`changed ${round}`) })).version);
        rightOf(await store.plants.delete(id)());
      }
      expect(seen.size).toBe(6);
    });

    it('returns PlantNotFound for an absent plant, whatever the condition', async () => {
      const id = plantId(freshBase() + 1);
      for (const condition of [{}, { ifMatch: 'any' }, { ifMatch: [1] }, { ifNoneMatch: 'any' }] as const) {
        expect(await update(id, { name: plantName('x') }, condition)).toEqual({
          _tag: 'Left',
          left: { _tag: 'PlantNotFound', id },
        });
        expect(await store.plants.delete(id, condition)()).toEqual({
          _tag: 'Left',
          left: { _tag: 'PlantNotFound', id },
        });
      }
    });

    it('writes only when If-Match names the current version (or is any) and If-None-Match does not', async () => {
      const id = plantId(freshBase() + 1);
      const { version } = rightOf(await store.plants.create({ id, name: plantName('guarded') })());
      const failed = (header: string) => ({ _tag: 'Left', left: { _tag: 'PreconditionFailed', id, header } });
      expect(await update(id, { name: plantName('no') }, { ifMatch: [version + 1000] })).toEqual(failed('If-Match'));
      expect(await update(id, { name: plantName('no') }, { ifMatch: [] })).toEqual(failed('If-Match'));
      expect(await update(id, { name: plantName('no') }, { ifNoneMatch: 'any' })).toEqual(failed('If-None-Match'));
      expect(await update(id, { name: plantName('no') }, { ifNoneMatch: [version] })).toEqual(failed('If-None-Match'));
      expect(await update(id, {}, { ifMatch: [version + 1000] })).toEqual(failed('If-Match'));
      expect(await store.plants.delete(id, { ifMatch: [version + 1000] })()).toEqual(failed('If-Match'));
      expect(rightOf(versioned(await store.plants.get(id)()))).toEqual({ plant: { id, name: 'guarded' }, version });
      const next = rightOf(
        await update(
          id,
          { name: plantName('yes') },
          { ifMatch: [version + 1000, version], ifNoneMatch: [version + 1] },
        ),
      );
      expect(next.plant.name).toBe('yes');
      expect(rightOf(await update(id, { name: plantName('any') }, { ifMatch: 'any' })).plant.name).toBe('any');
      expect(await store.plants.delete(id, { ifMatch: [version] })()).toEqual(failed('If-Match'));
      expect(await store.plants.delete(id, { ifMatch: [await versionOf(id)] })()).toEqual({
        _tag: 'Right',
        right: { changeSeq: expect.any(Number) },
      });
    });

    it('lets exactly one of concurrent patches with the same If-Match win', async () => {
      const id = plantId(freshBase() + 1);
      const { version } = rightOf(await store.plants.create({ id, name: plantName('contested') })());
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => update(id, { name: plantName(`writer ${i}`) }, { ifMatch: [version] })),
      );
      const winners = results.flatMap((r, i) => (E.isRight(r) ? [i] : []));
      expect(winners).toHaveLength(1);
      for (const r of results)
        if (E.isLeft(r)) expect(r.left).toEqual({ _tag: 'PreconditionFailed', id, header: 'If-Match' });
      expect(rightOf(await store.plants.get(id)()).plant.name).toBe(`writer ${winners[0]}`);
    });

    it('serialises concurrent unconditional patches: each answer is a state the plant really had', async () => {
      const id = plantId(freshBase() + 1);
      rightOf(await store.plants.create({ id, name: plantName('start'), tag: plantTag('t0') })());
      const start = rightOf(await store.plants.get(id)());
      const patches: UpdatePlantRequest[] = Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0 ? { name: plantName(`name ${i}`) } : { tag: plantTag(`tag ${i}`) },
      );
      const answers = (await Promise.all(patches.map((patch) => update(id, patch)))).map((r, i) => ({
        i,
        ...rightOf(r),
      }));
      expect(new Set(answers.map((a) => a.version)).size).toBe(20);
      // Ordered by version, each answer is the one before it with its own patch applied.
      const ordered = [...answers].sort((a, b) => a.version - b.version);
      let before = start.plant;
      for (const answer of ordered) {
        expect(answer.version).toBeGreaterThan(start.version);
        expect(answer.plant).toEqual(patched(before, patches[answer.i] ?? {}));
        before = answer.plant;
      }
      const last = ordered[ordered.length - 1];
      expect(rightOf(versioned(await store.plants.get(id)()))).toEqual({ plant: last?.plant, version: last?.version });
    });

    it('applies a create, patches and a delete of one id in the order they were made', async () => {
      const id = plantId(freshBase() + 1);
      const results = await Promise.all([
        store.plants.create({ id, name: plantName('first') })(),
        update(id, { tag: plantTag('one') }),
        update(id, { name: plantName('second') }),
        store.plants.delete(id)(),
        update(id, { name: plantName('too late') }),
      ]);
      expect(results.map(tagOf)).toEqual(['Right', 'Right', 'Right', 'Right', 'PlantNotFound']);
      expect(rightOf(results[2] as Either<unknown, VersionedPlant>).plant).toEqual({ id, name: 'second', tag: 'one' });
    });

    it.runIf(persistent)('lets exactly one patch with the same If-Match win across two store instances', async () => {
      const other = await open();
      try {
        const id = plantId(freshBase() + 1);
        const { version } = rightOf(await store.plants.create({ id, name: plantName('shared') })());
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? store : other).plants.update(
              id,
              { name: plantName(`writer ${i}`) },
              { ifMatch: [version] },
            )(),
          ),
        );
        expect(results.filter((r) => E.isRight(r))).toHaveLength(1);
        expect(
          results
            .map(tagOf)
            .filter((tag) => tag !== 'Right')
            .every((tag) => tag === 'PreconditionFailed'),
        ).toBe(true);
      } finally {
        await other.close();
      }
    });
  });
};
