import { MAX_NAME_LENGTH, MAX_TAG_LENGTH } from './plant.js';
import { MAX_PLANT_ID } from './plant-id.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './wire.js';

const text = (maxLength: number, description: string) => ({
  type: 'string',
  minLength: 1,
  maxLength,
  // at least one non-whitespace character, and no control character U+0000–U+001F or U+007F
  pattern: '^(?=[\\s\\S]*\\S)[^\\u0000-\\u001F\\u007F]*$',
  description: `${description} ${maxLength === MAX_NAME_LENGTH ? '1–200' : '1–100'} Unicode code points; at least one non-whitespace character; no control characters (U+0000–U+001F, U+007F); well-formed Unicode (no lone surrogates). Stored exactly as sent.`,
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
  '429': error(429, 'Rate limited: only where the operator configured a limit (per token, per server process; off by default).', 'rate limit of 10 requests per second exceeded; retry after 1 s', {
    'Retry-After': { description: 'Whole seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  }),
  '500': error(500, 'Unexpected failure; details are only in the server log.', 'internal server error'),
  '503': error(503, 'The store is unreachable, or the server is shutting down.', 'the store is unavailable; try again'),
};

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: `Decimal digits, no sign, no leading zero, 1 … ${MAX_PLANT_ID}; anything else → 400.`,
  schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' },
  example: '7',
};

const ok = <X extends object = object>(description: string, extra?: X) => ({
  description,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
  ...(extra as X),
});

/** The OpenAPI 3.1 document of the whole contract (CONTRACT.md), served at `GET /openapi.json`. */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Plant Store',
    version: '1.0.0',
    description:
      'A store of plants: create, read, list and delete, with bearer tokens (RFC 6750). Every error has the body `{"error": <status>, "message": <text>}` and `Content-Type: application/json`, including the errors Node answers before the app runs (400 malformed request, 408 request timeout, 417 an `Expect` other than `100-continue`, 431 headers too large). A malformed request head is 400 on every path, before authentication: an HTTP/1.1 request without `Host` or with more than one, or a request target with a `#` fragment. Every response carries `X-Request-Id`: the caller\'s if it matches `[A-Za-z0-9._:-]{1,128}`, else a new one. A 201 or 204 is sent only after the change is committed. Unknown routes → 404; a method a route does not have → 405 with `Allow`, answered before authentication. `OPTIONS` on a known path → 204 with `Allow` (no authentication); `HEAD` is answered wherever `GET` is, with the same status and headers and no body. Request bodies are never accepted compressed (`Content-Encoding` other than `identity` → 415).',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [{ url: '/' }],
  security: [{ bearer: [] }],
  tags: [{ name: 'plants' }, { name: 'health' }],
  paths: {
    '/plants': {
      post: {
        tags: ['plants'],
        operationId: 'createPlant',
        summary: 'Create a plant',
        description:
          'Needs scope `plants:write`. `Content-Type` must be `application/json` (a `charset=utf-8` parameter is fine); any other media type, or a `Content-Encoding` other than `identity`, → 415. The body may be at most 16 KiB as sent (configurable) → else 413; it must be valid UTF-8 → else 400. When `id` is absent the server assigns one that never collides with an existing plant.',
        security: [{ bearer: ['plants:write'] }],
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
              Location: { description: '`/plants/{id}` of the new plant.', schema: { type: 'string', example: '/plants/42' } },
            },
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/CreatePlantResponse' },
                example: { name: 'Monstera deliciosa', tag: 'tropical' },
              },
            },
          }),
          '400': error(400, 'Invalid body (the message names every failing field), or a malformed bearer credential (`WWW-Authenticate: … error="invalid_request"`).', 'name: expected 1–200 characters, got 0', wwwAuthenticate),
          ...authErrors,
          '409': error(409, 'The id is taken; nothing was changed.', 'a plant with id 42 already exists'),
          '413': error(413, 'The body is larger than the limit.', 'request body larger than 16384 bytes'),
          '415': error(415, 'Not `application/json`, or a compressed body.', 'expected Content-Type application/json'),
          ...common,
        },
      },
      get: {
        tags: ['plants'],
        operationId: 'listPlants',
        summary: 'List plants, one page at a time',
        description:
          'Needs scope `plants:read`. Plants in ascending id order, starting after `after`. When the page is full a `Link: </plants?limit=N&after=LAST>; rel="next"` header names the next page; a shorter page has none. An unknown or repeated query parameter → 400.',
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
        ],
        responses: {
          '200': ok('One page of plants.', {
            headers: {
              'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
              Link: { description: 'RFC 8288 link to the next page, present only when this page is full.', schema: { type: 'string', example: '</plants?limit=100&after=100>; rel="next"' } },
            },
            content: {
              'application/json': {
                schema: { type: 'array', items: { $ref: '#/components/schemas/Plant' } },
                example: [{ id: 1, name: 'Monstera deliciosa', tag: 'tropical' }, { id: 2, name: 'Ficus lyrata' }],
              },
            },
          }),
          '400': error(400, 'Invalid `limit` or `after`, an unknown or repeated parameter, or a malformed bearer credential (`error="invalid_request"`).', 'limit: expected an integer from 1 to 1000, got a string "0"', wwwAuthenticate),
          ...authErrors,
          ...common,
        },
      },
    },
    '/plants/{id}': {
      parameters: [idParameter],
      get: {
        tags: ['plants'],
        operationId: 'getPlant',
        summary: 'Read one plant',
        description: 'Needs scope `plants:read`.',
        security: [{ bearer: ['plants:read'] }],
        responses: {
          '200': ok('The plant.', {
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Plant' },
                example: { id: 42, name: 'Ficus lyrata', tag: 'indoor' },
              },
            },
          }),
          '400': error(400, 'The id is not canonical decimal digits in range, or a malformed bearer credential (`error="invalid_request"`).', 'id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string "07"', wwwAuthenticate),
          ...authErrors,
          '404': error(404, 'No such plant.', 'no plant with id 42'),
          ...common,
        },
      },
      delete: {
        tags: ['plants'],
        operationId: 'deletePlant',
        summary: 'Delete a plant',
        description: 'Needs scope `plants:write`. Of concurrent deletes of one plant exactly one gets 204, the others 404.',
        security: [{ bearer: ['plants:write'] }],
        responses: {
          '204': ok('Deleted, after the commit. No body.'),
          '400': error(400, 'The id is not canonical decimal digits in range, or a malformed bearer credential (`error="invalid_request"`).', 'id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string "-1"', wwwAuthenticate),
          ...authErrors,
          '404': error(404, 'No such plant.', 'no plant with id 42'),
          ...common,
        },
      },
    },
    '/openapi.json': {
      get: {
        tags: ['health'],
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        security: [],
        responses: {
          '200': ok('The OpenAPI 3.1 document.', { content: { 'application/json': { schema: { type: 'object' } } } }),
          '405': common['405'],
        },
      },
    },
    '/healthz': {
      get: {
        tags: ['health'],
        operationId: 'getLiveness',
        summary: 'Liveness: the process answers',
        security: [],
        responses: {
          '200': ok('Alive.', { content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' }, example: { status: 'ok' } } } }),
          '405': common['405'],
        },
      },
    },
    '/readyz': {
      get: {
        tags: ['health'],
        operationId: 'getReadiness',
        summary: 'Readiness: the store answers and the server is not shutting down',
        security: [],
        responses: {
          '200': ok('Ready.', { content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' }, example: { status: 'ok' } } } }),
          '503': error(503, 'The store does not answer, or the server is shutting down.', 'not ready: shutting down'),
          '405': common['405'],
        },
      },
    },
  },
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
      'X-Request-Id': {
        description: 'The caller\'s `X-Request-Id` if it matches `[A-Za-z0-9._:-]{1,128}`, else a new one. The server\'s log line for the request carries the same id.',
        schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
      },
    },
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
    },
  },
} as const;
