import { versioned } from '../../test/contract/values.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlantName } from '@plant-store/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { describePostgres, freshPostgresUrl } from '@plant-store/testkit';
import { openStore } from './open-store.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openStore', () => {
  it('opens a SQLite file, creating its folder', async () => {
    const file = join(dir, 'nested', 'plants.db');
    const store = await openStore({ kind: 'sqlite', file });
    try {
      expect((await store.plants.create({ name: 'x' as PlantName })())._tag).toBe('Right');
      expect(existsSync(file)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('opens a SQLite file again, with options', async () => {
    const file = join(dir, 'plain.db');
    const first = await openStore({ kind: 'sqlite', file }, { synchronous: 'NORMAL' });
    await first.plants.create({ id: 3, name: 'kept' } as never)();
    await first.close();
    const second = await openStore({ kind: 'sqlite', file });
    try {
      expect(versioned(await second.plants.get(3 as never)())).toEqual({
        _tag: 'Right',
        right: { plant: { id: 3, name: 'kept' }, version: expect.any(Number) },
      });
    } finally {
      await second.close();
    }
  });

  it('opens an in-memory SQLite store', async () => {
    const store = await openStore({ kind: 'sqlite', file: ':memory:' });
    try {
      expect(await store.plants.ping()()).toEqual({ _tag: 'Right', right: undefined });
    } finally {
      await store.close();
    }
  });
});

describe('openStore with a PostgreSQL location and the pool options', () => {
  // The adapter checks its options before connecting: a bad one proves each is passed through.
  it.each([
    [{ poolSize: 0 }, /poolSize must be an integer from 1 to 1000, got 0/],
    [{ acquireTimeoutMs: 0 }, /acquireTimeoutMs must be an integer from 1 to 600000, got 0/],
    [{ statementTimeoutMs: 1.5 }, /statementTimeoutMs must be an integer from 1 to 3600000, got 1.5/],
  ])('passes %j on to the PostgreSQL adapter', async (options, message) => {
    await expect(openStore({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' }, options)).rejects.toThrow(
      message,
    );
  });

  it('leaves them out of a SQLite store: values PostgreSQL refuses still open a working store', async () => {
    // Were the pool options checked or passed on for SQLite too, opening would reject as above.
    const opening = openStore(
      { kind: 'sqlite', file: join(dir, 'pool-options.db') },
      { poolSize: 0, acquireTimeoutMs: 0, statementTimeoutMs: 0 },
    );
    await expect(opening).resolves.toBeDefined();
    const store = await opening;
    try {
      const created = versioned(await store.plants.create({ id: 5, name: 'no pool here' } as never)());
      expect(created).toEqual({
        _tag: 'Right',
        right: { plant: { id: 5, name: 'no pool here' }, version: expect.any(Number) },
      });
      expect(versioned(await store.plants.get(5 as never)())).toEqual(created);
    } finally {
      await store.close();
    }
  });
});

describePostgres('openStore with a PostgreSQL location', () => {
  it('opens the PostgreSQL adapter', async () => {
    const pg = await freshPostgresUrl();
    try {
      const store = await openStore({ kind: 'postgres', url: pg.url }, { synchronous: 'FULL' });
      try {
        const created = versioned(await store.plants.create({ id: 11, name: 'in postgres' } as never)());
        expect(created).toEqual({
          _tag: 'Right',
          right: { plant: { id: 11, name: 'in postgres' }, version: expect.any(Number) },
        });
        expect(versioned(await store.plants.get(11 as never)())).toEqual(created);
      } finally {
        await store.close();
      }
    } finally {
      await pg.drop();
    }
  });

  it('opens it with the pool options set', async () => {
    const pg = await freshPostgresUrl();
    try {
      const store = await openStore(
        { kind: 'postgres', url: pg.url },
        { poolSize: 2, acquireTimeoutMs: 2000, statementTimeoutMs: 3000 },
      );
      try {
        expect(await store.plants.ping()()).toEqual({ _tag: 'Right', right: undefined });
      } finally {
        await store.close();
      }
    } finally {
      await pg.drop();
    }
  });
});
