import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The bearer check every server the bench starts besides ours does (the ceiling and the peers):
 * the SHA-256 of the presented token compared with `timingSafeEqual` against that of one fixed
 * token, as our server compares a presented token with the stored hashes (RFC 6750, docs/reference/api.md):
 * - no `Authorization` header, or another scheme → 401 `WWW-Authenticate: Bearer realm="plant-store"`;
 * - `Bearer` with an empty token or one not of the b64token syntax → 400, `error="invalid_request"`;
 * - a well-formed token that is not the one → 401, `error="invalid_token"`.
 */

const B64TOKEN = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
export const REALM = 'Bearer realm="plant-store"';

/** Why a request is refused: its status, the message of its `{error, message}` body, its challenge. */
export interface BearerDenial {
  readonly status: 400 | 401;
  readonly message: string;
  readonly wwwAuthenticate: string;
}

/** undefined when the `Authorization` header carries the token. */
export type BearerCheck = (authorization: string | undefined) => BearerDenial | undefined;

export const createBearerCheck = (token: string): BearerCheck => {
  const expected = createHash('sha256').update(token).digest();
  return (header) => {
    if (header === undefined || !/^bearer(?: |$)/i.test(header))
      return { status: 401, message: 'missing bearer token', wwwAuthenticate: REALM };
    const match = B64TOKEN.exec(header);
    if (match === null)
      return { status: 400, message: 'malformed bearer token', wwwAuthenticate: `${REALM}, error="invalid_request"` };
    const actual = createHash('sha256')
      .update(match[1] as string)
      .digest();
    return timingSafeEqual(actual, expected)
      ? undefined
      : { status: 401, message: 'unknown token', wwwAuthenticate: `${REALM}, error="invalid_token"` };
  };
};
