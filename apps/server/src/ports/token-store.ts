import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { StoreError } from './plant-store.js';

export const SCOPES = ['plants:read', 'plants:write'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

/** A stored bearer token: never the secret, only the SHA-256 hash of it. */
export interface TokenRecord {
  /** Public identifier, safe to print and log (for example `tok_3f9a…`). */
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly revokedAt: Date | null;
}

export interface NewToken {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  /** SHA-256 of the secret token string. */
  readonly hash: Uint8Array;
  readonly expiresAt: Date | null;
}

/** Tokens live in the same database as the plants, so every instance sees the same set. */
export interface TokenStore {
  insert(token: NewToken): TaskEither<StoreError, TokenRecord>;
  /** The token whose hash is exactly `hash` (revoked and expired ones included), with its stored hash. */
  findByHash(hash: Uint8Array): TaskEither<StoreError, (TokenRecord & { readonly hash: Uint8Array }) | undefined>;
  list(): TaskEither<StoreError, readonly TokenRecord[]>;
  /** Revokes by id or by name; false when nothing active matched. */
  revoke(idOrName: string, at: Date): TaskEither<StoreError, boolean>;
  count(): TaskEither<StoreError, number>;
}
