import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/ports/store.js';
import { plainPlant, plantId, plantName, rightOf } from '../values.js';
import { tagOf, type PlantStoreSuite } from './suite.js';

/** Operator tokens: insert, lookup by hash, list, count, revoke, a taken name. */
export const tokensContract = (suite: PlantStoreSuite): void => {
  const { freshBase, runId, newToken, create } = suite;
  describe('tokens', () => {
    let store: Store;
    beforeAll(() => {
      store = suite.store();
    });

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
      expect(rightOf(await store.tokens.insert(token)())).toMatchObject({
        scopes: [],
        expiresAt: null,
        revokedAt: null,
      });
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
};
