/** The `/plants/batch` path of the OpenAPI document: many plants created at once, and its `OPTIONS`. */
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency-key.js';
import { authErrors, common, error, ok, optionsOf, prose, proseString, wwwAuthenticate } from './openapi-parts.js';
import { idempotentReplayed, KEY_TOKEN } from './openapi-plants.js';
import { MAX_BATCH_PLANTS } from './plant-batch.js';

const batchKeyParameter = (ttlSeconds: number) => ({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: proseString(
    'Makes the whole array safe to retry, with the syntax and the rules of the key of `POST /plants`',
    `(1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters from \`A–Z a–z 0–9 . _ : ~ + / = -\`, bare or as an RFC 8941 string;`,
    'owned by the principal that sent it). The outcome of an array that reached the store — the 201 with its body',
    'and its `X-Change-Seq`, or a 409 for ids already taken — is saved with the key in the transaction of the plants,',
    `and kept for ${ttlSeconds} second${ttlSeconds === 1 ? '' : 's'} from its commit (\`IDEMPOTENCY_TTL_SECONDS\`).`,
    'The same key with an equal array (equal JSON values, element for element, in the same order) → the saved status',
    'and body again with `Idempotent-Replayed: true` and the original `X-Change-Seq`; nothing changes. The same key with',
    'an array that differs in any element or in their order, or a key used on `POST /plants`, → 422.',
    'Other outcomes (400, a 409 for an id given twice, 401, 403, 413, 415, 429, 5xx) save nothing.',
    'One key space for both routes: while a request with the key is being processed by this server process → 409',
    'with `Retry-After: 1`.',
  ),
  schema: { type: 'string', pattern: `^(${KEY_TOKEN}|"${KEY_TOKEN}")$` },
  example: 'import:8f14e45fceea167a:0',
});

const createPlants = (idempotencyTtlSeconds: number) =>
  ({
    tags: ['plants'],
    operationId: 'createPlants',
    summary: 'Create many plants at once, all or nothing',
    description: prose(
      `Needs scope \`plants:write\`. The body is a JSON array of 1–${MAX_BATCH_PLANTS} plants, each with the rules of`,
      '`POST /plants` (`name`, optional `tag`, optional `id`); `Content-Type` and `Content-Encoding` as there.',
      'The body may be at most 4 MiB (4194304 bytes) as sent by default (`BULK_BODY_LIMIT_BYTES`) → else 413.',
      'The whole array is created in one transaction, or nothing is: each plant gets its own change in the log and its',
      'own `plant.created` event, all in the one commit, so a follower never sees part of an array (the order of its',
      "changes among themselves is the server's). Server-assigned ids never collide with existing plants nor with the",
      'ids the same array gives. A rate limit counts the array as one request.',
    ),
    security: [{ bearer: ['plants:write'] }],
    parameters: [batchKeyParameter(idempotencyTtlSeconds)],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/CreatePlantsRequest' },
          example: [
            { name: 'Monstera deliciosa', tag: 'tropical' },
            { id: 42, name: 'Ficus lyrata' },
          ],
        },
      },
    },
    responses: {
      '201': ok(
        prose(
          'Created, after the commit: every plant of the array, with its id, in request order.',
          'No `Location` and no `ETag` (a `GET` of a plant gives its ETag).',
        ),
        {
          headers: {
            'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
            'X-Change-Seq': {
              description: proseString(
                "The number of the newest of the array's changes in the change log (each plant has its own change, all",
                'in one commit): follow `GET /plants/changes?since=` from below it to see them. On a replay, the number',
                'the original answer had.',
              ),
              required: true,
              schema: { type: 'integer', minimum: 1 },
            },
            ...idempotentReplayed,
          },
          content: {
            'application/json': {
              schema: { type: 'array', items: { $ref: '#/components/schemas/Plant' } },
              example: [
                { id: 41, name: 'Monstera deliciosa', tag: 'tropical' },
                { id: 42, name: 'Ficus lyrata' },
              ],
            },
          },
        },
      ),
      '400': error(
        400,
        prose(
          `Not a JSON array, an empty one, more than ${MAX_BATCH_PLANTS} elements, or an invalid element: the message`,
          'names the first invalid element in array order, counted from 0, and its failing fields (`[3].name: …`).',
          'Or a malformed `Idempotency-Key`, or a malformed bearer credential (`error="invalid_request"`).',
          'Nothing was created.',
        ),
        '[3].name: expected 1–200 characters, got 0',
        wwwAuthenticate,
      ),
      ...authErrors,
      '409': error(
        409,
        prose(
          'An id given twice in the array (the message names it; decided before the store, never saved with a key),',
          'or ids other plants already have (the message names them; with an `Idempotency-Key`, saved and replayed with',
          '`Idempotent-Replayed: true`). Nothing was created. Or, with `Retry-After: 1`: a request with the same',
          '`Idempotency-Key` is still being processed; nothing was done or saved, retry.',
        ),
        'plants with ids 42, 43 already exist; nothing was created',
        {
          'Retry-After': {
            description:
              'Only on the in-flight answer: retry the same request with the same key after this many seconds.',
            schema: { type: 'integer', enum: [1] },
          },
          ...idempotentReplayed,
        },
      ),
      '413': error(
        413,
        'The body is larger than `BULK_BODY_LIMIT_BYTES` (4 MiB by default).',
        'request body larger than 4194304 bytes',
      ),
      '415': error(415, 'Not `application/json`, or a compressed body.', 'expected Content-Type application/json'),
      '422': error(
        422,
        prose(
          'The `Idempotency-Key` was already used, within its time to live, with a different array (any element or',
          'their order), or on `POST /plants`. The saved outcome stays; send a new key for a new request.',
        ),
        'Idempotency-Key "import-17" was already used with a different request; send a new key for a new request',
      ),
      ...common,
    },
  }) as const;

export const batchPath = (idempotencyTtlSeconds: number) =>
  ({
    post: createPlants(idempotencyTtlSeconds),
    options: optionsOf('POST, OPTIONS', 'optionsPlantsBatch', 'plants'),
  }) as const;

/** The schema of the array `POST /plants/batch` takes. */
export const batchSchemas = {
  CreatePlantsRequest: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_BATCH_PLANTS,
    items: { $ref: '#/components/schemas/CreatePlantRequest' },
    description: prose(
      `1–${MAX_BATCH_PLANTS} plants, each a \`CreatePlantRequest\`. The same \`id\` in two elements → 409 naming it;`,
      'an id another plant has → 409 naming the ids taken.',
    ),
  },
} as const;
