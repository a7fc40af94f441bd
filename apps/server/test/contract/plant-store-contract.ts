import { randomBytes, randomInt } from 'node:crypto';
import { ListCursor, MAX_PLANT_ID, PageLimit, PlantId, type Plant, type UpdatePlantRequest } from '@plant-store/domain';
import type { Either } from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalRequest } from '../../src/idempotency/canonical-request.js';
import type { IdempotencyClaim, NewPlant, VersionedPlant, WriteCondition } from '../../src/ports/plant-store.js';
import type { Store } from '../../src/ports/store.js';
import type { NewToken, Scope } from '../../src/ports/token-store.js';
import { decodeOrThrow, idempotencyKey, plainPlant, plantId, plantName, plantTag, rightOf } from './values.js';

/**
 * The one contract every Store adapter passes (docs/CONTRIBUTING.md, tests), run on a real database.
 *
 * `open` must return a store over the SAME database every time it is called within one suite
 * (the suite opens several to test concurrency across instances and reopening). The database
 * need not be empty: every test works on ids and token names of its own, drawn from a random
 * range below 2^40 (the suite never creates an id near 2^53−1, which would move a high-water
 * mark to the end of the id space for good). Still, a fresh database per run is most reliable
 * (SQLite: a temp file; PostgreSQL: truncate the tables in the factory before the suite).
 * `persistent: false` (e.g. `:memory:`) skips the tests that reopen the database.
 */
export interface PlantStoreContractOptions {
  readonly persistent?: boolean;
}

const page = (limit: number, after: number) => ({
  limit: decodeOrThrow(PageLimit as t.Type<PageLimit, unknown, unknown>)(limit),
  after: decodeOrThrow(ListCursor as t.Type<ListCursor, unknown, unknown>)(after),
});

/** The model of a merge patch (RFC 7396): absent keeps, `tag: null` removes. */
const patched = (plant: Plant, patch: UpdatePlantRequest): Plant => {
  const name = patch.name ?? plant.name;
  const tag = patch.tag === undefined ? plant.tag : (patch.tag ?? undefined);
  return tag === undefined ? { id: plant.id, name } : { id: plant.id, name, tag };
};

/** `'Right'`, or the tag of the Left (`'IdTaken'`, `'StoreUnavailable'`…). */
const tagOf = (result: Either<{ readonly _tag: string }, unknown>): string =>
  result._tag === 'Left' ? result.left._tag : 'Right';

export function plantStoreContract(name: string, open: () => Promise<Store>, options: PlantStoreContractOptions = {}): void {
  const persistent = options.persistent ?? true;

  describe(`PlantStore contract: ${name}`, () => {
    let store: Store;
    // Each test takes ids base+1 … base+1000 of a range no other test of this run touches.
    let nextBase = randomInt(2 ** 32, 2 ** 39);
    const freshBase = (): number => (nextBase += 2 ** 20);
    const runId = randomBytes(6).toString('hex');
    let tokenCounter = 0;
    const newToken = (scopes: readonly Scope[] = ['plants:read'], expiresAt: Date | null = null): NewToken => {
      tokenCounter += 1;
      return { id: `tok_${runId}_${tokenCounter}`, name: `contract-${runId}-${tokenCounter}`, scopes, hash: randomBytes(32), expiresAt };
    };
    const create = (plant: NewPlant) => store.plants.create(plant)().then(plainPlant);

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    describe('create', () => {
      it('assigns an id when none is given and returns the stored plant', async () => {
        const plant = rightOf(await create({ name: plantName('Monstera'), tag: plantTag('tropical') }));
        expect(PlantId.is(plant.id)).toBe(true);
        expect(plant).toEqual({ id: plant.id, name: 'Monstera', tag: 'tropical' });
        expect(rightOf(await store.plants.get(plant.id)().then(plainPlant))).toEqual(plant);
      });

      it('keeps a client-chosen id and stores the name exactly as sent', async () => {
        const id = plantId(freshBase() + 1);
        const name = plantName('  Ficus lyrata \u{1F331} ünïcödé  ');
        expect(rightOf(await create({ id, name, tag: plantTag('tag with spaces') }))).toEqual({ id, name, tag: 'tag with spaces' });
        expect(rightOf(await store.plants.get(id)().then(plainPlant))).toEqual({ id, name, tag: 'tag with spaces' });
      });

      it('omits an absent tag (no member, never null) in create, get and list', async () => {
        const id = plantId(freshBase() + 1);
        const created = rightOf(await create({ id, name: plantName('Pothos') }));
        const got = rightOf(await store.plants.get(id)().then(plainPlant));
        const listed = rightOf(await store.plants.list(page(1, id - 1))());
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
          expect(await store.plants.delete(absent)()).toEqual({ _tag: 'Left', left: { _tag: 'PlantNotFound', id: absent } });
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
        for (const [i, id] of ids.entries()) expect(rightOf(await store.plants.get(id)().then(plainPlant)).name).toBe(`bulk ${i}`);
      });
    });

    describe('get and delete', () => {
      it('returns PlantNotFound for an unknown id', async () => {
        const id = plantId(freshBase() + 1);
        expect(await store.plants.get(id)().then(plainPlant)).toEqual({ _tag: 'Left', left: { _tag: 'PlantNotFound', id } });
      });

      it('deletes a plant once; afterwards get and delete return PlantNotFound', async () => {
        const id = plantId(freshBase() + 1);
        rightOf(await create({ id, name: plantName('short-lived') }));
        expect(await store.plants.delete(id)()).toEqual({ _tag: 'Right', right: undefined });
        expect(tagOf(await store.plants.get(id)().then(plainPlant))).toBe('PlantNotFound');
        expect(await store.plants.delete(id)()).toEqual({ _tag: 'Left', left: { _tag: 'PlantNotFound', id } });
      });

      it('lets a deleted id be created again by a client', async () => {
        const id = plantId(freshBase() + 1);
        rightOf(await create({ id, name: plantName('one') }));
        rightOf(await store.plants.delete(id)());
        expect(rightOf(await create({ id, name: plantName('two') }))).toEqual({ id, name: 'two' });
      });
    });

    describe('list', () => {
      it('pages in ascending id order with limit and after', async () => {
        const base = freshBase();
        // Created out of order, so the order cannot come from insertion.
        for (const offset of [3, 1, 5, 2, 4]) {
          const tag = offset % 2 === 0 ? { tag: plantTag(`even ${offset}`) } : {};
          rightOf(await create({ id: plantId(base + offset), name: plantName(`plant ${offset}`), ...tag }));
        }
        const expected = (offset: number): Plant =>
          offset % 2 === 0
            ? ({ id: base + offset, name: `plant ${offset}`, tag: `even ${offset}` } as Plant)
            : ({ id: base + offset, name: `plant ${offset}` } as Plant);
        expect(rightOf(await store.plants.list(page(2, base))())).toEqual([expected(1), expected(2)]);
        expect(rightOf(await store.plants.list(page(2, base + 2))())).toEqual([expected(3), expected(4)]);
        const last = rightOf(await store.plants.list(page(2, base + 4))());
        expect(last[0]).toEqual(expected(5));
        expect(last.every((p) => p.id > base + 4)).toBe(true);
        expect(rightOf(await store.plants.list(page(3, base + 1))()).map((p) => p.id)).toEqual([base + 2, base + 3, base + 4]);
      });

      it('returns every page in strictly ascending order from the start', async () => {
        const plants = rightOf(await store.plants.list(page(1000, 0))());
        expect(plants.length).toBeGreaterThan(0);
        expect(plants.length).toBeLessThanOrEqual(1000);
        for (let i = 1; i < plants.length; i += 1) expect((plants[i] as Plant).id).toBeGreaterThan((plants[i - 1] as Plant).id);
      });

      it('returns an empty page after the last possible id', async () => {
        expect(rightOf(await store.plants.list(page(10, MAX_PLANT_ID))())).toEqual([]);
      });
    });

    describe('update and versions', () => {
      const update = (id: PlantId, patch: UpdatePlantRequest, condition: WriteCondition = {}) => store.plants.update(id, patch, condition)();
      const versionOf = async (id: PlantId): Promise<number> => rightOf(await store.plants.get(id)()).version;

      it('applies a merge patch: a name replaces, a tag replaces, null removes, absent keeps', async () => {
        const id = plantId(freshBase() + 1);
        const created = rightOf(await store.plants.create({ id, name: plantName('Fern'), tag: plantTag('green') })());
        const renamed = rightOf(await update(id, { name: plantName('Fern II') }));
        expect(renamed.plant).toEqual({ id, name: 'Fern II', tag: 'green' });
        expect(renamed.version).not.toBe(created.version);
        expect(rightOf(await update(id, { tag: plantTag('blue') })).plant).toEqual({ id, name: 'Fern II', tag: 'blue' });
        const untagged = rightOf(await update(id, { tag: null }));
        expect(untagged.plant).toEqual({ id, name: 'Fern II' });
        expect(Object.hasOwn(untagged.plant, 'tag')).toBe(false);
        expect(rightOf(await store.plants.get(id)())).toEqual(untagged);
      });

      it('keeps the version when a patch changes nothing, and changes it when it does', async () => {
        const id = plantId(freshBase() + 1);
        const created = rightOf(await store.plants.create({ id, name: plantName('Same'), tag: plantTag('t') })());
        for (const patch of [{}, { name: plantName('Same') }, { tag: plantTag('t') }, { name: plantName('Same'), tag: plantTag('t') }] as const) {
          expect(rightOf(await update(id, patch))).toEqual(created);
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
          expect(await update(id, { name: plantName('x') }, condition)).toEqual({ _tag: 'Left', left: { _tag: 'PlantNotFound', id } });
          expect(await store.plants.delete(id, condition)()).toEqual({ _tag: 'Left', left: { _tag: 'PlantNotFound', id } });
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
        expect(rightOf(await store.plants.get(id)())).toEqual({ plant: { id, name: 'guarded' }, version });
        const next = rightOf(await update(id, { name: plantName('yes') }, { ifMatch: [version + 1000, version], ifNoneMatch: [version + 1] }));
        expect(next.plant.name).toBe('yes');
        expect(rightOf(await update(id, { name: plantName('any') }, { ifMatch: 'any' })).plant.name).toBe('any');
        expect(await store.plants.delete(id, { ifMatch: [version] })()).toEqual(failed('If-Match'));
        expect(await store.plants.delete(id, { ifMatch: [await versionOf(id)] })()).toEqual({ _tag: 'Right', right: undefined });
      });

      it('lets exactly one of concurrent patches with the same If-Match win', async () => {
        const id = plantId(freshBase() + 1);
        const { version } = rightOf(await store.plants.create({ id, name: plantName('contested') })());
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => update(id, { name: plantName(`writer ${i}`) }, { ifMatch: [version] })));
        const winners = results.flatMap((r, i) => (r._tag === 'Right' ? [i] : []));
        expect(winners).toHaveLength(1);
        for (const r of results) if (r._tag === 'Left') expect(r.left).toEqual({ _tag: 'PreconditionFailed', id, header: 'If-Match' });
        expect(rightOf(await store.plants.get(id)()).plant.name).toBe(`writer ${winners[0]}`);
      });

      it('serialises concurrent unconditional patches: each answer is a state the plant really had', async () => {
        const id = plantId(freshBase() + 1);
        rightOf(await store.plants.create({ id, name: plantName('start'), tag: plantTag('t0') })());
        const start = rightOf(await store.plants.get(id)());
        const patches: UpdatePlantRequest[] = Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0 ? { name: plantName(`name ${i}`) } : { tag: plantTag(`tag ${i}`) },
        );
        const answers = (await Promise.all(patches.map((patch) => update(id, patch)))).map((r, i) => ({ i, ...rightOf(r) }));
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
        expect(rightOf(await store.plants.get(id)())).toEqual({ plant: last?.plant, version: last?.version });
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
            Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : other).plants.update(id, { name: plantName(`writer ${i}`) }, { ifMatch: [version] })()),
          );
          expect(results.filter((r) => r._tag === 'Right')).toHaveLength(1);
          expect(results.map(tagOf).filter((tag) => tag !== 'Right').every((tag) => tag === 'PreconditionFailed')).toBe(true);
        } finally {
          await other.close();
        }
      });
    });

    describe('list by tag', () => {
      it('keeps only plants whose tag equals the tag exactly, in id order, with limit and after', async () => {
        const base = freshBase();
        const tag = plantTag(`Tag ${base} é+&%`);
        const near = [plantTag(`tag ${base} é+&%`), plantTag(`Tag ${base} e\u0301+&%`), plantTag(`Tag ${base} é+&% `)];
        const mine: number[] = [];
        for (let i = 1; i <= 9; i += 1) {
          const id = plantId(base + i);
          if (i % 3 === 0) {
            rightOf(await store.plants.create({ id, name: plantName(`other ${i}`), tag: near[(i / 3 - 1) % near.length] ?? tag })());
          } else if (i === 4) {
            rightOf(await store.plants.create({ id, name: plantName('untagged') })());
          } else {
            rightOf(await store.plants.create({ id, name: plantName(`mine ${i}`), tag })());
            mine.push(base + i);
          }
        }
        const list = async (limit: number, after: number) => rightOf(await store.plants.list({ ...page(limit, after), tag })());
        expect((await list(1000, 0)).map((p) => p.id)).toEqual(mine);
        expect((await list(2, 0)).map((p) => p.id)).toEqual(mine.slice(0, 2));
        expect((await list(2, mine[1] ?? 0)).map((p) => p.id)).toEqual(mine.slice(2, 4));
        for (const plant of await list(1000, 0)) expect(plant.tag).toBe(tag);
        // A patch moves a plant in and out of the filter.
        rightOf(await store.plants.update(plantId(base + 4), { tag }, {})());
        rightOf(await store.plants.update(plantId(base + 1), { tag: null }, {})());
        expect((await list(1000, 0)).map((p) => p.id)).toEqual([base + 2, base + 4, ...mine.slice(2)]);
      });
    });

    describe('concurrency', () => {
      it('lets exactly one of 50 concurrent creates of one id succeed', async () => {
        const id = plantId(freshBase() + 1);
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => create({ id, name: plantName(`racer ${i}`) })));
        const winners = results.flatMap((r, i) => (r._tag === 'Right' ? [i] : []));
        expect(winners).toHaveLength(1);
        for (const r of results) if (r._tag === 'Left') expect(r.left).toEqual({ _tag: 'IdTaken', id });
        expect(rightOf(await store.plants.get(id)().then(plainPlant)).name).toBe(`racer ${winners[0]}`);
      });

      it('lets exactly one of 20 concurrent deletes of one plant succeed', async () => {
        const id = plantId(freshBase() + 1);
        rightOf(await create({ id, name: plantName('contested') }));
        const results = await Promise.all(Array.from({ length: 20 }, () => store.plants.delete(id)()));
        expect(results.filter((r) => r._tag === 'Right')).toHaveLength(1);
        for (const r of results) if (r._tag === 'Left') expect(r.left).toEqual({ _tag: 'PlantNotFound', id });
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
        expect(rightOf(await store.plants.get(plantId(base + 2))().then(plainPlant)).name).toBe('good 2');
        expect(rightOf(await store.plants.get(plantId(base + 3))().then(plainPlant)).name).toBe('good 3');
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
            Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? store : other).plants.create({ id, name: plantName(`racer ${i}`) })()),
          );
          expect(results.filter((r) => r._tag === 'Right')).toHaveLength(1);
          expect(results.map(tagOf).filter((tag) => tag !== 'Right').every((tag) => tag === 'IdTaken')).toBe(true);
          expect(tagOf(await other.plants.get(id)().then(plainPlant))).toBe('Right');
        } finally {
          await other.close();
        }
      });
    });

    describe('idempotency keys', () => {
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
        expect(rightOf(await store.plants.list(page(10, created.id))()).filter((p) => p.id < next.id)).toEqual([]);
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
        expect(rightOf(await createOnce(late, c))).toEqual({ result: { _tag: 'Left', left: { _tag: 'IdTaken', id } }, replayed: false });
        rightOf(await store.plants.delete(id)());
        expect(rightOf(await createOnce(late, c))).toEqual({ result: { _tag: 'Left', left: { _tag: 'IdTaken', id } }, replayed: true });
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
            i % 3 === 0 ? { id: taken, name: plantName(`conflict ${i}`) } : i % 3 === 1 ? { id: plantId(base + 10 + i), name: plantName(`chosen ${i}`) } : { name: plantName(`assigned ${i}`) };
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
          const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => createOnce(plant, c, i % 2 === 0 ? store : other)));
          const plants = outcomes.map((o) => rightOf(rightOf(o).result).plant);
          expect(new Set(plants.map((p) => p.id)).size).toBe(1);
          expect(outcomes.filter((o) => !rightOf(o).replayed)).toHaveLength(1);
          expect(rightOf(await other.plants.get(plants[0]?.id ?? plantId(1))().then(plainPlant)).name).toBe('across');
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

    describe('tokens', () => {
      it('inserts a token and finds it by its hash, with the hash', async () => {
        const token = newToken(['plants:read', 'plants:write'], new Date('2031-02-03T04:05:06.789Z'));
        const record = rightOf(await store.tokens.insert(token)());
        expect(record).toEqual({
          id: token.id,
          name: token.name,
          scopes: ['plants:read', 'plants:write'],
          createdAt: expect.any(Date),
          expiresAt: new Date('2031-02-03T04:05:06.789Z'),
          revokedAt: null,
        });
        expect(Object.hasOwn(record, 'hash')).toBe(false);
        const found = rightOf(await store.tokens.findByHash(token.hash)());
        expect(found).toBeDefined();
        expect(found?.id).toBe(token.id);
        expect(found?.scopes).toEqual(['plants:read', 'plants:write']);
        expect(Buffer.from(found?.hash ?? []).equals(Buffer.from(token.hash))).toBe(true);
        expect(found?.createdAt.getTime()).toBe(record.createdAt.getTime());
      });

      it('finds nothing for an unknown hash', async () => {
        expect(rightOf(await store.tokens.findByHash(randomBytes(32))())).toBeUndefined();
      });

      it('keeps an empty scope list and no expiry', async () => {
        const token = newToken([]);
        expect(rightOf(await store.tokens.insert(token)())).toMatchObject({ scopes: [], expiresAt: null, revokedAt: null });
        expect(rightOf(await store.tokens.findByHash(token.hash)())).toMatchObject({ scopes: [], expiresAt: null });
      });

      it('lists tokens without their hashes and counts them', async () => {
        const before = rightOf(await store.tokens.count()());
        const tokens = [newToken(), newToken(['plants:write'])];
        for (const token of tokens) rightOf(await store.tokens.insert(token)());
        expect(rightOf(await store.tokens.count()())).toBe(before + 2);
        const listed = rightOf(await store.tokens.list()());
        for (const token of tokens) {
          const record = listed.find((r) => r.id === token.id);
          expect(record).toMatchObject({ name: token.name, scopes: [...token.scopes], revokedAt: null });
          expect(Object.hasOwn(record ?? {}, 'hash')).toBe(false);
        }
      });

      it('revokes by id or by name once, keeping the record', async () => {
        const [byId, byName] = [newToken(), newToken()];
        for (const token of [byId, byName]) rightOf(await store.tokens.insert(token)());
        const at = new Date('2030-01-01T00:00:00.123Z');
        expect(rightOf(await store.tokens.revoke(byId.id, at)())).toBe(true);
        expect(rightOf(await store.tokens.revoke(byName.name, at)())).toBe(true);
        expect(rightOf(await store.tokens.revoke(byId.id, new Date())())).toBe(false);
        expect(rightOf(await store.tokens.revoke(`no-such-token-${runId}`, at)())).toBe(false);
        expect(rightOf(await store.tokens.findByHash(byId.hash)())?.revokedAt).toEqual(at);
        expect(rightOf(await store.tokens.list()()).find((r) => r.id === byName.id)?.revokedAt).toEqual(at);
      });

      it('refuses a second token with the same name without failing its neighbours', async () => {
        const first = newToken();
        rightOf(await store.tokens.insert(first)());
        const plantIdNow = plantId(freshBase() + 1);
        const [duplicate, neighbour] = await Promise.all([
          store.tokens.insert({ ...newToken(), name: first.name })(),
          create({ id: plantIdNow, name: plantName('neighbour') }),
        ]);
        expect(tagOf(duplicate)).toBe('StoreUnavailable');
        expect(tagOf(neighbour)).toBe('Right');
        expect(tagOf(await store.plants.get(plantIdNow)().then(plainPlant))).toBe('Right');
      });
    });

    describe('lifecycle', () => {
      it('answers ping', async () => {
        expect(await store.plants.ping()()).toEqual({ _tag: 'Right', right: undefined });
      });

      it('closes idempotently; afterwards every operation resolves to StoreUnavailable', async () => {
        const other = await open();
        await Promise.all([other.close(), other.close()]);
        await other.close();
        const id = plantId(1);
        const outcomes = await Promise.all([
          other.plants.create({ name: plantName('late') })().then(plainPlant),
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
        const pending = other.plants.create({ id, name: plantName('pending at close') })().then(plainPlant);
        await other.close();
        expect(tagOf(await pending)).toBe('Right');
        if (persistent) expect(tagOf(await store.plants.get(id)().then(plainPlant))).toBe('Right');
      });

      it.runIf(persistent)('sees committed data after reopening, ids included', async () => {
        const first = await open();
        const id = plantId(freshBase() + 1);
        const token = newToken(['plants:write']);
        rightOf(await first.plants.create({ id, name: plantName('durable'), tag: plantTag('kept') })().then(plainPlant));
        rightOf(await first.tokens.insert(token)());
        const deleted = rightOf(await first.plants.create({ name: plantName('deleted before reopen') })().then(plainPlant));
        rightOf(await first.plants.delete(deleted.id)());
        await first.close();

        const second = await open();
        try {
          expect(rightOf(await second.plants.get(id)().then(plainPlant))).toEqual({ id, name: 'durable', tag: 'kept' });
          expect(rightOf(await second.tokens.findByHash(token.hash)())?.id).toBe(token.id);
          const next = rightOf(await second.plants.create({ name: plantName('after reopen') })().then(plainPlant));
          expect(next.id).not.toBe(deleted.id);
        } finally {
          await second.close();
        }
      });
    });
  });
}
