import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { StoreError } from '../ports/plant-store.js';
import type { Scope, TokenRecord, TokenStore } from '../ports/token-store.js';
import { generateToken, generateTokenId, hashToken } from './opaque-token.js';

export interface TokenRequest {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date | null;
}

/** An issued token: the record as stored and the secret, which exists nowhere else after this. */
export interface IssuedToken {
  readonly record: TokenRecord;
  readonly token: string;
}

/** Creates a token, stores only its SHA-256 hash, and hands the secret back once. */
export const issueToken =
  (tokens: TokenStore, request: TokenRequest, token: string = generateToken()): TaskEither<StoreError, IssuedToken> =>
  async () => {
    const inserted = await tokens.insert({ id: generateTokenId(), hash: hashToken(token), ...request })();
    return E.isLeft(inserted) ? inserted : E.right({ record: inserted.right, token });
  };
