/**
 * The `webhooks` part of the OpenAPI document (docs/reference/webhooks.md): one `post` per
 * event type, the payload schemas and the Standard Webhooks headers. createOpenApiDocument in
 * openapi.ts puts these in place.
 */
import { prose, proseString } from './openapi-parts.js';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_ID_PATTERN,
  WEBHOOK_TIMESTAMP_PATTERN,
  type WebhookEventType,
} from './webhook-event.js';

/** Base64 of 32 bytes (an HMAC-SHA256), standard alphabet, padded. */
const signature = '[A-Za-z0-9+/]{43}=';

/**
 * A worked example a receiver can check its verification against: this secret, the
 * `plant.created` example body serialised as the server does (compact, members in order), this
 * id and this timestamp give this signature.
 */
export const WEBHOOK_SIGNATURE_EXAMPLE = {
  secret: 'whsec_cGxhbnQtc3RvcmU6IGV4YW1wbGUgc2VjcmV0LCAzMkI=',
  id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  timestamp: '1795514401',
  body: '{"type":"plant.created","timestamp":"2026-11-24T10:00:00.123Z","data":{"id":42,"name":"Ficus lyrata","tag":"indoor"}}',
  signature: 'v1,4ExwZGQOlaerndCaoVd8GTBDRL4Jzuk7520o7JWunYM=',
} as const;

export const webhookTag = {
  name: 'webhooks',
  description: prose(
    'Requests this server sends to the endpoints the operator registered',
    '(`plant-store-webhooks add --url <url> [--event <type>]…`), one event type each,',
    'signed as Standard Webhooks v1 describes. Delivery is at least once: duplicates happen (a crash,',
    'a timeout the receiver did process, a replay), so drop them by `webhook-id`.',
    'No order is guaranteed, not even for one plant at one endpoint (a retry can put `plant.deleted` before',
    '`plant.created`): to know the current state, `GET` the plant.',
    'Differences from Standard Webhooks: an endpoint is disabled only by a 410 (never after long failure),',
    '`Retry-After` is honoured on 429 and 503 only, and retries span about 28 hours.',
  ),
} as const;

export const webhookParameters = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: prose(
      "The event's id: `msg_` and 1–64 characters from `A–Z a–z 0–9`.",
      'Never reused; the same on every attempt of the event, at every endpoint, and on replays,',
      'so it is the key to drop duplicates by.',
    ),
    schema: { type: 'string', pattern: WEBHOOK_ID_PATTERN },
    example: WEBHOOK_SIGNATURE_EXAMPLE.id,
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: prose(
      'When this attempt was sent, in integer Unix seconds.',
      'Every attempt has its own, and its own signature, so a receiver can refuse messages more than 5 minutes from',
      'its clock (replayed captures) and still accept late retries and replays.',
    ),
    schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' },
    example: WEBHOOK_SIGNATURE_EXAMPLE.timestamp,
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: prose(
      'Standard Webhooks v1: a space-separated list of `v1,<signature>`,',
      'where `<signature>` is the base64 (standard alphabet, padded) of the HMAC-SHA256 of',
      '`<webhook-id>.<webhook-timestamp>.<body>` — the body exactly as received, byte for byte —',
      `keyed with the endpoint's secret decoded: the secret is \`whsec_\` followed by the base64 of 32 random bytes,`,
      'and the key is those bytes. Computed for each attempt.',
      `Usually one signature; for 24 hours after \`rotate-secret\` two, the new secret's first and the previous one's`,
      `second (in the first 5 seconds an attempt may still carry only the previous one's); never more than two.`,
      'Accept the message when any `v1` signature equals one computed with a secret you hold (compare in constant',
      `time); ignore other versions. Example: with the secret \`${WEBHOOK_SIGNATURE_EXAMPLE.secret}\`,`,
      `\`webhook-id: ${WEBHOOK_SIGNATURE_EXAMPLE.id}\`, \`webhook-timestamp: ${WEBHOOK_SIGNATURE_EXAMPLE.timestamp}\``,
      `and the body \`${WEBHOOK_SIGNATURE_EXAMPLE.body}\` the signature is \`${WEBHOOK_SIGNATURE_EXAMPLE.signature}\`.`,
    ),
    schema: { type: 'string', pattern: `^v1,${signature}( v1,${signature})?$` },
    example: WEBHOOK_SIGNATURE_EXAMPLE.signature,
  },
  WebhookUserAgent: {
    name: 'User-Agent',
    in: 'header',
    required: true,
    description: '`plant-store-webhooks/<version>`, the version of the server that sent the attempt.',
    schema: { type: 'string', pattern: '^plant-store-webhooks/' },
    example: 'plant-store-webhooks/1.0.0',
  },
} as const;

const payloadTimestamp = { $ref: '#/components/schemas/WebhookTimestamp' } as const;

interface EventDoc<K extends WebhookEventType> {
  readonly schema: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly example: { readonly type: K; readonly timestamp: string; readonly data: object };
}

/** One entry per event type: the compiler refuses a type of WEBHOOK_EVENT_TYPES left out here. */
const eventDocs = {
  'plant.created': {
    schema: 'PlantCreatedEvent',
    operationId: 'plantCreatedWebhook',
    summary: 'A plant was created',
    description: prose(
      'Sent after a `POST /plants` that created a plant (a 201 that was not an idempotent replay) has committed.',
      '`data` is the plant as committed.',
    ),
    example: {
      type: 'plant.created',
      timestamp: '2026-11-24T10:00:00.123Z',
      data: { id: 42, name: 'Ficus lyrata', tag: 'indoor' },
    },
  },
  'plant.updated': {
    schema: 'PlantUpdatedEvent',
    operationId: 'plantUpdatedWebhook',
    summary: 'A plant was changed',
    description: prose(
      'Sent after a `PATCH /plants/{id}` that changed the plant (a 200 whose patch set at least one value the plant',
      'did not have) has committed. `data` is the plant after the change.',
    ),
    example: {
      type: 'plant.updated',
      timestamp: '2026-11-24T10:02:00.000Z',
      data: { id: 42, name: 'Ficus lyrata', tag: 'living room' },
    },
  },
  'plant.deleted': {
    schema: 'PlantDeletedEvent',
    operationId: 'plantDeletedWebhook',
    summary: 'A plant was deleted',
    description: prose(
      'Sent after a `DELETE /plants/{id}` that answered 204 has committed.',
      '`data` holds only the id of the plant that is gone.',
    ),
    example: { type: 'plant.deleted', timestamp: '2026-11-24T10:05:00.000Z', data: { id: 42 } },
  },
} as const satisfies { readonly [K in WebhookEventType]: EventDoc<K> };

export const webhookSchemas = {
  WebhookTimestamp: {
    type: 'string',
    pattern: WEBHOOK_TIMESTAMP_PATTERN,
    description: prose(
      'The commit time of the change: RFC 3339 in UTC with exactly three fractional digits and `Z`,',
      "as JavaScript's `Date#toISOString` writes it.",
    ),
    example: '2026-11-24T10:00:00.123Z',
  },
  PlantCreatedEvent: {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { type: 'string', const: 'plant.created' },
      timestamp: payloadTimestamp,
      data: { $ref: '#/components/schemas/Plant' },
    },
    description: prose(
      'The payload of `plant.created`: the plant as committed (an absent tag is omitted).',
      'A newer server may add members; ignore those you do not know.',
    ),
  },
  PlantUpdatedEvent: {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { type: 'string', const: 'plant.updated' },
      timestamp: payloadTimestamp,
      data: { $ref: '#/components/schemas/Plant' },
    },
    description: prose(
      'The payload of `plant.updated`: the plant after the change (an absent tag is omitted).',
      'A newer server may add members; ignore those you do not know.',
    ),
  },
  PlantDeletedEvent: {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { type: 'string', const: 'plant.deleted' },
      timestamp: payloadTimestamp,
      data: {
        type: 'object',
        required: ['id'],
        properties: { id: { $ref: '#/components/schemas/PlantId' } },
      },
    },
    description: prose(
      'The payload of `plant.deleted`: the id of the plant that is gone.',
      'A newer server may add members; ignore those you do not know.',
    ),
  },
  WebhookEvent: {
    oneOf: WEBHOOK_EVENT_TYPES.map((type) => ({ $ref: `#/components/schemas/${eventDocs[type].schema}` })),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(
        WEBHOOK_EVENT_TYPES.map((type) => [type, `#/components/schemas/${eventDocs[type].schema}`]),
      ),
    },
    description: 'Any webhook payload, told apart by `type`.',
  },
} as const;

const parameterRef = (name: keyof typeof webhookParameters) => ({ $ref: `#/components/parameters/${name}` }) as const;

const webhookOf = <K extends WebhookEventType>(type: K, doc: EventDoc<K>) => ({
  post: {
    tags: ['webhooks'],
    operationId: doc.operationId,
    summary: doc.summary,
    description: proseString(
      `${doc.description} One delivery per endpoint enabled and subscribed to \`${type}\` when the change commits;`,
      'endpoints added later get no earlier events. The body is UTF-8 JSON of at most 16 KiB,',
      'serialised once at the commit — compact, members in the order `type`, `timestamp`, `data` —',
      'and sent byte for byte on every attempt, to every endpoint, and on replays.',
      'Verify the signature over the raw body before parsing it.',
    ),
    security: [],
    parameters: [
      parameterRef('WebhookId'),
      parameterRef('WebhookTimestamp'),
      parameterRef('WebhookSignature'),
      parameterRef('WebhookUserAgent'),
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { $ref: `#/components/schemas/${doc.schema}` },
          example: doc.example,
        },
      },
    },
    responses: {
      '2XX': {
        description: proseString(
          'Delivered: any 2xx whose status line and headers arrive within `WEBHOOK_TIMEOUT_MS` (default 15 s,',
          'counted from the start of DNS and connect). The response body is read up to 64 KiB and ignored.',
        ),
      },
      '410': {
        description: proseString(
          'Gone: disables the endpoint.',
          'This delivery and every pending one of the endpoint become `failed` (reason: disabled),',
          'and no deliveries are created for it until the operator runs `plant-store-webhooks enable <id>`.',
        ),
      },
      default: {
        description: proseString(
          'Anything else is a failed attempt and is retried: a 1xx or 3xx (redirects are not followed),',
          'a 4xx other than 410, a 5xx, no answer in time, a connection or TLS error.',
          'After the n-th failed attempt the next comes after 5 s, 5 min, 30 min, 2 h, 5 h,',
          '10 h and 10 h (each times a random factor in [0.8, 1.2]; the operator may set another schedule):',
          '8 attempts over about 28 hours, then the delivery is `failed` until replayed.',
          "A `Retry-After` on a 429 or 503 replaces that step's delay when it is longer (capped at 24 hours).",
        ),
        headers: {
          'Retry-After': {
            description: proseString(
              'On a 429 or 503 only: delay-seconds or an HTTP-date,',
              'honoured up to 24 hours when longer than the scheduled delay.',
            ),
            schema: { type: 'string' },
          },
        },
      },
    },
  },
});

/** The document's `webhooks`: the key is the event type. */
export const webhooks = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type) => [type, webhookOf(type, eventDocs[type])]),
) as {
  readonly [K in WebhookEventType]: ReturnType<typeof webhookOf<K>>;
};
