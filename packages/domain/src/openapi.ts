import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency-key.js';
import { webhookParameters, webhooks, webhookSchemas, webhookTag } from './openapi-webhooks.js';
import { MAX_NAME_LENGTH, MAX_TAG_LENGTH } from './plant.js';
import { MAX_PLANT_ID } from './plant-id.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './wire.js';

/**
 * The text rule as a pattern every regular-expression dialect reads alike: explicit classes only
 * (no `\\s`, `\\S`, `.` or look-around). Any run of non-control characters around one character
 * that is neither a control character nor whitespace — whitespace spelled out as ECMAScript's
 * `\\s` has it (U+0009–U+000D and U+0020 fall in the control and space range already).
 */
const notControl = '[^\\u0000-\\u001F\\u007F]';
const notControlNorSpace = '[^\\u0000-\\u0020\\u007F\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]';
export const TEXT_PATTERN = `^${notControl}*${notControlNorSpace}${notControl}*$`;

const text = (maxLength: number, description: string) => ({
  type: 'string',
  minLength: 1,
  maxLength,
  pattern: TEXT_PATTERN,
  description: `${description} ${maxLength === MAX_NAME_LENGTH ? '1–200' : '1–100'} Unicode code points; at least one non-whitespace character (whitespace: U+0009–U+000D, U+0020, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF — so U+0085 is not whitespace); no control characters (U+0000–U+001F, U+007F); well-formed Unicode (no lone surrogates), which a pattern cannot say. Stored exactly as sent.`,
});

const error = (status: number, description: string, example: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...headers },
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      example: { error: status, message: example },
    },
  },
});

const wwwAuthenticate = {
  'WWW-Authenticate': {
    description: 'RFC 6750 challenge: `Bearer realm="plant-store"`, with `error="invalid_request"` (400), `error="invalid_token"` (401 for an unknown, expired or revoked token) or `error="insufficient_scope", scope="…"` (403).',
    schema: { type: 'string' },
  },
};

const authErrors = {
  '401': error(401, 'No credentials, another scheme, or an unknown, expired or revoked token.', 'missing bearer token', wwwAuthenticate),
  '403': error(403, 'The token lacks the scope this operation needs.', 'this operation needs the plants:write scope', wwwAuthenticate),
};

const common = {
  '405': error(405, 'The route exists but not with this method (answered before authentication).', 'method PUT is not allowed on /plants; allowed: GET, POST', {
    Allow: { description: 'The methods the route has.', schema: { type: 'string' } },
  }),
  '429': error(
    429,
    'Rate limited: only where the operator configured a limit (off by default). The limit holds per principal (a token, or a JWT subject) for the whole deployment: every instance and worker draws from one budget. With `RATE_LIMIT_PER_SECOND` = R and `RATE_LIMIT_BURST` = B (a multiple of R, default 2 × R), a principal may make B requests in a fixed window of B / R seconds, which starts with its first request after the previous window ended: R per second on average, at most B at once (and up to 2 × B across the end of one window and the start of the next). Only authenticated requests with the scope count, reads and writes alike, 429s included; 401 and 403 never do. Every answer under `/plants` to such a request — this one, and every other status — carries the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "default";q=B;w=B/R` and `RateLimit: "default";r=<requests left in the window>;t=<seconds until it ends>`; on a 429, `t` equals `Retry-After`. If the server cannot reach the store of its counters it serves requests unchecked (fail open) and sends `RateLimit-Policy` without `RateLimit`.',
    'rate limit of 10 requests per second exceeded; retry after 2 s',
    {
      'Retry-After': { description: 'Whole seconds until the window ends and the quota is whole again.', required: true, schema: { type: 'integer', minimum: 1 } },
      'RateLimit-Policy': {
        description: 'The policy, as an RFC 8941 item: `"default";q=<requests per window>;w=<window in seconds>`. Also on every other answer under `/plants` to an authenticated request with the scope.',
        schema: { type: 'string', pattern: '^"default";q=[1-9][0-9]*;w=[1-9][0-9]*$', example: '"default";q=20;w=2' },
      },
      RateLimit: {
        description: 'What is left: `"default";r=<requests left in the window>;t=<seconds until it ends>` (here `r=0`, and `t` equals `Retry-After`). Also on every other answer under `/plants` to an authenticated request with the scope, unless the counters could not be reached.',
        schema: { type: 'string', pattern: '^"default";r=(0|[1-9][0-9]*);t=(0|[1-9][0-9]*)$', example: '"default";r=0;t=2' },
      },
    },
  ),
  '500': error(500, 'Unexpected failure; details are only in the server log.', 'internal server error'),
  '501': error(501, 'A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`): a coding this server does not understand (RFC 9112 §6.1).', 'Transfer-Encoding "gzip, chunked" is not supported; send the body with chunked alone or with Content-Length'),
  '503': error(503, 'The store is unreachable, or the server is shutting down.', 'the store is unavailable; try again'),
};

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: `The plant's id, an integer 1 … ${MAX_PLANT_ID} (2^53−1), written in the path as decimal digits with no sign and no leading zero (\`7\`, never \`07\`, \`+7\` or \`7.0\`); anything else → 400.`,
  schema: { type: 'integer', minimum: 1, maximum: MAX_PLANT_ID },
  example: 7,
};

/** A strong or weak entity tag (RFC 9110 §8.8.3): `W/` optionally, then `"…"` of etagc characters. */
const ENTITY_TAG = '(W/)?"[!#-~\\u0080-\\u00FF]*"';
/** `*`, or a comma-separated list of at least one entity tag (empty elements allowed, RFC 9110 §5.6.1.2). */
export const ENTITY_TAG_LIST_PATTERN = `^([ \\t]*\\*[ \\t]*|([ \\t]*,)*[ \\t]*${ENTITY_TAG}[ \\t]*(,[ \\t]*(${ENTITY_TAG}[ \\t]*)?)*)$`;

const conditionalHeaders = [
  {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'RFC 9110 §13.1.1: `*` or a comma-separated list of entity tags. The request proceeds only if the plant exists and, unless `*`, one of the tags equals its current `ETag` by strong comparison (a weak `W/"…"` never matches); else 412 and nothing changes. The comparison and the write are one atomic step, across instances. A malformed value → 400.',
    schema: { type: 'string', pattern: ENTITY_TAG_LIST_PATTERN },
    example: '"1k3"',
  },
  {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'RFC 9110 §13.1.2: `*` or a comma-separated list of entity tags, compared weakly (`W/"1k3"` matches `"1k3"`); `*` matches any existing plant. When it matches: 304 on `GET`/`HEAD`, 412 on `PATCH`/`DELETE`. Evaluated after `If-Match`. A malformed value → 400. `If-Modified-Since` and `If-Unmodified-Since` are ignored.',
    schema: { type: 'string', pattern: ENTITY_TAG_LIST_PATTERN },
    example: '"1k3"',
  },
] as const;

const etagHeader = { ETag: { $ref: '#/components/headers/ETag' } } as const;

const preconditionFailed = error(
  412,
  'A precondition failed: `If-Match` names no current ETag of the plant, or `If-None-Match` matches it (on `GET`/`HEAD`, only `If-Match`). Nothing was changed. Checked after 400 and 404.',
  'plant 42 has changed: If-Match does not name its current ETag',
);

const ok = <X extends object = object>(description: string, extra?: X) => ({
  description,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
  ...(extra as X),
});


type Responses = Readonly<Record<string, { readonly description: string; readonly content?: unknown }>>;

/** Every response of `responses` without its body (`HEAD` sends the same status and headers, no body). */
const withoutBodies = (responses: Responses): Responses =>
  Object.fromEntries(Object.entries(responses).map(([status, { content: _content, ...rest }]) => [status, rest]));

/** The `HEAD` twin of a `GET` operation: the same security, parameters, statuses and headers, no body. */
const headOf = <Op extends { readonly summary: string; readonly responses: Responses }>(get: Op, operationId: string) => ({
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
const optionsOf = (allow: string, operationId: string, tag: 'plants' | 'health', anyId = false) => ({
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

const listPlants = {
    tags: ['plants'],
    operationId: 'listPlants',
    summary: 'List plants, one page at a time',
    description:
      'Needs scope `plants:read`. Plants in ascending id order, starting after `after`, only those whose tag is `tag` when it is given. When the page is full a `Link: </plants?limit=N&after=LAST>; rel="next"` header names the next page (with `&tag=…` when filtered); a shorter page has none. The query string is decoded as `application/x-www-form-urlencoded` (`+` is a space, as `URLSearchParams` writes it); invalid percent-encoding or UTF-8, a parameter without `=`, an unknown or repeated parameter → 400. The cost of a page does not depend on how many plants the store holds, nor on how many carry other tags.',
    security: [{ bearer: ['plants:read'] }],
    parameters: [
      {
        name: 'limit',
        in: 'query',
        description: `Page size, decimal digits 1 … ${MAX_PAGE_LIMIT}.`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT },
      },
      {
        name: 'after',
        in: 'query',
        description: `Start after this id; 0 (or absent) starts from the beginning. Decimal digits 0 … ${MAX_PLANT_ID}.`,
        schema: { type: 'integer', minimum: 0, maximum: MAX_PLANT_ID, default: 0 },
      },
      {
        name: 'tag',
        in: 'query',
        description: 'Only plants whose tag equals this exactly, code point for code point (no case folding or normalisation); plants without a tag never match. Percent-encoded UTF-8; the tag rules apply.',
        schema: { $ref: '#/components/schemas/PlantTag' },
        example: 'indoor',
      },
    ],
    responses: {
      '200': ok('One page of plants.', {
        headers: {
          'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
          Link: { description: 'RFC 8288 link to the next page, present only when this page is full. It carries `limit` always and `tag` when the page is filtered, encoded as `URLSearchParams` writes it.', schema: { type: 'string', example: '</plants?limit=100&after=100&tag=living+room>; rel="next"' } },
        },
        content: {
          'application/json': {
            schema: { type: 'array', items: { $ref: '#/components/schemas/Plant' } },
            example: [{ id: 1, name: 'Monstera deliciosa', tag: 'tropical' }, { id: 2, name: 'Ficus lyrata' }],
          },
        },
      }),
      '400': error(400, 'Invalid `limit`, `after` or `tag`, a parameter without `=`, invalid percent-encoding or UTF-8, an unknown or repeated parameter, or a malformed bearer credential (`error="invalid_request"`).', 'limit: expected an integer from 1 to 1000, got a string "0"', wwwAuthenticate),
      ...authErrors,
      ...common,
    },
} as const;

const getPlant = {
    tags: ['plants'],
    operationId: 'getPlant',
    summary: 'Read one plant',
    description:
      'Needs scope `plants:read`. With `If-None-Match` naming the current ETag (or `*`): 304 without a body, so a client can check a copy it has cheaply. With `If-Match` not naming it: 412.',
    security: [{ bearer: ['plants:read'] }],
    parameters: conditionalHeaders,
    responses: {
      '200': ok('The plant, with its `ETag`.', {
        headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...etagHeader },
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/Plant' },
            example: { id: 42, name: 'Ficus lyrata', tag: 'indoor' },
          },
        },
      }),
      '304': ok('Not modified: `If-None-Match` names the plant\'s current ETag (or is `*`). No body; the `ETag` again.', {
        headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...etagHeader },
      }),
      '400': error(400, 'The id is not canonical decimal digits in range, a malformed `If-Match` or `If-None-Match`, or a malformed bearer credential (`error="invalid_request"`).', 'id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string "07"', wwwAuthenticate),
      ...authErrors,
      '404': error(404, 'No such plant.', 'no plant with id 42'),
      '412': preconditionFailed,
      ...common,
    },
} as const;

const updatePlant = {
  tags: ['plants'],
  operationId: 'updatePlant',
  summary: 'Change a plant (JSON Merge Patch)',
  description:
    'Needs scope `plants:write`. A JSON Merge Patch (RFC 7396): `name` replaces the name, `tag` replaces the tag and `null` removes it, an absent member keeps its value; `{}` changes nothing and answers 200 with the plant as it is. `Content-Type` must be `application/merge-patch+json` or `application/json` (a `charset=utf-8` parameter is fine), the other body rules are those of create (16 KiB as sent → else 413, `Content-Encoding` → 415, valid UTF-8 → else 400). Send `If-Match` with the ETag you read to change the plant only if nobody else has since (else 412): of two clients that patch with the same ETag exactly one gets 200. The 200 is sent after the commit. A patch that sets the values the plant already has keeps its ETag and sends no event; one that changes it gives a new ETag and sends `plant.updated`. Order: authentication, then the request itself (400, 413, 415), then existence (404), then the preconditions (412). Concurrent patches of one plant are serialised: every answer is a state the plant really had. `PUT` is not offered (405).',
  security: [{ bearer: ['plants:write'] }],
  parameters: conditionalHeaders,
  requestBody: {
    required: true,
    content: {
      'application/merge-patch+json': {
        schema: { $ref: '#/components/schemas/UpdatePlantRequest' },
        examples: {
          rename: { value: { name: 'Ficus lyrata "Bambino"' } },
          retag: { value: { tag: 'living room' } },
          untag: { value: { tag: null } },
        },
      },
      'application/json': { schema: { $ref: '#/components/schemas/UpdatePlantRequest' } },
    },
  },
  responses: {
    '200': ok('The plant after the change (or as it is, when nothing changed), with its `ETag`.', {
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...etagHeader },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Plant' },
          example: { id: 42, name: 'Ficus lyrata', tag: 'living room' },
        },
      },
    }),
    '400': error(400, 'An invalid id, body (the message names every failing member: `id`, an unknown member, `"name": null`, a name or tag breaking the rules), `If-Match` or `If-None-Match`, or a malformed bearer credential (`error="invalid_request"`).', 'id: cannot be changed: a plant keeps its id (the one in the path)', wwwAuthenticate),
    ...authErrors,
    '404': error(404, 'No such plant.', 'no plant with id 42'),
    '412': preconditionFailed,
    '413': error(413, 'The body is larger than the limit.', 'request body larger than 16384 bytes'),
    '415': error(415, 'Not `application/merge-patch+json` or `application/json`, or a compressed body.', 'expected Content-Type application/merge-patch+json or application/json'),
    ...common,
  },
} as const;

const getOpenApiDocument = {
    tags: ['health'],
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    security: [],
    responses: {
      '200': ok('The OpenAPI 3.1 document.', { content: { 'application/json': { schema: { type: 'object' } } } }),
      '405': common['405'],
    },
} as const;

const getDocs = {
  tags: ['health'],
  operationId: 'getDocs',
  summary: 'This reference, as a web page',
  description:
    'Swagger UI rendering `/openapi.json`, served with its script, style sheet and icon (`/docs/init.js`, `/docs/swagger-ui-bundle.js`, `/docs/swagger-ui.css`, `/docs/favicon-32x32.png`) from this server alone: it works offline, and its `Content-Security-Policy` allows nothing from elsewhere.',
  security: [],
  responses: {
    '200': ok('The page.', {
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        'Content-Security-Policy': {
          description: 'Scripts, styles, images and fetches from this origin only; never framed.',
          required: true,
          schema: { type: 'string', pattern: "^default-src 'none'; " },
        },
      },
      content: { 'text/html': { schema: { type: 'string' } } },
    }),
    '405': common['405'],
  },
} as const;

const getLiveness = {
    tags: ['health'],
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers',
    security: [],
    responses: {
      '200': ok('Alive.', { content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' }, example: { status: 'ok' } } } }),
      '405': common['405'],
    },
} as const;

const getReadiness = {
    tags: ['health'],
    operationId: 'getReadiness',
    summary: 'Readiness: the store answers and the server is not shutting down',
    security: [],
    responses: {
      '200': ok('Ready.', { content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' }, example: { status: 'ok' } } } }),
      '503': error(503, 'The store does not answer, or the server is shutting down.', 'not ready: shutting down'),
      '405': common['405'],
    },
} as const;

type PathItems = Readonly<Record<string, object>>;

/**
 * The security headers every answer carries (CONTRACT.md § "Response headers and browsers"):
 * `X-Content-Type-Options` and `Content-Security-Policy` on all, `Cache-Control: no-store` on
 * every answer under `/plants`. Added to each response of `paths` here rather than by hand.
 */
const withSecurityHeaders = <const P extends PathItems>(paths: P): P => {
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  const out = JSON.parse(JSON.stringify(paths)) as Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>>;
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

/** What the served document states about the deployment (CONTRACT.md asks it to publish these). */
export interface OpenApiSettings {
  /** IDEMPOTENCY_TTL_SECONDS in force; default 86400. */
  readonly idempotencyTtlSeconds?: number;
}

export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 86_400;

const idempotencyKeyParameter = (ttlSeconds: number) => ({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: `Makes the create safe to retry (draft-ietf-httpapi-idempotency-key-header). One field line: 1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters from \`A–Z a–z 0–9 . _ : ~ + / = -\`, bare or as an RFC 8941 string (\`k\` and \`"k"\` are one key; the 255 count what is inside the quotes). The draft allows any printable ASCII inside the quotes; this narrower set is deliberate. Anything else (a space, an escape, parameters, a list, an empty value, a second line) → 400 naming the header, checked after the 415s and before the 413. A key belongs to the principal that sent it (an operator token's id, or the JWT's \`iss\` + \`sub\`): another principal's equal key is another key, so a retry must use the same token. The outcome of a create with a new key — 201, or 409 for a taken id — is saved with the key in the transaction of the plant, and kept for ${ttlSeconds} second${ttlSeconds === 1 ? '' : 's'} from its commit (\`IDEMPOTENCY_TTL_SECONDS\`, by the store's clock); after that the key is new again. Other outcomes (400, 401, 403, 413, 415, 429, 5xx) save nothing. The same key with the same request (equal JSON values: member order, whitespace, escapes and number spelling do not count; neither do the query string and other headers) → the saved status, \`Location\` and body again with \`Idempotent-Replayed: true\`; nothing changes, even if the plant has since been deleted. The same key with a different request → 422 (the saved outcome stays). While a request with the key is being processed by this server process → 409 with \`Retry-After: 1\`, never saved; on PostgreSQL, a request with the key on another instance or worker waits for the first one's commit instead and then gets its saved outcome (a replay, or 422). A replay counts as a request for rate limits.`,
  schema: {
    type: 'string',
    pattern: `^([A-Za-z0-9._:~+/=-]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}|"[A-Za-z0-9._:~+/=-]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}")$`,
  },
  example: '5f0c6c1e-3b1a-4be4-9f5c-2a6f1f0a9d3e',
});

const idempotentReplayed = {
  'Idempotent-Replayed': {
    description: '`true` when this is the saved answer of an earlier request with the same `Idempotency-Key` (absent otherwise).',
    schema: { type: 'string', enum: ['true'] },
  },
};

/**
 * The OpenAPI 3.1 document of the whole contract (CONTRACT.md), served at `GET /openapi.json`,
 * with the deployment's settings stated where the contract asks for them.
 */
export const createOpenApiDocument = ({ idempotencyTtlSeconds = DEFAULT_IDEMPOTENCY_TTL_SECONDS }: OpenApiSettings = {}) => ({
  openapi: '3.1.0',
  info: {
    title: 'Plant Store',
    version: '1.0.0',
    description:
      'A store of plants: create, read, change, list (all, or by tag) and delete, with bearer tokens (RFC 6750). Changes can be made safe from lost updates with ETags and `If-Match` (RFC 9110 §13). Every error has the body `{"error": <status>, "message": <text>}` and `Content-Type: application/json`, including the errors Node answers before the app runs (400 malformed request, 408 request timeout, 417 an `Expect` other than `100-continue`, 431 headers too large). A malformed request head is 400 on every path, before authentication: an HTTP/1.1 request without `Host` or with more than one, or a request target with a `#` fragment. Every response carries `X-Request-Id`: the caller\'s if it matches `[A-Za-z0-9._:-]{1,128}`, else a new one. A 201, a `PATCH` 200 or a 204 is sent only after the change is committed. Unknown routes → 404; a method a route does not have → 405 with `Allow`, answered before authentication. `OPTIONS` on a known path → 204 with `Allow` (no authentication); `HEAD` is answered wherever `GET` is, with the same status and headers and no body. Request bodies are never accepted compressed (`Content-Encoding` other than `identity` → 415). A `Transfer-Encoding` that ends in `chunked` but names another coding too (`gzip, chunked`, on one line or two) → 501 (RFC 9112 §6.1); one that does not end in `chunked`, or repeats it, → 400 and the connection closes (§6.3). Messages name routes as this document does (`/plants/{id}`). Every answer carries `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src \'none\'; frame-ancestors \'none\'`; every answer under `/plants` also `Cache-Control: no-store`. CORS is off unless the operator sets `CORS_ORIGINS`: then a request whose `Origin` is one of those exact origins gets `Access-Control-Allow-Origin` (and `Vary: Origin`) on every answer, errors included, with `Access-Control-Expose-Headers: Location, Link, ETag, X-Request-Id, Retry-After, Idempotent-Replayed, RateLimit-Policy, RateLimit`; its preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 before authentication with `Access-Control-Allow-Methods: GET, HEAD, POST, PATCH, DELETE, OPTIONS`, `Access-Control-Allow-Headers: Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match` and `Access-Control-Max-Age: 600`; no credentials mode. Any other origin gets no CORS header.',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [{ url: '/' }],
  security: [{ bearer: [] }],
  tags: [{ name: 'plants' }, { name: 'health', description: 'No authentication: the document, its web page, liveness and readiness.' }, webhookTag],
  paths: withSecurityHeaders({
    '/plants': {
      post: {
        tags: ['plants'],
        operationId: 'createPlant',
        summary: 'Create a plant',
        description:
          'Needs scope `plants:write`. `Content-Type` must be `application/json` (a `charset=utf-8` parameter is fine); any other media type, or a `Content-Encoding` other than `identity`, → 415. The body may be at most 16 KiB as sent (configurable) → else 413; it must be valid UTF-8 → else 400. When `id` is absent the server assigns one that never collides with an existing plant.',
        security: [{ bearer: ['plants:write'] }],
        parameters: [idempotencyKeyParameter(idempotencyTtlSeconds)],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/CreatePlantRequest' },
              examples: {
                named: { value: { name: 'Monstera deliciosa', tag: 'tropical' } },
                withId: { value: { id: 42, name: 'Ficus lyrata' } },
              },
            },
          },
        },
        responses: {
          '201': ok('Created, after the commit. The body is name and tag only; the id travels in `Location`.', {
            headers: {
              'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
              Location: {
                description: '`/plants/{id}` of the new plant.',
                required: true,
                schema: { type: 'string', pattern: '^/plants/[1-9][0-9]*$', example: '/plants/42' },
              },
              ...etagHeader,
              ...idempotentReplayed,
            },
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/CreatePlantResponse' },
                example: { name: 'Monstera deliciosa', tag: 'tropical' },
              },
            },
          }),
          '400': error(400, 'Invalid body (the message names every failing field), a malformed `Idempotency-Key`, or a malformed bearer credential (`WWW-Authenticate: … error="invalid_request"`).', 'name: expected 1–200 characters, got 0', wwwAuthenticate),
          ...authErrors,
          '409': error(
            409,
            'The id is taken; nothing was changed (with an `Idempotency-Key`, saved and replayed with `Idempotent-Replayed: true`). Or, with `Retry-After: 1`: a request with the same `Idempotency-Key` is still being processed; nothing was done or saved, retry.',
            'a plant with id 42 already exists',
            {
              'Retry-After': {
                description: 'Only on the in-flight answer: retry the same request with the same key after this many seconds.',
                schema: { type: 'integer', enum: [1] },
              },
              ...idempotentReplayed,
            },
          ),
          '413': error(413, 'The body is larger than the limit.', 'request body larger than 16384 bytes'),
          '415': error(415, 'Not `application/json`, or a compressed body.', 'expected Content-Type application/json'),
          '422': error(
            422,
            'The `Idempotency-Key` was already used, within its time to live, with a different request. The saved outcome stays; send a new key for a new request.',
            'Idempotency-Key "order-17" was already used with a different request; send a new key for a new request',
          ),
          ...common,
        },
      },
      get: listPlants,
      head: headOf(listPlants, 'headPlants'),
      options: optionsOf('GET, HEAD, POST, OPTIONS', 'optionsPlants', 'plants'),
    },
    '/plants/{id}': {
      parameters: [idParameter],
      get: getPlant,
      head: headOf(getPlant, 'headPlant'),
      patch: updatePlant,
      options: optionsOf('GET, HEAD, PATCH, DELETE, OPTIONS', 'optionsPlant', 'plants', true),
      delete: {
        tags: ['plants'],
        operationId: 'deletePlant',
        summary: 'Delete a plant',
        description:
          'Needs scope `plants:write`. Of concurrent deletes of one plant exactly one gets 204, the others 404. With `If-Match`, only if the plant still has that ETag (else 412; one atomic step); an `If-None-Match` that matches → 412.',
        security: [{ bearer: ['plants:write'] }],
        parameters: conditionalHeaders,
        responses: {
          '204': ok('Deleted, after the commit. No body.'),
          '400': error(400, 'The id is not canonical decimal digits in range, a malformed `If-Match` or `If-None-Match`, or a malformed bearer credential (`error="invalid_request"`).', 'id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string "-1"', wwwAuthenticate),
          ...authErrors,
          '404': error(404, 'No such plant.', 'no plant with id 42'),
          '412': preconditionFailed,
          ...common,
        },
      },
    },
    '/openapi.json': {
      get: getOpenApiDocument,
      head: headOf(getOpenApiDocument, 'headOpenApiDocument'),
      options: optionsOf('GET, HEAD, OPTIONS', 'optionsOpenApiDocument', 'health'),
    },
    '/docs': {
      get: getDocs,
      head: headOf(getDocs, 'headDocs'),
      options: optionsOf('GET, HEAD, OPTIONS', 'optionsDocs', 'health'),
    },
    '/healthz': {
      get: getLiveness,
      head: headOf(getLiveness, 'headLiveness'),
      options: optionsOf('GET, HEAD, OPTIONS', 'optionsLiveness', 'health'),
    },
    '/readyz': {
      get: getReadiness,
      head: headOf(getReadiness, 'headReadiness'),
      options: optionsOf('GET, HEAD, OPTIONS', 'optionsReadiness', 'health'),
    },
  }),
  /** What this server POSTs to registered endpoints: one entry per event type (openapi-webhooks.ts). */
  webhooks,
  components: {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'A token issued with the server\'s token CLI (scopes `plants:read`, `plants:write`; optional expiry), or a JWT where the server is configured to verify them. Only the `Authorization` header is read; an `access_token` query parameter alone counts as no credentials, and together with the header → 400.',
      },
    },
    headers: {
      'X-Content-Type-Options': {
        description: 'On every answer: browsers must not guess another media type.',
        required: true,
        schema: { type: 'string', enum: ['nosniff'] },
      },
      'Content-Security-Policy': {
        description: 'On every answer of the API: nothing in it is a page to render, load from or frame.',
        required: true,
        schema: { type: 'string', enum: ["default-src 'none'; frame-ancestors 'none'"] },
      },
      'Cache-Control': {
        description: 'On every answer under `/plants`: per-caller data, never stored by a cache.',
        required: true,
        schema: { type: 'string', enum: ['no-store'] },
      },
      ETag: {
        description:
          'The plant\'s strong entity tag (RFC 9110 §8.8.3), on a 201, on a `GET`/`HEAD` 200 or 304, and on a `PATCH` 200: the ETag of the plant as `GET /plants/{id}` shows it. Opaque: compare it, send it back in `If-Match` or `If-None-Match`, never parse it. It changes exactly when the plant\'s representation changes (a patch that sets the values it already has keeps it), and a plant is never given an ETag it or an earlier plant with its id had.',
        required: true,
        schema: { type: 'string', pattern: '^"[0-9a-z]{1,11}"$' },
        example: '"1k3"',
      },
      'X-Request-Id': {
        description: 'The caller\'s `X-Request-Id` if it matches `[A-Za-z0-9._:-]{1,128}`, else a new one. The server\'s log line for the request carries the same id.',
        schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
      },
    },
    parameters: webhookParameters,
    schemas: {
      PlantId: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_PLANT_ID,
        description: 'A safe integer 1 … 2^53−1.',
      },
      PlantName: text(MAX_NAME_LENGTH, 'The plant\'s name:'),
      PlantTag: text(MAX_TAG_LENGTH, 'A free-text label:'),
      CreatePlantRequest: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { $ref: '#/components/schemas/PlantName' },
          tag: { $ref: '#/components/schemas/PlantTag' },
          id: { $ref: '#/components/schemas/PlantId' },
        },
        description: 'Any other member → 400 naming it. When `id` is present and taken → 409.',
      },
      UpdatePlantRequest: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: { $ref: '#/components/schemas/PlantName' },
          tag: { anyOf: [{ $ref: '#/components/schemas/PlantTag' }, { type: 'null', description: 'Removes the tag.' }] },
        },
        description: 'A JSON Merge Patch (RFC 7396) of a plant: an absent member keeps its value, `tag: null` removes the tag. `id` (a plant keeps its id), any other member, or `"name": null` → 400 naming it. `{}` changes nothing.',
      },
      CreatePlantResponse: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { $ref: '#/components/schemas/PlantName' },
          tag: { $ref: '#/components/schemas/PlantTag' },
        },
        description: 'Name and tag, never the id. An absent tag is omitted (never null).',
      },
      Plant: {
        type: 'object',
        required: ['id', 'name'],
        properties: {
          id: { $ref: '#/components/schemas/PlantId' },
          name: { $ref: '#/components/schemas/PlantName' },
          tag: { $ref: '#/components/schemas/PlantTag' },
        },
        description: 'An absent tag is omitted (never null).',
      },
      Error: {
        type: 'object',
        required: ['error', 'message'],
        properties: {
          error: { type: 'integer', minimum: 100, maximum: 599, format: 'int32', description: 'The HTTP status.' },
          message: { type: 'string', description: 'For humans; free of stack traces, SQL and paths.' },
        },
      },
      Health: {
        type: 'object',
        required: ['status'],
        properties: { status: { type: 'string', enum: ['ok'] } },
      },
      ...webhookSchemas,
    },
  },
}) as const;

/** The document with the default settings. */
export const openApiDocument = createOpenApiDocument();
