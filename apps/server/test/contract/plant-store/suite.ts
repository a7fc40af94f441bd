import { randomBytes, randomInt } from 'node:crypto';
import { ListCursor, PageLimit, type Plant, type PlantId, type UpdatePlantRequest } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type { Either } from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { afterAll, beforeAll } from 'vitest';
import type { NewPlant, PageQuery } from '../../../src/ports/plant-store.js';
import type { Store } from '../../../src/ports/store.js';
import type { NewToken, Scope } from '../../../src/ports/token-store.js';
import { decodeOrThrow, plainPlant } from '../values.js';

// What every part of the PlantStore contract suite shares (see plant-store-contract.ts).

/** An ascending id page of `limit` plants after `after` (0: from the first). */
export const page = (limit: number, after: number): PageQuery => {
  const start = decodeOrThrow(ListCursor as t.Type<ListCursor, unknown, unknown>)(after);
  return {
    limit: decodeOrThrow(PageLimit as t.Type<PageLimit, unknown, unknown>)(limit),
    order:
      start === 0
        ? { by: 'id', descending: false }
        : { by: 'id', descending: false, after: start as number as PlantId },
  };
};

/** The model of a merge patch (RFC 7396): absent keeps, `tag: null` removes. */
export const patched = (plant: Plant, patch: UpdatePlantRequest): Plant => {
  const name = patch.name ?? plant.name;
  const tag = patch.tag === undefined ? plant.tag : (patch.tag ?? undefined);
  return tag === undefined ? { id: plant.id, name } : { id: plant.id, name, tag };
};

/** `'Right'`, or the tag of the Left (`'IdTaken'`, `'StoreUnavailable'`…). */
export const tagOf = (result: Either<{ readonly _tag: string }, unknown>): string =>
  E.isLeft(result) ? result.left._tag : 'Right';

/**
 * The suite's store and fresh values, for one `describe` of the contract: opens the store in a
 * `beforeAll` of the calling `describe` and closes it in its `afterAll`. `store()` is the store
 * opened there (for tests and hooks, which run after it).
 */
export const plantStoreSuite = (open: () => Promise<Store>, persistent: boolean) => {
  let store: Store | undefined;
  // Each test takes ids base+1 … base+1000 of a range no other test of this run touches.
  let nextBase = randomInt(2 ** 32, 2 ** 39);
  const freshBase = (): number => (nextBase += 2 ** 20);
  const runId = randomBytes(6).toString('hex');
  let tokenCounter = 0;
  const newToken = (scopes: readonly Scope[] = ['plants:read'], expiresAt: Date | null = null): NewToken => {
    tokenCounter += 1;
    return {
      id: `tok_${runId}_${tokenCounter}`,
      name: `contract-${runId}-${tokenCounter}`,
      scopes,
      hash: randomBytes(32),
      expiresAt,
    };
  };
  const current = (): Store => {
    if (store === undefined) throw new TypeError('plantStoreSuite: the store is read before the suite opened it');
    return store;
  };
  const create = (plant: NewPlant) => current().plants.create(plant)().then(plainPlant);

  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });

  return { store: current, open, persistent, freshBase, runId, newToken, create };
};

export type PlantStoreSuite = ReturnType<typeof plantStoreSuite>;
