import type { Scope } from '../ports/token-store.js';

/** No credentials at all, or another scheme than Bearer (RFC 6750 §3.1: no error attribute). */
export interface MissingCredentials {
  readonly _tag: 'MissingCredentials';
  readonly reason: string;
}

/** A malformed Authorization header or several credentials: RFC 6750 `invalid_request`. */
export interface InvalidAuthRequest {
  readonly _tag: 'InvalidAuthRequest';
  readonly reason: string;
}

/** A well-formed token that is unknown, expired, revoked or fails verification: `invalid_token`. */
export interface InvalidToken {
  readonly _tag: 'InvalidToken';
  readonly reason: string;
}

/** A valid token without the scope the operation needs: `insufficient_scope`. */
export interface InsufficientScope {
  readonly _tag: 'InsufficientScope';
  readonly scope: Scope;
}

/** The token could not be checked because the identity provider's key set did not answer. */
export interface AuthUnavailable {
  readonly _tag: 'AuthUnavailable';
  readonly cause: unknown;
}

export type AuthError = MissingCredentials | InvalidAuthRequest | InvalidToken | InsufficientScope | AuthUnavailable;

export const missingCredentials = (reason: string): MissingCredentials => ({ _tag: 'MissingCredentials', reason });
export const invalidAuthRequest = (reason: string): InvalidAuthRequest => ({ _tag: 'InvalidAuthRequest', reason });
export const invalidToken = (reason: string): InvalidToken => ({ _tag: 'InvalidToken', reason });
export const insufficientScope = (scope: Scope): InsufficientScope => ({ _tag: 'InsufficientScope', scope });
export const authUnavailable = (cause: unknown): AuthUnavailable => ({ _tag: 'AuthUnavailable', cause });
