import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type postgres from 'postgres';
import type { StoreError } from '../../ports/plant-store.js';
import type { NewToken, TokenRecord, TokenStore } from '../../ports/token-store.js';
import type { PostgresGate, PostgresStoreLogger } from './gate.js';
import { logDecodeFailure, tokenFromRow, tokenRecordFromRow } from './rows.js';
import { countFromRow } from '../store-rows.js';
import { TokenCache, tokenCacheKey, type FoundToken } from '../token-cache.js';

/**
 * Tokens in PostgreSQL. `findByHash` answers from a TokenCache for up to `cacheMs` (the version
 * of an entry is its time slot, so no entry outlives one slot): under load a token's row is read
 * about once per slot per instance instead of once per request. A revocation through this store
 * clears the cache and bumps `epoch`, so a lookup that read the row before the revocation
 * committed does not cache it afterwards.
 */
export const createPostgresTokenStore = (
  sql: postgres.Sql,
  gate: PostgresGate,
  logger: PostgresStoreLogger | undefined,
  cacheMs: number,
): TokenStore => {
  const cache = new TokenCache();
  let epoch = 0;
  const find = async (hash: Uint8Array): Promise<E.Either<StoreError, FoundToken | undefined>> =>
    pipe(
      await gate.run(
        'find token',
        () =>
          sql`SELECT id, name, scopes::text AS scopes, hash, created_at, expires_at, revoked_at FROM tokens WHERE hash = ${Buffer.from(hash)}`,
      ),
      E.chain((rows) =>
        rows[0] === undefined ? E.right(undefined) : logDecodeFailure(logger, 'find token')(tokenFromRow(rows[0])),
      ),
    );
  return {
    insert:
      (token: NewToken): TaskEither<StoreError, TokenRecord> =>
      async () =>
        pipe(
          await gate.run(
            'insert token',
            () => sql`
            INSERT INTO tokens (id, name, scopes, hash, created_at, expires_at, revoked_at)
            VALUES (${token.id}, ${token.name}, ${sql.json([...token.scopes])}, ${Buffer.from(token.hash)},
                    ${new Date()}, ${token.expiresAt}, NULL)
            RETURNING id, name, scopes::text AS scopes, hash, created_at, expires_at, revoked_at`,
          ),
          E.chain((rows) => logDecodeFailure(logger, 'insert token')(tokenRecordFromRow(rows[0]))),
        ),
    findByHash: (hash) => async () => {
      if (cacheMs === 0) return find(hash);
      const key = tokenCacheKey(hash);
      // The monotonic clock: a wall clock stepped back would stretch a slot past cacheMs.
      const slot = Math.floor(performance.now() / cacheMs);
      const cached = cache.get(key, slot);
      if (cached !== undefined) return E.right(cached);
      const before = epoch;
      const found = await find(hash);
      if (E.isRight(found) && found.right !== undefined && epoch === before) cache.set(key, slot, found.right);
      return found;
    },
    list: () => async () =>
      pipe(
        await gate.run(
          'list tokens',
          () =>
            sql`SELECT id, name, scopes::text AS scopes, hash, created_at, expires_at, revoked_at FROM tokens ORDER BY created_at, id`,
        ),
        E.chain((rows) => {
          const records: TokenRecord[] = [];
          for (const row of rows) {
            const record = logDecodeFailure(logger, 'list tokens')(tokenRecordFromRow(row));
            if (E.isLeft(record)) return record;
            records.push(record.right);
          }
          return E.right(records);
        }),
      ),
    revoke: (idOrName, at) => async () => {
      const revoked = await gate.run(
        'revoke token',
        () =>
          sql`UPDATE tokens SET revoked_at = ${at} WHERE (id = ${idOrName} OR name = ${idOrName}) AND revoked_at IS NULL RETURNING id`,
      );
      // Whatever the outcome (a failure may still have committed): forget what we know.
      epoch += 1;
      cache.clear();
      return pipe(
        revoked,
        E.map((rows) => rows.length > 0),
      );
    },
    count: () => async () =>
      pipe(
        await gate.run('count tokens', () => sql`SELECT count(*)::int4 AS n FROM tokens`),
        E.chain((rows) => countFromRow(rows[0])),
      ),
  };
};
