import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describeValue } from './describe-value.js';
import { Plant } from './plant.js';
import { PlantId } from './plant-id.js';
import { isObject, struct } from './struct.js';

/**
 * Every event type the server sends (docs/reference/webhooks.md). Adding one is one line
 * here; the compiler then asks for its codec in `eventCodecs` below and for its entry in the
 * OpenAPI document's `webhooks`.
 */
export const WEBHOOK_EVENT_TYPES = ['plant.created', 'plant.updated', 'plant.deleted'] as const;

const eventTypeList = WEBHOOK_EVENT_TYPES.join(', ');
const isEventType = (u: unknown): u is (typeof WEBHOOK_EVENT_TYPES)[number] =>
  typeof u === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(u);

/** One of `WEBHOOK_EVENT_TYPES`. */
export const WebhookEventType = new t.Type<(typeof WEBHOOK_EVENT_TYPES)[number], string, unknown>(
  'WebhookEventType',
  isEventType,
  (u, c) =>
    isEventType(u) ? t.success(u) : t.failure(u, c, `expected one of ${eventTypeList}, got ${describeValue(u)}`),
  (type) => type,
);
export type WebhookEventType = t.TypeOf<typeof WebhookEventType>;

/** `msg_` and 1–64 of `[A-Za-z0-9]`: the `webhook-id` header, one per event. */
export const WEBHOOK_ID_PATTERN = '^msg_[A-Za-z0-9]{1,64}$';
const idPattern = new RegExp(WEBHOOK_ID_PATTERN);

export interface WebhookIdBrand {
  readonly WebhookId: unique symbol;
}

const isWebhookId = (u: unknown): u is t.Branded<string, WebhookIdBrand> => typeof u === 'string' && idPattern.test(u);

/** An event's id, as the `webhook-id` header carries it: `msg_` + 1–64 of `A–Z a–z 0–9`. */
export const WebhookId = new t.Type<t.Branded<string, WebhookIdBrand>, string, unknown>(
  'WebhookId',
  isWebhookId,
  (u, c) =>
    isWebhookId(u)
      ? t.success(u)
      : t.failure(u, c, `expected msg_ and 1–64 characters from A–Z a–z 0–9, got ${describeValue(u)}`),
  (id) => id,
);
export type WebhookId = t.TypeOf<typeof WebhookId>;

/** RFC 3339 in UTC with exactly three fractional digits and `Z`, as `Date#toISOString` writes it. */
export const WEBHOOK_TIMESTAMP_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$';
const timestampPattern = new RegExp(WEBHOOK_TIMESTAMP_PATTERN);

export interface WebhookTimestampBrand {
  readonly WebhookTimestamp: unique symbol;
}

/** The pattern, and a real instant: `2026-02-30…`, hour 24 or second 60 are refused (no round trip). */
const isWebhookTimestamp = (u: unknown): u is t.Branded<string, WebhookTimestampBrand> => {
  if (typeof u !== 'string' || !timestampPattern.test(u)) return false;
  const date = new Date(u);
  return !Number.isNaN(date.getTime()) && date.toISOString() === u;
};

/** An event's commit time, e.g. `2026-11-24T10:00:00.123Z` (UTC, milliseconds, `Z`). */
export const WebhookTimestamp = new t.Type<t.Branded<string, WebhookTimestampBrand>, string, unknown>(
  'WebhookTimestamp',
  isWebhookTimestamp,
  (u, c) =>
    isWebhookTimestamp(u)
      ? t.success(u)
      : t.failure(
          u,
          c,
          `expected an RFC 3339 UTC time with milliseconds such as 2026-11-24T10:00:00.123Z, got ${describeValue(u)}`,
        ),
  (timestamp) => timestamp,
);
export type WebhookTimestamp = t.TypeOf<typeof WebhookTimestamp>;

/*
 * Payloads are read back by receivers, so unknown members are dropped ('strip'): a newer server
 * may add some. Member order in each struct is the order on the wire (see webhookEventBody).
 */

/** `plant.created`: `data` is the plant as committed, `{id, name, tag?}`. */
export const PlantCreatedEvent = struct(
  'PlantCreatedEvent',
  { type: t.literal('plant.created'), timestamp: WebhookTimestamp, data: Plant },
  {},
  'strip',
);
export type PlantCreatedEvent = t.TypeOf<typeof PlantCreatedEvent>;

/** `plant.updated`: `data` is the plant after the change, `{id, name, tag?}` (sent only when something changed). */
export const PlantUpdatedEvent = struct(
  'PlantUpdatedEvent',
  { type: t.literal('plant.updated'), timestamp: WebhookTimestamp, data: Plant },
  {},
  'strip',
);
export type PlantUpdatedEvent = t.TypeOf<typeof PlantUpdatedEvent>;

/** `plant.deleted`: `data` is `{id}` of the plant that is gone. */
export const PlantDeletedEvent = struct(
  'PlantDeletedEvent',
  {
    type: t.literal('plant.deleted'),
    timestamp: WebhookTimestamp,
    data: struct('DeletedPlant', { id: PlantId }, {}, 'strip'),
  },
  {},
  'strip',
);
export type PlantDeletedEvent = t.TypeOf<typeof PlantDeletedEvent>;

/** One codec per event type; `satisfies` makes a type without its codec (or a wrong one) a compile error. */
const eventCodecs = {
  'plant.created': PlantCreatedEvent,
  'plant.updated': PlantUpdatedEvent,
  'plant.deleted': PlantDeletedEvent,
} as const satisfies { readonly [K in WebhookEventType]: t.Decoder<unknown, { readonly type: K }> };

type EventCodec = (typeof eventCodecs)[WebhookEventType];

/**
 * Any webhook payload, `{type, timestamp, data}`, told apart by `type`: an unknown type fails as
 * `type: expected one of …` rather than with one complaint per event type.
 */
export const WebhookEvent: t.Type<t.TypeOf<EventCodec>, t.OutputOf<EventCodec>, unknown> = new t.Type<
  t.TypeOf<EventCodec>,
  t.OutputOf<EventCodec>,
  unknown
>(
  'WebhookEvent',
  (u): u is t.TypeOf<EventCodec> => isObject(u) && isEventType(u['type']) && eventCodecs[u['type']].is(u),
  (u, c) => {
    if (!isObject(u)) return t.failure(u, c, `expected a JSON object, got ${describeValue(u)}`);
    const type = WebhookEventType.validate(u['type'], t.appendContext(c, 'type', WebhookEventType, u['type']));
    if (E.isLeft(type)) return type;
    return (eventCodecs[type.right] as t.Type<t.TypeOf<EventCodec>, t.OutputOf<EventCodec>, unknown>).validate(u, c);
  },
  (event) => (eventCodecs[event.type] as t.Type<t.TypeOf<EventCodec>, t.OutputOf<EventCodec>, unknown>).encode(event),
);
export type WebhookEvent = t.TypeOf<typeof WebhookEvent>;

/**
 * The body the server sends for `event`, byte for byte once UTF-8 encoded: compact JSON with the
 * members in the order `type`, `timestamp`, `data`, and in `data` the order `id`, `name`, `tag`
 * (`tag` omitted when absent). Members the codecs do not know are left out.
 */
export const webhookEventBody = (event: WebhookEvent): string => JSON.stringify(WebhookEvent.encode(event));
