import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { StoreError } from '../ports/plant-store.js';
import type { Scope } from '../ports/token-store.js';
import type { AuthUnavailable, InvalidToken } from './auth-error.js';

/** Who made a request: a token id (opaque tokens) or the JWT subject, and what it may do. */
export interface Principal {
  readonly subject: string;
  readonly scopes: readonly Scope[];
}

/** Checks a well-formed bearer token. Never rejects: failures are values. */
export interface Authenticator {
  authenticate(token: string): TaskEither<InvalidToken | AuthUnavailable | StoreError, Principal>;
}
