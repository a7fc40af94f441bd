import * as E from 'fp-ts/lib/Either.js';
import type { Scope } from '../ports/token-store.js';
import {
  insufficientScope,
  invalidAuthRequest,
  missingCredentials,
  type InvalidAuthRequest,
  type MissingCredentials,
} from '../tokens/auth-error.js';
import { isB64Token } from '../tokens/opaque-token.js';
import type { Authenticator } from '../tokens/principal.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import type { AppContext, AppMiddleware } from './context.js';
import { setRateLimitHeaders } from './rate-limit-headers.js';
import { rateLimited } from './request-error.js';
import { sendError } from './respond.js';

/** Every `Authorization` value as sent (Node keeps only the first in `req.headers`; rawHeaders keeps all). */
export const authorizationValues = (rawHeaders: readonly string[]): string[] => {
  const values: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] ?? '');
  }
  return values;
};

/**
 * The bearer token of a request, RFC 6750 as docs/reference/api.md reads it: no header or another scheme →
 * MissingCredentials (401, a query token alone counts as none); an empty or malformed token,
 * several headers, or a header together with an `access_token` query parameter → InvalidAuthRequest (400).
 */
export const readBearerToken = (
  values: readonly string[],
  hasQueryToken: boolean,
): E.Either<MissingCredentials | InvalidAuthRequest, string> => {
  const value = values[0];
  if (value === undefined) {
    return E.left(
      missingCredentials(
        hasQueryToken
          ? 'tokens are not accepted in the access_token query parameter; send Authorization: Bearer <token>'
          : 'missing bearer token; send Authorization: Bearer <token>',
      ),
    );
  }
  if (values.length > 1) return E.left(invalidAuthRequest('several Authorization headers; send exactly one'));
  if (hasQueryToken) {
    return E.left(
      invalidAuthRequest(
        'credentials in both the Authorization header and the access_token query parameter; send only the header',
      ),
    );
  }
  const space = value.indexOf(' ');
  const scheme = space === -1 ? value : value.slice(0, space);
  // The scheme is never echoed: a client that sends a bare secret would see it in the body.
  if (scheme.toLowerCase() !== 'bearer') return E.left(missingCredentials('expected the Bearer authentication scheme'));
  let start = space + 1;
  while (value.charCodeAt(start) === 0x20) start++;
  const token = space === -1 ? '' : value.slice(start);
  if (token === '') return E.left(invalidAuthRequest('empty bearer token'));
  if (!isB64Token(token))
    return E.left(invalidAuthRequest('malformed bearer token: expected the RFC 6750 b64token syntax'));
  return E.right(token);
};

/**
 * Runs first on every /plants route, before the body is read or anything validated: a 401/403
 * reveals nothing about plants or about the request's body. With a `limiter`, an authenticated
 * caller with the scope then takes one request from its principal's quota (keyed by the subject,
 * shared by every instance when the limiter's store is): the answer carries the RateLimit fields,
 * and a spent quota → 429 with `Retry-After`, still before anything about plants is looked at. A
 * limiter whose store fails lets the request through (fail open). An unauthenticated flood keeps
 * getting 401s; without a limiter nothing is consulted at all.
 */
export const requireScope = (auth: Authenticator, scope: Scope, limiter?: RateLimiter): AppMiddleware => {
  /** The request's well-formed bearer token, or undefined once the 400/401 was answered. */
  const bearer = (ctx: AppContext): string | undefined => {
    const hasQueryToken = ctx.querystring !== '' && Object.hasOwn(ctx.query, 'access_token');
    const token = readBearerToken(authorizationValues(ctx.req.rawHeaders), hasQueryToken);
    if (E.isRight(token)) return token.right;
    sendError(ctx, token.left);
    return undefined;
  };
  return async (ctx, next) => {
    const token = bearer(ctx);
    if (token === undefined) return;
    const principal = await auth.authenticate(token)();
    if (E.isLeft(principal)) return sendError(ctx, principal.left);
    if (!principal.right.scopes.includes(scope)) return sendError(ctx, insufficientScope(scope));
    if (limiter !== undefined) {
      // Without a limiter this check is all the rate limiting costs.
      const decision = await limiter.take(principal.right.subject);
      setRateLimitHeaders(ctx, limiter.policy, decision);
      if (decision.kind === 'limited')
        return sendError(ctx, rateLimited(limiter.policy.ratePerSecond, decision.resetSeconds));
    }
    ctx.state.principal = principal.right;
    return next();
  };
};
