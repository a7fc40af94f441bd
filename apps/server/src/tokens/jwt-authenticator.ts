import * as E from 'fp-ts/lib/Either.js';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { isScope } from '../ports/token-store.js';
import { authUnavailable, invalidToken, type AuthUnavailable, type InvalidToken } from './auth-error.js';
import type { Authenticator, Principal } from './principal.js';

export interface JwtSettings {
  /** An HS256/384/512 shared secret, or the URL of the identity provider's JWKS (exactly one). */
  readonly key: { readonly secret: string } | { readonly jwksUrl: string };
  readonly issuer: string;
  readonly audience: string;
  /** The allow-list of `alg` values; never `none`. */
  readonly algorithms: readonly string[];
}

/** jose error codes that mean "this token is not acceptable" (401) rather than "cannot check now" (503). */
const rejectedCodes = new Set([
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWS_INVALID',
  'ERR_JWT_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
]);

const codeOf = (e: unknown): unknown =>
  typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;

const explain = (e: unknown): InvalidToken | AuthUnavailable => {
  const code = codeOf(e);
  if (code === 'ERR_JWT_EXPIRED') return invalidToken('the bearer token has expired');
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    const claim = (e as { claim?: unknown }).claim;
    return invalidToken(`the bearer token's "${typeof claim === 'string' ? claim : 'unknown'}" claim is not accepted`);
  }
  if (code === 'ERR_JOSE_ALG_NOT_ALLOWED') return invalidToken("the bearer token's signing algorithm is not allowed");
  if (typeof code === 'string' && rejectedCodes.has(code))
    return invalidToken('the bearer token could not be verified');
  return authUnavailable(e);
};

/**
 * Verifies JWTs with jose: signature (HS secret or the provider's JWKS), `iss`, `aud`, `exp`/`nbf`
 * and an allow-list of algorithms (`none` can never be on it). Scopes come from the space-separated
 * `scope` claim; unknown scopes are ignored.
 */
export const createJwtAuthenticator = (settings: JwtSettings): Authenticator => {
  const algorithms = [...settings.algorithms];
  if (algorithms.length === 0 || algorithms.some((a) => a.toLowerCase() === 'none')) {
    throw new TypeError('JWT algorithms must be a non-empty allow-list without "none"');
  }
  const key: Uint8Array | JWTVerifyGetKey =
    'secret' in settings.key
      ? new TextEncoder().encode(settings.key.secret)
      : createRemoteJWKSet(new URL(settings.key.jwksUrl));
  const options = { issuer: settings.issuer, audience: settings.audience, algorithms };
  return {
    authenticate:
      (token: string): TaskEither<InvalidToken | AuthUnavailable, Principal> =>
      async () => {
        try {
          const { payload } = await (typeof key === 'function'
            ? jwtVerify(token, key, options)
            : jwtVerify(token, key, options));
          const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(isScope) : [];
          const subject = typeof payload.sub === 'string' ? payload.sub : '(no subject)';
          // jwtVerify checked `iss` against the configured issuer, so it is a string here.
          return E.right({ subject, issuer: String(payload.iss), scopes });
        } catch (e) {
          return E.left(explain(e));
        }
      },
  };
};
