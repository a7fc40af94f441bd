/** The `/plants/{id}` path of the OpenAPI document: read, change, delete, `HEAD` and `OPTIONS`. */
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

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: proseString(
    `The plant's id, an integer 1 … ${MAX_PLANT_ID} (2^53−1), written in the path as decimal digits with no sign and`,
    'no leading zero (`7`, never `07`, `+7` or `7.0`); anything else → 400.',
  ),
  schema: { type: 'integer', minimum: 1, maximum: MAX_PLANT_ID },
  example: 7,
};

/** A strong or weak entity tag (RFC 9110 §8.8.3): `W/` optionally, then `"…"` of etagc characters. */
const ENTITY_TAG = '(W/)?"[!#-~\\u0080-\\u00FF]*"';
/** Optional whitespace (RFC 9110 §5.6.3): spaces and tabs. */
const OWS = '[ \\t]*';
/** `*` alone. */
const ANY_ENTITY_TAG = `${OWS}\\*${OWS}`;
/** At least one entity tag, comma-separated, empty elements allowed (RFC 9110 §5.6.1.2). */
const ENTITY_TAGS = `(${OWS},)*${OWS}${ENTITY_TAG}${OWS}(,${OWS}(${ENTITY_TAG}${OWS})?)*`;
/** `*`, or a comma-separated list of at least one entity tag (empty elements allowed, RFC 9110 §5.6.1.2). */
export const ENTITY_TAG_LIST_PATTERN = `^(${ANY_ENTITY_TAG}|${ENTITY_TAGS})$`;

const conditionalHeaders = [
  {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: prose(
      'RFC 9110 §13.1.1: `*` or a comma-separated list of entity tags.',
      'The request proceeds only if the plant exists and, unless `*`, one of the tags equals its current `ETag` by',
      'strong comparison (a weak `W/"…"` never matches); else 412 and nothing changes.',
      'The comparison and the write are one atomic step, across instances. A malformed value → 400.',
    ),
    schema: { type: 'string', pattern: ENTITY_TAG_LIST_PATTERN },
    example: '"1k3"',
  },
  {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: prose(
      'RFC 9110 §13.1.2: `*` or a comma-separated list of entity tags, compared weakly (`W/"1k3"` matches `"1k3"`);',
      '`*` matches any existing plant. When it matches: 304 on `GET`/`HEAD`, 412 on `PATCH`/`DELETE`.',
      'Evaluated after `If-Match`. A malformed value → 400. `If-Modified-Since` and `If-Unmodified-Since` are ignored.',
    ),
    schema: { type: 'string', pattern: ENTITY_TAG_LIST_PATTERN },
    example: '"1k3"',
  },
] as const;

const preconditionFailed = error(
  412,
  prose(
    'A precondition failed: `If-Match` names no current ETag of the plant,',
    'or `If-None-Match` matches it (on `GET`/`HEAD`, only `If-Match`). Nothing was changed. Checked after 400 and 404.',
  ),
  'plant 42 has changed: If-Match does not name its current ETag',
);

const getPlant = {
  tags: ['plants'],
  operationId: 'getPlant',
  summary: 'Read one plant',
  description: prose(
    'Needs scope `plants:read`. With `If-None-Match` naming the current ETag (or `*`): 304 without a body,',
    'so a client can check a copy it has cheaply. With `If-Match` not naming it: 412.',
  ),
  security: [{ bearer: ['plants:read'] }],
  parameters: conditionalHeaders,
  responses: {
    '200': ok('The plant, with its `ETag`.', {
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        ...etagHeader,
        'X-Change-Seq': { $ref: '#/components/headers/X-Change-Seq' },
      },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Plant' },
          example: { id: 42, name: 'Ficus lyrata', tag: 'indoor' },
        },
      },
    }),
    '304': ok("Not modified: `If-None-Match` names the plant's current ETag (or is `*`). No body; the `ETag` again.", {
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...etagHeader },
    }),
    '400': error(
      400,
      prose(
        'The id is not canonical decimal digits in range, a malformed `If-Match` or `If-None-Match`,',
        'or a malformed bearer credential (`error="invalid_request"`).',
      ),
      'id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string "07"',
      wwwAuthenticate,
    ),
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
  description: prose(
    'Needs scope `plants:write`. A JSON Merge Patch (RFC 7396): `name` replaces the name,',
    '`tag` replaces the tag and `null` removes it, an absent member keeps its value;',
    '`{}` changes nothing and answers 200 with the plant as it is.',
    '`Content-Type` must be `application/merge-patch+json` or `application/json` (a `charset=utf-8` parameter is',
    'fine), the other body rules are those of create (16 KiB as sent → else 413, `Content-Encoding` → 415,',
    'valid UTF-8 → else 400). Send `If-Match` with the ETag you read to change the plant only if nobody else has since',
    '(else 412): of two clients that patch with the same ETag exactly one gets 200. The 200 is sent after the commit.',
    'A patch that sets the values the plant already has keeps its ETag and sends no event;',
    'one that changes it gives a new ETag and sends `plant.updated`.',
    'Order: authentication, then the request itself (400, 413, 415), then existence (404),',
    'then the preconditions (412). Concurrent patches of one plant are serialised:',
    'every answer is a state the plant really had. `PUT` is not offered (405).',
  ),
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
    '400': error(
      400,
      prose(
        'An invalid id, body (the message names every failing member: `id`, an unknown member, `"name": null`,',
        'a name or tag breaking the rules), `If-Match` or `If-None-Match`, or a malformed bearer credential',
        '(`error="invalid_request"`).',
      ),
      'id: cannot be changed: a plant keeps its id (the one in the path)',
      wwwAuthenticate,
    ),
    ...authErrors,
    '404': error(404, 'No such plant.', 'no plant with id 42'),
    '412': preconditionFailed,
    '413': error(413, 'The body is larger than the limit.', 'request body larger than 16384 bytes'),
    '415': error(
      415,
      'Not `application/merge-patch+json` or `application/json`, or a compressed body.',
      'expected Content-Type application/merge-patch+json or application/json',
    ),
    ...common,
  },
} as const;

const deletePlant = {
  tags: ['plants'],
  operationId: 'deletePlant',
  summary: 'Delete a plant',
  description: prose(
    'Needs scope `plants:write`. Of concurrent deletes of one plant exactly one gets 204, the others 404.',
    'With `If-Match`, only if the plant still has that ETag (else 412; one atomic step);',
    'an `If-None-Match` that matches → 412.',
  ),
  security: [{ bearer: ['plants:write'] }],
  parameters: conditionalHeaders,
  responses: {
    '204': ok('Deleted, after the commit. No body.'),
    '400': error(
      400,
      prose(
        'The id is not canonical decimal digits in range, a malformed `If-Match` or `If-None-Match`,',
        'or a malformed bearer credential (`error="invalid_request"`).',
      ),
      'id: expected decimal digits without sign or leading zero, from 1 to 9007199254740991, got a string "-1"',
      wwwAuthenticate,
    ),
    ...authErrors,
    '404': error(404, 'No such plant.', 'no plant with id 42'),
    '412': preconditionFailed,
    ...common,
  },
} as const;

export const plantPath = {
  parameters: [idParameter],
  get: getPlant,
  head: headOf(getPlant, 'headPlant'),
  patch: updatePlant,
  options: optionsOf('GET, HEAD, PATCH, DELETE, OPTIONS', 'optionsPlant', 'plants', true),
  delete: deletePlant,
} as const;
