import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../ports/store.js';
import { invalidToken } from '../tokens/auth-error.js';
import { issueToken } from '../tokens/issue-token.js';
import { hashToken } from '../tokens/opaque-token.js';
import { createTokenAuthenticator } from '../tokens/token-authenticator.js';
import { TokenCache, tokenCacheKey, type FoundToken } from './token-cache.js';
import { openSqliteStore } from './sqlite/open.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-token-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;

const found = (id: string): FoundToken => ({
  id,
  name: id,
  scopes: ['plants:read'],
  createdAt: new Date(0),
  expiresAt: null,
  revokedAt: null,
  hash: hashToken(id),
});

describe('TokenCache', () => {
  it('answers only for the data_version an entry was cached under, and forgets a stale entry', () => {
    const cache = new TokenCache();
    const token = found('a');
    cache.set('a', 7, token);
    expect(cache.get('a', 7)).toBe(token);
    expect(cache.get('a', 8)).toBeUndefined();
    expect(cache.get('a', 7)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most its bound, dropping the oldest entries', () => {
    const cache = new TokenCache(2);
    cache.set('a', 1, found('a'));
    cache.set('b', 1, found('b'));
    cache.set('c', 1, found('c'));
    expect(cache.size).toBe(2);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('c', 1)?.id).toBe('c');
  });

  it('keys a hash by its bytes, whatever view holds them', () => {
    const bytes = hashToken('x');
    const copy = new Uint8Array(bytes.length + 4).subarray(2, 2 + bytes.length);
    copy.set(bytes);
    expect(tokenCacheKey(copy)).toBe(tokenCacheKey(bytes));
    expect(tokenCacheKey(hashToken('y'))).not.toBe(tokenCacheKey(bytes));
  });
});

describe('the SQLite store caches token lookups without delaying revocation', () => {
  const stores: Store[] = [];
  const handles: Database.Database[] = [];
  afterEach(async () => {
    for (const db of handles.splice(0)) db.close();
    for (const store of stores.splice(0)) await store.close();
  });
  const open = async () => {
    const file = join(dir, `tokens-${(counter += 1)}.db`);
    const store = await openSqliteStore({ file });
    stores.push(store);
    return { file, store };
  };
  /** Another connection to the file, as the tokens CLI or a second server would have. */
  const otherConnection = (file: string) => {
    const db = new Database(file, { timeout: 5000 });
    handles.push(db);
    return db;
  };
  const issue = async (store: Store, name: string, expiresAt: Date | null = null) => {
    const issued = await issueToken(store.tokens, { name, scopes: ['plants:read'], expiresAt })();
    if (E.isLeft(issued)) throw new Error('could not issue');
    return issued.right;
  };

  it('answers a repeated lookup from the cache while nothing else commits', async () => {
    const { store } = await open();
    const { token } = await issue(store, 'reader');
    const first = await store.tokens.findByHash(hashToken(token))();
    const second = await store.tokens.findByHash(hashToken(token))();
    expect(E.isRight(first) && first.right !== undefined).toBe(true);
    // The very same object: no row was read the second time.
    expect(E.isRight(second) && E.isRight(first) && second.right === first.right).toBe(true);
  });

  // The version is read once per event-loop turn (once-per-turn.ts): a request read after another
  // connection's commit is read in a later turn than that commit.
  const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('rejects a cached token on the next request (the next event-loop turn) once another connection revokes it', async () => {
    const { file, store } = await open();
    const { token, record } = await issue(store, 'reader');
    const auth = createTokenAuthenticator(store.tokens);
    expect(await auth.authenticate(token)()).toEqual(E.right({ subject: record.id, scopes: ['plants:read'] }));
    expect(E.isRight(await auth.authenticate(token)())).toBe(true);

    const cli = otherConnection(file);
    expect(cli.prepare('UPDATE tokens SET revoked_at = ? WHERE name = ?').run(Date.now(), 'reader').changes).toBe(1);
    await nextTurn();
    expect(await auth.authenticate(token)()).toEqual(E.left(invalidToken('the bearer token has been revoked')));
  });

  it('sees a token deleted by another connection as unknown from the next turn', async () => {
    const { file, store } = await open();
    const { token } = await issue(store, 'reader');
    const auth = createTokenAuthenticator(store.tokens);
    expect(E.isRight(await auth.authenticate(token)())).toBe(true);
    otherConnection(file).prepare('DELETE FROM tokens').run();
    await nextTurn();
    expect(await auth.authenticate(token)()).toEqual(E.left(invalidToken('the bearer token is not known')));
  });

  it('rejects a cached token once this store revokes it', async () => {
    const { store } = await open();
    const { token } = await issue(store, 'reader');
    const auth = createTokenAuthenticator(store.tokens);
    expect(E.isRight(await auth.authenticate(token)())).toBe(true);
    expect(await store.tokens.revoke('reader', new Date())()).toEqual(E.right(true));
    expect(await auth.authenticate(token)()).toEqual(E.left(invalidToken('the bearer token has been revoked')));
  });

  it('still expires a cached token on time', async () => {
    const { store } = await open();
    let clock = Date.now();
    const { token } = await issue(store, 'expiring', new Date(clock + 60_000));
    const auth = createTokenAuthenticator(store.tokens, { now: () => clock });
    expect(E.isRight(await auth.authenticate(token)())).toBe(true);
    expect(E.isRight(await auth.authenticate(token)())).toBe(true);
    clock += 60_000;
    expect(await auth.authenticate(token)()).toEqual(E.left(invalidToken('the bearer token has expired')));
  });

  it('finds a token another connection created after an unknown answer (misses are not cached)', async () => {
    const { file, store } = await open();
    const auth = createTokenAuthenticator(store.tokens);
    const other = await openSqliteStore({ file });
    stores.push(other);
    const token = 'pst_created-elsewhere';
    expect(await auth.authenticate(token)()).toEqual(E.left(invalidToken('the bearer token is not known')));
    const issued = await issueToken(other.tokens, { name: 'mine', scopes: ['plants:write'], expiresAt: null }, token)();
    expect(E.isRight(issued)).toBe(true);
    expect(await auth.authenticate(token)()).toMatchObject({ right: { scopes: ['plants:write'] } });
  });
});
