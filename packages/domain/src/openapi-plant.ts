/** The `/plants/{id}` path of the OpenAPI document: read, change, replace, delete, `HEAD` and `OPTIONS`. */
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
      'strong comparison (a weak `W/"…"` never matches); else 412 and nothing changes',
      '(on `PUT`, a missing plant is a 412 too, never a 404: `If-Match` makes a `PUT` replace only).',
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
      '`*` matches any existing plant. When it matches: 304 on `GET`/`HEAD`, 412 on `PATCH`/`PUT`/`DELETE`',
      '(`If-None-Match: *` makes a `PUT` create only).',
      'Evaluated after `If-Match`. A malformed value → 400. `If-Modified-Since` and `If-Unmodified-Since` are ignored.',
    ),
    schema: { type: 'string', pattern: ENTITY_TAG_LIST_PATTERN },
    example: '"1k3"',
  },
] as const;

/** `X-Change-Seq` where every answer of the status carries it. */
const changeSeq = { 'X-Change-Seq': { $ref: '#/components/headers/X-Change-Seq.required' } } as const;

const preconditionFailedText = prose(
  'A precondition failed: `If-Match` names no current ETag of the plant,',
  'or `If-None-Match` matches it (on `GET`/`HEAD`, only `If-Match`). Nothing was changed. Checked after 400 and 404.',
);
const preconditionFailedExample = 'plant 42 has changed: If-Match does not name its current ETag';
const preconditionFailed = error(412, preconditionFailedText, preconditionFailedExample);

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
        ...changeSeq,
      },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Plant' },
          example: { id: 42, name: 'Ficus lyrata', tag: 'indoor' },
        },
      },
    }),
    '304': ok("Not modified: `If-None-Match` names the plant's current ETag (or is `*`). No body; the `ETag` again.", {
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...etagHeader, ...changeSeq },
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
    '404': error(
      404,
      'No such plant (`X-Change-Seq`: the snapshot that did not have it).',
      'no plant with id 42',
      changeSeq,
    ),
    '412': error(412, preconditionFailedText, preconditionFailedExample, changeSeq),
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
    'every answer is a state the plant really had. To replace the whole plant (or create it), use `PUT`.',
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
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...etagHeader, ...changeSeq },
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
    '204': ok('Deleted, after the commit. No body.', {
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...changeSeq },
    }),
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

const replacePlant = {
  tags: ['plants'],
  operationId: 'replacePlant',
  summary: 'Replace a plant, or create it with this id',
  description: prose(
    'Needs scope `plants:write`. The plant with the id of the path becomes exactly the body: a member the body',
    'leaves out is removed (no `tag`: the plant has no tag afterwards). No plant with that id → it is created: 201',
    'with `Location`, `ETag` and the whole plant, and `plant.created`; an existing plant → 200 with the whole plant',
    'and its `ETag`, and `plant.updated` only when something changed (a `PUT` of what the plant already is changes',
    "nothing, keeps its ETag and is not a change). Both are sent after the commit. `Content-Type` and the body's",
    'size and text rules are those of create (`application/json` → else 415; 16 KiB as sent → else 413;',
    '`Content-Encoding` → 415; valid UTF-8 → else 400). `If-None-Match: *` creates only (an existing plant → 412);',
    '`If-Match` replaces only, and only the plant with that ETag (`*`: any existing one); on a missing plant a',
    'precondition is a 412, never a 404. Concurrent `PUT`s of one id: every answer is a state the plant really had,',
    'and exactly one of them creates it. `PUT` is idempotent by itself: an `Idempotency-Key` is accepted and ignored.',
    'Order: authentication, then the request itself (400, 413, 415), then the preconditions (412).',
  ),
  security: [{ bearer: ['plants:write'] }],
  parameters: conditionalHeaders,
  requestBody: {
    required: true,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ReplacePlantRequest' },
        examples: {
          tagged: { value: { name: 'Ficus lyrata', tag: 'living room' } },
          untagged: { value: { name: 'Ficus lyrata' } },
        },
      },
    },
  },
  responses: {
    '200': ok('Replaced (or already so): the whole plant, with its `ETag`.', {
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...etagHeader, ...changeSeq },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Plant' },
          example: { id: 42, name: 'Ficus lyrata', tag: 'living room' },
        },
      },
    }),
    '201': ok('Created with the id of the path: the whole plant, with its `Location` and `ETag`.', {
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        Location: {
          description: '`/plants/{id}`: the path of the request.',
          required: true,
          schema: { type: 'string', pattern: '^/plants/[1-9][0-9]*$', example: '/plants/42' },
        },
        ...etagHeader,
        ...changeSeq,
      },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Plant' },
          example: { id: 42, name: 'Ficus lyrata' },
        },
      },
    }),
    '400': error(
      400,
      prose(
        'An invalid id, body (the message names every failing member: `id`, an unknown member, a `null`,',
        'a missing `name`, a name or tag breaking the rules), `If-Match` or `If-None-Match`, or a malformed bearer',
        'credential (`error="invalid_request"`).',
      ),
      'tag: expected a string, got null',
      wwwAuthenticate,
    ),
    ...authErrors,
    '412': error(
      412,
      prose(
        'A precondition failed: `If-Match` on a missing plant, or naming no current ETag of the plant;',
        '`If-None-Match` matching the plant (`*`: it exists). Nothing was changed. Checked after 400.',
      ),
      'no plant with id 42: If-Match needs an existing plant',
    ),
    '413': error(413, 'The body is larger than the limit.', 'request body larger than 16384 bytes'),
    '415': error(415, 'Not `application/json`, or a compressed body.', 'expected Content-Type application/json'),
    ...common,
  },
} as const;

export const plantPath = {
  parameters: [idParameter],
  get: getPlant,
  head: headOf(getPlant, 'headPlant'),
  put: replacePlant,
  patch: updatePlant,
  options: optionsOf('GET, HEAD, PUT, PATCH, DELETE, OPTIONS', 'optionsPlant', 'plants', true),
  delete: deletePlant,
} as const;
