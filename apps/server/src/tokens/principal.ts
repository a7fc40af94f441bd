import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { StoreError } from '../ports/plant-store.js';
import type { Scope } from '../ports/token-store.js';
import type { AuthUnavailable, InvalidToken } from './auth-error.js';

/** Who made a request: a token id (opaque tokens) or the JWT subject, and what it may do. */
export interface Principal {
  readonly subject: string;
  /** The JWT's verified `iss`; absent for the server's own tokens. */
  readonly issuer?: string;
  readonly scopes: readonly Scope[];
}

/**
 * Whose an idempotency key is: the operator token's id, or the JWT's issuer and subject. The
 * prefixes keep the two kinds apart; a newline cannot occur in an issuer, so none is ambiguous.
 */
export const ownerOf = (principal: Principal): string =>
  principal.issuer === undefined ? `token ${principal.subject}` : `jwt ${principal.issuer}\n${principal.subject}`;

/** Checks a well-formed bearer token. Never rejects: failures are values. */
export interface Authenticator {
  authenticate(token: string): TaskEither<InvalidToken | AuthUnavailable | StoreError, Principal>;
}
