import type Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { StoreError } from '../../ports/plant-store.js';
import type { NewToken, TokenRecord, TokenStore } from '../../ports/token-store.js';
import type { GroupCommit } from './group-commit.js';
import { attempt } from './attempt.js';
import type { SqliteBatch } from './batch.js';
import { TokenCache, tokenCacheKey, type FoundToken } from '../token-cache.js';
import { scopesToColumn, tokenFromRow, tokenRecordFromRow } from './rows.js';
import { countFromRow } from '../store-rows.js';
import { oncePerTurn } from './once-per-turn.js';

/**
 * Operator tokens in SQLite, over the connection openSqliteStore opened: writes through group
 * commit, lookups by hash answered from a TokenCache while no connection has committed since.
 */
export const createSqliteTokenStore = (
  db: Database.Database,
  commits: GroupCommit<SqliteBatch>,
  isClosed: () => boolean,
): TokenStore => {
  const columns = 'id, name, scopes, hash, created_at, expires_at, revoked_at';
  const insert = db.prepare<[string, string, string, Uint8Array, number, number | null]>(
    `INSERT INTO tokens (id, name, scopes, hash, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)
     RETURNING ${columns}`,
  );
  const byHash = db.prepare<[Uint8Array]>(`SELECT ${columns} FROM tokens WHERE hash = ?`);
  const all = db.prepare(`SELECT ${columns} FROM tokens ORDER BY created_at, id`);
  const revoke = db.prepare<[number, string, string]>(
    'UPDATE tokens SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL',
  );
  const count = db.prepare('SELECT count(*) AS n FROM tokens');
  // Changes when another connection commits to the file; see TokenCache. Read once per event-loop
  // turn, not per request: a commit by another process (the tokens CLI revoking a token) applies
  // from the next turn's requests on, and each request is spared a read transaction of its own.
  const dataVersionStatement = db.prepare('PRAGMA data_version').pluck();
  const dataVersion = oncePerTurn(() => dataVersionStatement.get() as number);
  const cache = new TokenCache();

  return {
    insert:
      (token: NewToken): TaskEither<StoreError, TokenRecord> =>
      () =>
        commits.submit(() => {
          cache.clear();
          return tokenRecordFromRow(
            insert.get(
              token.id,
              token.name,
              scopesToColumn(token.scopes),
              Buffer.from(token.hash),
              Date.now(),
              token.expiresAt === null ? null : token.expiresAt.getTime(),
            ),
          );
        }),
    findByHash: (hash) => async () =>
      attempt(isClosed, (): E.Either<StoreError, FoundToken | undefined> => {
        // data_version first: a commit by another connection between the two reads then makes
        // this entry stale at once instead of caching a row older than its version.
        const version = dataVersion();
        const key = tokenCacheKey(hash);
        const cached = cache.get(key, version);
        if (cached !== undefined) return E.right(cached);
        const row = byHash.get(Buffer.from(hash));
        if (row === undefined) return E.right(undefined);
        const found = tokenFromRow(row);
        if (E.isRight(found)) cache.set(key, version, found.right);
        return found;
      }),
    list: () => async () =>
      attempt(isClosed, () => {
        const records: TokenRecord[] = [];
        for (const row of all.all()) {
          const record = tokenRecordFromRow(row);
          if (E.isLeft(record)) return record;
          records.push(record.right);
        }
        return E.right(records);
      }),
    revoke: (idOrName, at) => () =>
      commits.submit(() => {
        // Our own commits do not change data_version: forget every cached token ourselves.
        cache.clear();
        return E.right(revoke.run(at.getTime(), idOrName, idOrName).changes > 0);
      }),
    count: () => async () => attempt(isClosed, () => countFromRow(count.get())),
  };
};
