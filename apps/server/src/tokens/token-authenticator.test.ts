import * as E from 'fp-ts/lib/Either.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../adapters/sqlite/open.js';
import type { Store } from '../ports/store.js';
import { invalidToken } from './auth-error.js';
import { issueToken } from './issue-token.js';
import { generateToken } from './opaque-token.js';
import { createTokenAuthenticator } from './token-authenticator.js';

let store: Store;
beforeEach(async () => {
  store = await openSqliteStore({ file: ':memory:' });
});
afterEach(() => store.close());

const issue = async (name: string, expiresAt: Date | null = null) => {
  const issued = await issueToken(store.tokens, { name, scopes: ['plants:read'], expiresAt })();
  if (E.isLeft(issued)) throw new Error('could not issue');
  return issued.right;
};

describe('createTokenAuthenticator', () => {
  it('accepts an issued token with its scopes and stores only its hash', async () => {
    const { token, record } = await issue('reader');
    expect(await createTokenAuthenticator(store.tokens).authenticate(token)()).toEqual(
      E.right({ subject: record.id, scopes: ['plants:read'] }),
    );
    const listed = await store.tokens.list()();
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  it('rejects unknown, revoked and expired tokens', async () => {
    const auth = createTokenAuthenticator(store.tokens);
    expect(await auth.authenticate(generateToken())()).toEqual(E.left(invalidToken('the bearer token is not known')));
    const revoked = await issue('revoked');
    await store.tokens.revoke('revoked', new Date())();
    expect(await auth.authenticate(revoked.token)()).toEqual(E.left(invalidToken('the bearer token has been revoked')));
    const expiring = await issue('expiring', new Date(Date.now() + 60_000));
    expect(E.isRight(await auth.authenticate(expiring.token)())).toBe(true);
    const later = createTokenAuthenticator(store.tokens, { now: () => Date.now() + 120_000 });
    expect(await later.authenticate(expiring.token)()).toEqual(E.left(invalidToken('the bearer token has expired')));
  });

  it('accepts PLANT_STORE_STATIC_TOKEN with both scopes without storing it', async () => {
    const seed = generateToken();
    const auth = createTokenAuthenticator(store.tokens, { seedToken: seed });
    expect(await auth.authenticate(seed)()).toEqual(
      E.right({ subject: 'PLANT_STORE_STATIC_TOKEN', scopes: ['plants:read', 'plants:write'] }),
    );
    expect(await store.tokens.count()()).toEqual(E.right(0));
  });

  it('turns a closed store into StoreUnavailable, not a rejection', async () => {
    const auth = createTokenAuthenticator(store.tokens);
    await store.close();
    expect(await auth.authenticate(generateToken())()).toMatchObject({ left: { _tag: 'StoreUnavailable' } });
  });
});
