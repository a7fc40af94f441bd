/** The `components` of the OpenAPI document: the security scheme, the shared headers and the schemas. */
import { MAX_SEARCH_LENGTH } from './search.js';
import { prose, proseString } from './openapi-parts.js';
import { webhookParameters, webhookSchemas } from './openapi-webhooks.js';
import { changeSchemas } from './openapi-changes.js';
import { batchSchemas } from './openapi-batch.js';
import { MAX_NAME_LENGTH, MAX_TAG_LENGTH } from './plant.js';
import { MAX_PLANT_ID } from './plant-id.js';

/**
 * The text rule as a pattern every regular-expression dialect reads alike: explicit classes only
 * (no `\\s`, `\\S`, `.` or look-around). Any run of non-control characters around one character
 * that is neither a control character nor whitespace — whitespace spelled out as ECMAScript's
 * `\\s` has it (U+0009–U+000D and U+0020 fall in the control and space range already).
 */
const notControl = '[^\\u0000-\\u001F\\u007F]';
/** The whitespace of ECMAScript's `\\s` above U+0020. */
const spacesAboveAscii = '\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';
const notControlNorSpace = `[^\\u0000-\\u0020\\u007F${spacesAboveAscii}]`;
export const TEXT_PATTERN = `^${notControl}*${notControlNorSpace}${notControl}*$`;

const text = (maxLength: number, description: string) => ({
  type: 'string',
  minLength: 1,
  maxLength,
  pattern: TEXT_PATTERN,
  description: proseString(
    `${description} ${maxLength === MAX_NAME_LENGTH ? '1–200' : '1–100'} Unicode code points;`,
    'at least one non-whitespace character (whitespace: U+0009–U+000D, U+0020, U+00A0, U+1680, U+2000–U+200A, U+2028,',
    'U+2029, U+202F, U+205F, U+3000, U+FEFF — so U+0085 is not whitespace); no control characters (U+0000–U+001F,',
    'U+007F); well-formed Unicode (no lone surrogates), which a pattern cannot say. Stored exactly as sent.',
  ),
});

/** What `X-Change-Seq` says, on a read and on a write. */
const CHANGE_SEQ_DESCRIPTION = prose(
  'Where this answer stands in the change log. On a read (a page, a plant, and the 304, 404 and 412 of',
  '`GET /plants/{id}`): the number of the newest change it includes, read in the same snapshot as the answer',
  "(0: no change yet). Read every page, then follow the changes from the first page's number, skipping for each plant",
  'the changes at or below the number of the page it came from: the copy is then exact.',
  'On a successful write: the number of the change it made (a create, a `PATCH` or `PUT` that changed the plant,',
  'a delete), or, for a write that changed nothing (a `PATCH` or `PUT` of the values the plant has), the newest',
  'number its snapshot saw; a replayed 201 carries the number of the original. Follow the feed from it',
  '(`GET /plants/changes?since=N`) to see what happened after your write.',
);

export const components = {
  securitySchemes: {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description: prose(
        "A token issued with the server's token CLI (scopes `plants:read`, `plants:write`; optional expiry),",
        'or a JWT where the server is configured to verify them.',
        'Only the `Authorization` header is read; an `access_token` query parameter alone counts as no credentials,',
        'and together with the header → 400.',
      ),
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
      description: prose(
        "The plant's strong entity tag (RFC 9110 §8.8.3), on a 201, on a `GET`/`HEAD` 200 or 304,",
        'and on a `PATCH` or `PUT` 200: the ETag of the plant as `GET /plants/{id}` shows it.',
        'Opaque: compare it, send it back in `If-Match` or `If-None-Match`, never parse it.',
        "It changes exactly when the plant's representation changes (a patch or a `PUT` that sets the values it",
        'already has keeps it), and a plant is never given an ETag it or an earlier plant with its id had.',
      ),
      required: true,
      schema: { type: 'string', pattern: '^"[0-9a-z]{1,11}"$' },
      example: '"1k3"',
    },
    'X-Change-Seq': {
      description: CHANGE_SEQ_DESCRIPTION,
      schema: { type: 'integer', minimum: 0 },
    },
    // The same header where every answer of the status carries it.
    'X-Change-Seq.required': {
      description: CHANGE_SEQ_DESCRIPTION,
      required: true,
      schema: { type: 'integer', minimum: 0 },
    },
    'X-Request-Id': {
      description: prose(
        "The caller's `X-Request-Id` if it matches `[A-Za-z0-9._:-]{1,128}`, else a new one.",
        "The server's log line for the request carries the same id.",
      ),
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
    PlantName: text(MAX_NAME_LENGTH, "The plant's name:"),
    PlantTag: text(MAX_TAG_LENGTH, 'A free-text label:'),
    SearchText: text(MAX_SEARCH_LENGTH, 'Text to find in plant names (the tag rules):'),
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
      description: prose(
        'A JSON Merge Patch (RFC 7396) of a plant: an absent member keeps its value, `tag: null` removes the tag.',
        '`id` (a plant keeps its id), any other member, or `"name": null` → 400 naming it. `{}` changes nothing.',
      ),
    },
    ReplacePlantRequest: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: { $ref: '#/components/schemas/PlantName' },
        tag: { $ref: '#/components/schemas/PlantTag' },
      },
      description: prose(
        'The whole plant but its id (the path gives it): the plant becomes exactly this, so a member left out is',
        'removed (no `tag`: the plant has no tag). `id` (a plant keeps the id of its path), any other member,',
        'or `null` for a member (`"tag": null` too, as on create) → 400 naming it.',
      ),
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
    ...changeSchemas,
    ...batchSchemas,
  },
} as const;
