/** The `/plants/changes` path of the OpenAPI document: the change feed, as a stream and as JSON pages. */
import { CHANGE_TYPES, MAX_CHANGES_WAIT_SECONDS } from './change.js';
import {
  authErrors,
  common,
  error,
  headOf,
  ok,
  optionsOf,
  prose,
  proseString,
  wwwAuthenticate,
} from './openapi-parts.js';
import { MAX_PLANT_ID } from './plant-id.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './wire.js';

const position = { type: 'integer', minimum: 0, maximum: MAX_PLANT_ID } as const;

const changeExample = {
  seq: 42,
  type: 'plant.created',
  timestamp: '2026-11-24T10:00:00.123Z',
  data: { id: 7, name: 'Monstera deliciosa', tag: 'tropical' },
  etag: '"1"',
} as const;

const leftExample = { seq: 57, type: 'plant.left', timestamp: '2026-11-24T10:03:00.000Z', data: { id: 7 } } as const;

const listChanges = {
  tags: ['plants'],
  operationId: 'listChanges',
  summary: 'Follow the changes of the store',
  description: prose(
    'Needs scope `plants:read`. Every committed change of a plant (a create, an update that changed it, a delete,',
    'an import) has a number, increasing in commit order over the whole store: a reader that has seen a number never',
    'later meets a smaller one it has not seen. This answers the changes numbered above `since` (or `Last-Event-ID`,',
    'which wins when both are sent; neither: only changes committed after the request arrived) in number order.',
    'With `Accept: text/event-stream` the answer is a stream that stays open: `retry: 2000`, then each change as an',
    'event (`id:` its number, `event:` its type, `data:` the change as one line of JSON), and a comment line at least',
    'every `CHANGES_HEARTBEAT_MS`. It ends when the client leaves, at the start of a shutdown, within 5 s of the',
    "token's revocation or expiry, or once more than `CHANGES_MAX_BUFFER_BYTES` wait unread; resume with `Last-Event-ID`.",
    'With `Accept: application/json`, `*/*` or none: a JSON page of at most `limit` changes and a `Link` to the next;',
    '`wait` holds an empty page until a change arrives or the seconds pass (long polling). Any other `Accept` → 406.',
    'A stream or a waiting long poll counts once against the rate limit; an instance holds at most',
    '`CHANGES_MAX_STREAMS` of them (beyond: 503 with `Retry-After`). `EventSource` cannot send a bearer token:',
    'read the stream with `fetch`.',
    'With `tag`, only the changes of plants that have that tag before or after the change: a plant that enters the',
    'subset arrives as the change that brought it (`plant.created`, or `plant.updated` with the whole plant), one that',
    'leaves it (its tag changed or removed) as `plant.left` (`data` its id, no `etag`; the plant still exists), a',
    'delete of one of its plants as `plant.deleted`; every other change has the same `seq`, `timestamp` and `data`',
    'as in the whole feed. Its position keeps moving when nothing matches: a JSON page that is not full links to',
    'the newest change number the answer saw, and a stream sends `event: bookmark` (`id:` and `data: {"seq":M}`)',
    'at least every `CHANGES_HEARTBEAT_MS` while it has passed changes it did not send, so a client that resumes',
    'with `Last-Event-ID` reads none of them again and meets no 410 only because its subset was quiet.',
  ),
  security: [{ bearer: ['plants:read'] }],
  parameters: [
    {
      name: 'since',
      in: 'query',
      description: proseString(
        'The changes numbered above this one (decimal digits, no sign or leading zero). Above the newest number → 400;',
        'if a change above it is older than `CHANGES_RETENTION` → 410. 0: from the oldest change kept.',
      ),
      schema: position,
      example: 41,
    },
    {
      name: 'tag',
      in: 'query',
      description: proseString(
        'Only the changes of plants that have this tag before or after the change (exactly, code point for code',
        'point), a plant that leaves it as `plant.left`. Form-urlencoded, as for `GET /plants`.',
      ),
      schema: { $ref: '#/components/schemas/PlantTag' },
      example: 'tropical',
    },
    {
      name: 'limit',
      in: 'query',
      description: `JSON pages only: at most this many changes, decimal digits 1 … ${MAX_PAGE_LIMIT}.`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT },
    },
    {
      name: 'wait',
      in: 'query',
      description: proseString(
        `JSON pages only: when no change is there yet, wait up to this many seconds (1 … ${MAX_CHANGES_WAIT_SECONDS})`,
        'for one, then answer (an empty page when none came).',
      ),
      schema: { type: 'integer', minimum: 1, maximum: MAX_CHANGES_WAIT_SECONDS },
    },
    {
      name: 'Last-Event-ID',
      in: 'header',
      description: 'As `since`, and wins over it: what an event stream client sends when it reconnects.',
      schema: position,
    },
  ],
  responses: {
    '200': ok('The changes, as the `Accept` asked.', {
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        Link: {
          description: proseString(
            'JSON pages only, always: the next page, `since` the last change’s number (or this page’s `since` when it',
            'is empty), `tag` when one was asked, and the `limit` used. With `tag`, `since` is the last change’s number',
            'when the page is full, else the newest change number the answer saw: a page may be empty and still move.',
          ),
          schema: { type: 'string', example: '</plants/changes?since=42&limit=100>; rel="next"' },
        },
      },
      content: {
        'application/json': {
          schema: { type: 'array', items: { $ref: '#/components/schemas/Change' } },
          example: [changeExample],
        },
        'text/event-stream': {
          schema: { type: 'string' },
          examples: {
            whole: {
              summary: 'Every change',
              value: `retry: 2000\n\nid: 42\nevent: plant.created\ndata: ${JSON.stringify(changeExample)}\n\n`,
            },
            tag: {
              summary: 'The changes of one tag (`?tag=tropical`): a plant that left it, then a bookmark',
              value: `retry: 2000\n\nid: 57\nevent: plant.left\ndata: ${JSON.stringify(leftExample)}\n\nid: 64\nevent: bookmark\ndata: {"seq":64}\n\n`,
            },
          },
        },
      },
    }),
    '400': error(
      400,
      prose(
        'Invalid `since`, `Last-Event-ID`, `tag`, `limit` or `wait`, a number above the newest change’s, an unknown or',
        'repeated parameter, or a malformed bearer credential (`error="invalid_request"`).',
      ),
      'since: 57 is above the newest change number, 42',
      wwwAuthenticate,
    ),
    ...authErrors,
    '406': error(
      406,
      'The `Accept` names neither `application/json` nor `text/event-stream`.',
      'GET /plants/changes answers application/json or text/event-stream',
    ),
    '410': error(
      410,
      prose(
        'A change numbered above `since` (of any tag) is older than `CHANGES_RETENTION`: the changes from there have',
        'expired. Read the plants again, then follow from the `X-Change-Seq` of the first page. With `tag`, also',
        'when `since` is older than what the log knows of the tags changes took plants away from.',
      ),
      'the changes after 41 have expired (CHANGES_RETENTION): read the plants again, then follow from the X-Change-Seq of the first page',
    ),
    ...common,
  },
} as const;

export const changesPath = {
  get: listChanges,
  head: headOf(listChanges, 'headChanges'),
  options: optionsOf('GET, HEAD, OPTIONS', 'optionsChanges', 'plants'),
} as const;

/** The change, as a JSON page holds it and an event's `data` carries it. */
export const changeSchemas = {
  Change: {
    type: 'object',
    required: ['seq', 'type', 'timestamp', 'data'],
    properties: {
      seq: { type: 'integer', minimum: 1, maximum: MAX_PLANT_ID, description: 'The change number.' },
      type: {
        type: 'string',
        enum: CHANGE_TYPES,
        description: '`plant.left` only in a feed of one tag (`tag`): the plant left the subset, it was not deleted.',
      },
      timestamp: {
        type: 'string',
        description: 'The commit time, RFC 3339 in UTC with milliseconds.',
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$',
      },
      data: {
        description: 'The plant after the change; for a delete or a `plant.left`, only its id.',
        anyOf: [
          { $ref: '#/components/schemas/Plant' },
          { type: 'object', required: ['id'], properties: { id: { $ref: '#/components/schemas/PlantId' } } },
        ],
      },
      etag: {
        type: 'string',
        pattern: '^"[0-9a-z]{1,11}"$',
        description: 'The plant’s ETag after the change; absent for a delete and a `plant.left`.',
      },
    },
    description: prose(
      'The same change has the same bytes wherever and whenever it is read, in the whole feed and in a feed of',
      'one tag; `plant.left` exists only in the latter.',
    ),
    example: changeExample,
  },
} as const;
