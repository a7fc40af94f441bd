/**
 * Building blocks the parts of the OpenAPI document share: responses, the `HEAD` and `OPTIONS`
 * operations derived from others, and the security headers added to every answer.
 */

/** `Parts` joined by single spaces, as a type: literal pieces give the literal text. */
type Joined<Parts extends readonly string[]> = Parts extends readonly [
  infer Head extends string,
  ...infer Rest extends readonly string[],
]
  ? Rest extends readonly []
    ? Head
    : `${Head} ${Joined<Rest>}`
  : string;

/**
 * Long text written as pieces, one a line, joined by single spaces: each piece ends where the
 * text has a space. The result has the type the text written on one line would have had in an
 * `as const` object: its literal type.
 */
export const prose = <const Parts extends readonly string[]>(...parts: Parts): Joined<Parts> =>
  parts.join(' ') as Joined<Parts>;

/** `prose` for objects that are not `as const`, where a string written on one line is a `string`. */
export const proseString = (...parts: readonly string[]): string => parts.join(' ');

export const error = (status: number, description: string, example: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...headers },
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      example: { error: status, message: example },
    },
  },
});

export const wwwAuthenticate = {
  'WWW-Authenticate': {
    description: prose(
      'RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400),',
      '`error="invalid_token"` (401 for an unknown, expired or revoked token) or',
      '`error="insufficient_scope", scope="…"` (403).',
    ),
    schema: { type: 'string' },
  },
};

export const authErrors = {
  '401': error(
    401,
    'No credentials, another scheme, or an unknown, expired or revoked token.',
    'missing bearer token',
    wwwAuthenticate,
  ),
  '403': error(
    403,
    'The token lacks the scope this operation needs.',
    'this operation needs the plants:write scope',
    wwwAuthenticate,
  ),
};

export const common = {
  '405': error(
    405,
    'The route exists but not with this method (answered before authentication).',
    'method PUT is not allowed on /plants; allowed: GET, POST',
    { Allow: { description: 'The methods the route has.', schema: { type: 'string' } } },
  ),
  '429': error(
    429,
    prose(
      'Rate limited: only where the operator configured a limit (off by default).',
      'The limit holds per principal (a token, or a JWT subject) for the whole deployment:',
      'every instance and worker draws from one budget.',
      'With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R),',
      'a principal may make B requests in a fixed window of B / R seconds,',
      'which starts with its first request after the previous window ended: R per second on average,',
      'at most B at once (and up to 2 × B across the end of one window and the start of the next).',
      'Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do.',
      'Every answer under `/plants` to such a request — this one, and every other status —',
      'carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers):',
      '`RateLimit-Policy: "default";q=B;w=B/R` and',
      '`RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429,',
      '`t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked',
      '(fail open) and sends `RateLimit-Policy` without `RateLimit`.',
    ),
    'rate limit of 10 requests per second exceeded; retry after 2 s',
    {
      'Retry-After': {
        description: 'Whole seconds until the window ends and the quota is whole again.',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
      'RateLimit-Policy': {
        description: prose(
          'The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`.',
          'Also on every other answer under `/plants` to an authenticated request with the scope.',
        ),
        schema: { type: 'string', pattern: '^"default";q=[1-9][0-9]*;w=[1-9][0-9]*$', example: '"default";q=20;w=2' },
      },
      RateLimit: {
        description: prose(
          'What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`,',
          'and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with',
          'the scope, unless the counters could not be reached.',
        ),
        schema: {
          type: 'string',
          pattern: '^"default";r=(0|[1-9][0-9]*);t=(0|[1-9][0-9]*)$',
          example: '"default";r=0;t=2',
        },
      },
    },
  ),
  '500': error(500, 'Unexpected failure; details are only in the server log.', 'internal server error'),
  '501': error(
    501,
    prose(
      'A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`):',
      'a coding this server does not understand (RFC 9112 §6.1).',
    ),
    'Transfer-Encoding "gzip, chunked" is not supported; send the body with chunked alone or with Content-Length',
  ),
  '503': error(
    503,
    prose(
      'The store is unreachable (a restart, a network fault, a failover to a standby under way),',
      'or the server is shutting down. Try again after `Retry-After`; a create sent again with its',
      '`Idempotency-Key` is applied once, whether or not the first one was.',
    ),
    'the store is unavailable; try again',
    {
      'Retry-After': {
        description: 'Seconds to wait before trying again (always 1).',
        required: true,
        schema: { type: 'integer', minimum: 1 },
      },
    },
  ),
};

export const etagHeader = { ETag: { $ref: '#/components/headers/ETag' } } as const;

export const ok = <X extends object = object>(description: string, extra?: X) => ({
  description,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
  ...(extra as X),
});

type Responses = Readonly<Record<string, { readonly description: string; readonly content?: unknown }>>;

/** Every response of `responses` without its body (`HEAD` sends the same status and headers, no body). */
const withoutBodies = (responses: Responses): Responses =>
  Object.fromEntries(Object.entries(responses).map(([status, { content: _content, ...rest }]) => [status, rest]));

/** The `HEAD` twin of a `GET` operation: the same security, parameters, statuses and headers, no body. */
export const headOf = <Op extends { readonly summary: string; readonly responses: Responses }>(
  get: Op,
  operationId: string,
) => ({
  ...get,
  operationId,
  summary: `${get.summary} (headers only)`,
  description: `As \`GET\`, with the same status and headers and no body.${'description' in get ? ` ${String(get.description)}` : ''}`,
  responses: withoutBodies(get.responses),
});

/**
 * `OPTIONS` on a known path: 204 with `Allow`, answered before authentication. It does not look
 * at the rest of the request, so on `/plants/{id}` the id may be any path segment.
 */
export const optionsOf = (allow: string, operationId: string, tag: 'plants' | 'health', anyId = false) => ({
  tags: [tag],
  operationId,
  summary: 'The methods of this path',
  description: `Answered before authentication and without looking at the request further: 204 with \`Allow: ${allow}\`.`,
  security: [],
  ...(anyId
    ? {
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'Any path segment: `OPTIONS` does not read the id.',
            schema: { type: 'string', pattern: '^[^/?#]+$' },
          },
        ],
      }
    : {}),
  responses: {
    '204': {
      description: 'The methods this path has, in `Allow`. No body.',
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        Allow: { description: 'The methods of this path.', required: true, schema: { type: 'string', enum: [allow] } },
      },
    },
  },
});

type PathItems = Readonly<Record<string, object>>;

/**
 * The security headers every answer carries (docs/reference/api.md):
 * `X-Content-Type-Options` and `Content-Security-Policy` on all, `Cache-Control: no-store` on
 * every answer under `/plants`. Added to each response of `paths` here rather than by hand.
 */
export const withSecurityHeaders = <const P extends PathItems>(paths: P): P => {
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  const out = JSON.parse(JSON.stringify(paths)) as Record<
    string,
    Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>
  >;
  for (const [path, item] of Object.entries(out)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses ?? {})) {
        // A response that names its own policy (the docs page) keeps it.
        response.headers = {
          'X-Content-Type-Options': ref('X-Content-Type-Options'),
          'Content-Security-Policy': ref('Content-Security-Policy'),
          ...(path === '/plants' || path.startsWith('/plants/') ? { 'Cache-Control': ref('Cache-Control') } : {}),
          ...response.headers,
        };
      }
    }
  }
  return out as unknown as P;
};
