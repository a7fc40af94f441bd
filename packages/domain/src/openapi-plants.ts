/** The `/plants` path of the OpenAPI document: create, list, and their `HEAD` and `OPTIONS`. */
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency-key.js';
import {
  authErrors,
  common,
  error,
  etagHeader,
  headOf,
  ok,
  optionsOf,
  prose,
  proseString,
  wwwAuthenticate,
} from './openapi-parts.js';
import { MAX_PLANT_ID } from './plant-id.js';
import { MAX_PAGE_CURSOR_LENGTH, PAGE_CURSOR_PATTERN, PLANT_SORTS } from './search.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './wire.js';

/** A key as sent bare: 1 to MAX_IDEMPOTENCY_KEY_LENGTH characters of the allowed set. */
export const KEY_TOKEN = `[A-Za-z0-9._:~+/=-]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}`;

const idempotencyKeyParameter = (ttlSeconds: number) => ({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: proseString(
    'Makes the create safe to retry (draft-ietf-httpapi-idempotency-key-header).',
    `One field line: 1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters from \`A–Z a–z 0–9 . _ : ~ + / = -\`,`,
    'bare or as an RFC 8941 string (`k` and `"k"` are one key; the 255 count what is inside the quotes).',
    'The draft allows any printable ASCII inside the quotes; this narrower set is deliberate.',
    'Anything else (a space, an escape, parameters, a list, an empty value, a second line) → 400 naming the header,',
    `checked after the 415s and before the 413. A key belongs to the principal that sent it (an operator token's id,`,
    `or the JWT's \`iss\` + \`sub\`): another principal's equal key is another key,`,
    'so a retry must use the same token. The outcome of a create with a new key — 201, or 409 for a taken id —',
    `is saved with the key in the transaction of the plant, and kept for ${ttlSeconds}`,
    `second${ttlSeconds === 1 ? '' : 's'} from its commit (\`IDEMPOTENCY_TTL_SECONDS\`, by the store's clock);`,
    'after that the key is new again. Other outcomes (400, 401, 403, 413, 415, 429, 5xx) save nothing.',
    'The same key with the same request (equal JSON values: member order, whitespace,',
    'escapes and number spelling do not count; neither do the query string and other headers) → the saved status,',
    '`Location` and body again with `Idempotent-Replayed: true`; nothing changes,',
    'even if the plant has since been deleted. The same key with a different request → 422 (the saved outcome stays).',
    'While a request with the key is being processed by this server process → 409 with `Retry-After: 1`,',
    `never saved; on PostgreSQL, a request with the key on another instance or worker waits for the first one's commit`,
    'instead and then gets its saved outcome (a replay, or 422). A replay counts as a request for rate limits.',
  ),
  schema: {
    type: 'string',
    pattern: `^(${KEY_TOKEN}|"${KEY_TOKEN}")$`,
  },
  example: '5f0c6c1e-3b1a-4be4-9f5c-2a6f1f0a9d3e',
});

export const idempotentReplayed = {
  'Idempotent-Replayed': {
    description:
      '`true` when this is the saved answer of an earlier request with the same `Idempotency-Key` (absent otherwise).',
    schema: { type: 'string', enum: ['true'] },
  },
};

const createPlant = (idempotencyTtlSeconds: number) =>
  ({
    tags: ['plants'],
    operationId: 'createPlant',
    summary: 'Create a plant',
    description: prose(
      'Needs scope `plants:write`. `Content-Type` must be `application/json` (a `charset=utf-8` parameter is fine);',
      'any other media type, or a `Content-Encoding` other than `identity`, → 415.',
      'The body may be at most 16 KiB as sent (configurable) → else 413; it must be valid UTF-8 → else 400.',
      'When `id` is absent the server assigns one that never collides with an existing plant.',
    ),
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
          // Not required: a replay of an outcome saved before change numbers were saved has none.
          'X-Change-Seq': { $ref: '#/components/headers/X-Change-Seq' },
          ...idempotentReplayed,
        },
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/CreatePlantResponse' },
            example: { name: 'Monstera deliciosa', tag: 'tropical' },
          },
        },
      }),
      '400': error(
        400,
        prose(
          'Invalid body (the message names every failing field), a malformed `Idempotency-Key`,',
          'or a malformed bearer credential (`WWW-Authenticate: … error="invalid_request"`).',
        ),
        'name: expected 1–200 characters, got 0',
        wwwAuthenticate,
      ),
      ...authErrors,
      '409': error(
        409,
        prose(
          'The id is taken; nothing was changed (with an `Idempotency-Key`, saved and replayed with',
          '`Idempotent-Replayed: true`). Or, with `Retry-After: 1`: a request with the same `Idempotency-Key` is still',
          'being processed; nothing was done or saved, retry.',
        ),
        'a plant with id 42 already exists',
        {
          'Retry-After': {
            description:
              'Only on the in-flight answer: retry the same request with the same key after this many seconds.',
            schema: { type: 'integer', enum: [1] },
          },
          ...idempotentReplayed,
        },
      ),
      '413': error(413, 'The body is larger than the limit.', 'request body larger than 16384 bytes'),
      '415': error(415, 'Not `application/json`, or a compressed body.', 'expected Content-Type application/json'),
      '422': error(
        422,
        prose(
          'The `Idempotency-Key` was already used, within its time to live, with a different request.',
          'The saved outcome stays; send a new key for a new request.',
        ),
        'Idempotency-Key "order-17" was already used with a different request; send a new key for a new request',
      ),
      ...common,
    },
  }) as const;

const listPlants = {
  tags: ['plants'],
  operationId: 'listPlants',
  summary: 'List plants, one page at a time',
  description: prose(
    'Needs scope `plants:read`. Plants in the order `sort` names (ascending id by default), only those whose tag',
    'is `tag` and whose name contains `q` when they are given, one keyset page at a time.',
    'An id order continues after `after`; a name order continues at the `cursor` the previous page’s `Link` carries.',
    'When the page is full a `Link: <…>; rel="next"` header names the next page with every parameter it needs;',
    'a shorter page has none.',
    'The query string is decoded as `application/x-www-form-urlencoded` (`+` is a space,',
    'as `URLSearchParams` writes it); invalid percent-encoding or UTF-8, a parameter without `=`,',
    'an unknown or repeated parameter, `after` with a name order, `cursor` with an id order → 400.',
    'A page sorted by id or by name, with or without a tag, or filtered by a `q` of at least 3 characters, costs the same',
    'whatever the store holds (an index serves it); a `q` of 1–2 characters may read the plants in order until the page',
    'is full. With `Prefer: count=exact` the response also says how many plants match in the whole store',
    '(`X-Total-Count`), which costs what the matches cost; without it no count is made.',
  ),
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
      description: proseString(
        `With \`sort=id\` (the default), start after this id; with \`sort=-id\`, before it (smaller ids).`,
        `0 (or absent) starts at the first plant of the order (with \`-id\`, the newest). Decimal digits 0 … ${MAX_PLANT_ID}.`,
        'Not allowed with a name order (400).',
      ),
      schema: { type: 'integer', minimum: 0, maximum: MAX_PLANT_ID, default: 0 },
    },
    {
      name: 'sort',
      in: 'query',
      description: proseString(
        '`id` (ascending, the default), `-id` (newest first), `name` or `-name`. Name order compares the folded',
        "names (`fold(s)`: Unicode NFKC, then ECMAScript's locale-independent lower case) code point by code point",
        '(UTF-8 byte order), ties broken by id in the same direction. Anything else → 400.',
      ),
      schema: { type: 'string', enum: [...PLANT_SORTS], default: 'id' },
    },
    {
      name: 'q',
      in: 'query',
      description: proseString(
        'Only plants whose folded name contains the folded text: `q=fern` finds "Boston Fern" and "FERNLEAF",',
        '`q=ﬀ` finds "Staff". `%`, `_` and `\\` are ordinary characters. No collation, locale or database case rule',
        'takes part. Percent-encoded UTF-8; the tag rules apply (so an empty `q` → 400).',
      ),
      schema: { $ref: '#/components/schemas/SearchText' },
      example: 'fern',
    },
    {
      name: 'cursor',
      in: 'query',
      description: proseString(
        'With `sort=name` or `-name`: where the page starts, as the previous page’s `Link` gives it. Opaque;',
        'valid only with the `sort`, `q` and `tag` it was made with. A malformed cursor, one made for another',
        'query, or `cursor` with an id order → 400. Absent: the first page.',
      ),
      schema: { type: 'string', minLength: 1, maxLength: MAX_PAGE_CURSOR_LENGTH, pattern: PAGE_CURSOR_PATTERN },
    },
    {
      name: 'tag',
      in: 'query',
      description: prose(
        'Only plants whose tag equals this exactly, code point for code point (no case folding or normalisation);',
        'plants without a tag never match. Percent-encoded UTF-8; the tag rules apply.',
      ),
      schema: { $ref: '#/components/schemas/PlantTag' },
      example: 'indoor',
    },
    {
      name: 'Prefer',
      in: 'header',
      description: proseString(
        'RFC 7240. `count=exact` (alone or among other preferences) asks for `X-Total-Count`;',
        'every other preference, and any other value, is ignored.',
      ),
      schema: { type: 'string' },
      example: 'count=exact',
    },
  ],
  responses: {
    '200': ok('One page of plants.', {
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        'X-Change-Seq': { $ref: '#/components/headers/X-Change-Seq' },
        Link: {
          description: proseString(
            'RFC 8288 link to the next page, present only when this page is full.',
            'It carries `limit` always; `after` (id orders) or `cursor` (name orders); `sort` unless `id`;',
            'and `tag` and `q` when given, encoded as `URLSearchParams` writes it.',
          ),
          schema: { type: 'string', example: '</plants?limit=100&after=100&tag=living+room>; rel="next"' },
        },
        'X-Total-Count': {
          description: proseString(
            'Only with `Prefer: count=exact`: how many plants match `q` and `tag` in the whole store,',
            'whatever the page.',
          ),
          schema: { type: 'integer', minimum: 0 },
        },
        'Preference-Applied': {
          description: 'Only with `Prefer: count=exact`: `count=exact` (RFC 7240).',
          schema: { type: 'string', enum: ['count=exact'] },
        },
      },
      content: {
        'application/json': {
          schema: { type: 'array', items: { $ref: '#/components/schemas/Plant' } },
          example: [
            { id: 1, name: 'Monstera deliciosa', tag: 'tropical' },
            { id: 2, name: 'Ficus lyrata' },
          ],
        },
      },
    }),
    '400': error(
      400,
      prose(
        'Invalid `limit`, `after`, `sort`, `q`, `cursor` or `tag`, `after` with a name order, `cursor` with an id order,',
        'a cursor made for another query, a parameter without `=`, invalid percent-encoding or UTF-8, an unknown or',
        'repeated parameter, or a malformed bearer credential (`error="invalid_request"`).',
      ),
      'limit: expected an integer from 1 to 1000, got a string "0"',
      wwwAuthenticate,
    ),
    ...authErrors,
    ...common,
  },
} as const;

export const plantsPath = (idempotencyTtlSeconds: number) =>
  ({
    post: createPlant(idempotencyTtlSeconds),
    get: listPlants,
    head: headOf(listPlants, 'headPlants'),
    options: optionsOf('GET, HEAD, POST, OPTIONS', 'optionsPlants', 'plants'),
  }) as const;
