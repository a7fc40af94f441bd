import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { StoreError } from '../ports/plant-store.js';
import { SCOPES, type TokenStore } from '../ports/token-store.js';
import { invalidToken, type InvalidToken } from './auth-error.js';
import { hashesEqual, hashToken } from './opaque-token.js';
import type { Authenticator, Principal } from './principal.js';

export interface TokenAuthenticatorOptions {
  /**
   * PLANT_STORE_STATIC_TOKEN: a token accepted with both scopes in addition to the store's tokens.
   * It is held only as its hash in memory and never written to the store. (Not PLANT_STORE_TOKEN:
   * that is the client CLI's own token, which the server ignores.)
   */
  readonly seedToken?: string | undefined;
  readonly now?: () => number;
}

const seedPrincipal: Principal = { subject: 'PLANT_STORE_STATIC_TOKEN', scopes: SCOPES };

/**
 * Verifies opaque tokens issued by the token CLI: hashes the presented token, looks the hash up,
 * compares the stored hash in constant time, then checks revocation and expiry. Store-agnostic:
 * a store may answer `findByHash` from a cache (the SQLite adapter does, invalidated by any other
 * connection's commit, so a revocation applies on the next request), which is why revocation and
 * expiry are checked here on every request, against the clock, never cached.
 */
export const createTokenAuthenticator = (
  tokens: TokenStore,
  options: TokenAuthenticatorOptions = {},
): Authenticator => {
  const now = options.now ?? Date.now;
  const seedHash = options.seedToken === undefined ? undefined : hashToken(options.seedToken);
  return {
    authenticate:
      (token: string): TaskEither<InvalidToken | StoreError, Principal> =>
      async () => {
        const hash = hashToken(token);
        if (seedHash !== undefined && hashesEqual(seedHash, hash)) return E.right(seedPrincipal);
        const found = await tokens.findByHash(hash)();
        if (E.isLeft(found)) return found;
        const record = found.right;
        if (record === undefined || !hashesEqual(record.hash, hash))
          return E.left(invalidToken('the bearer token is not known'));
        if (record.revokedAt !== null) return E.left(invalidToken('the bearer token has been revoked'));
        if (record.expiresAt !== null && record.expiresAt.getTime() <= now()) {
          return E.left(invalidToken('the bearer token has expired'));
        }
        return E.right({ subject: record.id, scopes: record.scopes });
      },
  };
};
