import { PlantId, PlantName } from '@plant-store/domain';
import { freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import * as E from 'fp-ts/lib/Either.js';
import type { Either } from 'fp-ts/lib/Either.js';
import { afterEach, expect } from 'vitest';
import type { PlantStore } from '../../src/ports/plant-store.js';
import type { Store } from '../../src/ports/store.js';
import { openPostgresStore, type PostgresStoreOptions } from '../../src/adapters/postgres/open.js';

/** Helpers the PostgreSQL adapter tests share (src/adapters/postgres-*.test.ts). */

export const id = (n: number): PlantId => {
  if (!PlantId.is(n)) throw new TypeError(`bad test id ${n}`);
  return n;
};
export const name = (s: string): PlantName => {
  const decoded = PlantName.decode(s);
  if (E.isLeft(decoded)) throw new TypeError(`bad test name ${s}`);
  return decoded.right;
};
export const page = (limit: number, after: number): Parameters<PlantStore['list']>[0] => ({
  limit,
  order: after === 0 ? { by: 'id', descending: false } : { by: 'id', descending: false, after: id(after) },
});

export const rightOf = <E, A>(result: Either<E, A>): A => {
  if (E.isLeft(result)) expect.fail(`expected Right, got Left ${JSON.stringify(result.left)}`);
  return result.right;
};
export const tagOf = (result: Either<{ readonly _tag: string }, unknown>): string =>
  E.isLeft(result) ? result.left._tag : 'Right';
/** The code PostgresStoreError carries in a StoreUnavailable (SQLSTATE or a connection code). */
export const causeCode = (result: Either<{ readonly _tag: string }, unknown>): string | undefined => {
  if (E.isRight(result) || result.left._tag !== 'StoreUnavailable') return undefined;
  const cause = (result.left as { cause?: unknown }).cause;
  return (cause as { code?: string } | undefined)?.code;
};

/** Collects log lines, so tests can check what was logged. */
export const recordingLogger = () => {
  const lines: { level: 'info' | 'warn' | 'error'; obj: object; msg: string }[] = [];
  return {
    lines,
    info: (obj: object, msg: string) => void lines.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg: string) => void lines.push({ level: 'warn', obj, msg }),
    error: (obj: object, msg: string) => void lines.push({ level: 'error', obj, msg }),
  };
};

/** Opens stores on one fresh schema and closes them (and drops the schema) after each test. */
export const useFreshSchema = () => {
  let fresh: Promise<FreshPostgres> | undefined;
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await (await fresh)?.drop();
    fresh = undefined;
  });
  return {
    db(): Promise<FreshPostgres> {
      // The promise, not its value: concurrent callers must share one schema.
      fresh ??= freshPostgresUrl();
      return fresh;
    },
    async open(options: Partial<PostgresStoreOptions> = {}): Promise<Store> {
      const { url } = await this.db();
      const store = await openPostgresStore({ url, poolSize: 2, ...options });
      stores.push(store);
      return store;
    },
    /** Registers a store opened elsewhere for closing. */
    track(store: Store): Store {
      stores.push(store);
      return store;
    },
  };
};
