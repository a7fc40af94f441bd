import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { StoreUnavailable } from '../ports/plant-store.js';
import {
  isDeliveryStatus,
  isEventType,
  PREVIOUS_SECRET_MS,
  type ClaimedDelivery,
  type DeliveryRecord,
  type DeliveryStatus,
  type EndpointRecord,
  type EventType,
} from '../ports/webhook-store.js';
import { decodeEach, rowProblem } from './store-rows.js';

/**
 * Rows of the webhook tables, as both adapters select them: times as epoch milliseconds (numbers;
 * PostgreSQL converts in its SELECT), ids as numbers, event lists as space-separated text.
 */

const Millis = t.number;
const OptionalMillis = t.union([t.number, t.null]);
const OptionalText = t.union([t.string, t.null]);

/** Space-separated event types; NULL (every type) stays null. */
const EventList = new t.Type<readonly EventType[] | null, string | null, unknown>(
  'EventList',
  (u): u is readonly EventType[] | null =>
    u === null || (Array.isArray(u) && u.every((s) => typeof s === 'string' && isEventType(s))),
  (u, c) => {
    if (u === null) return t.success(null);
    if (typeof u !== 'string') return t.failure(u, c, 'expected the event types as text');
    const types = u.split(' ').filter((s) => s !== '');
    return types.every(isEventType) ? t.success(types) : t.failure(u, c, `unknown event type in "${u}"`);
  },
  (types) => (types === null ? null : types.join(' ')),
);

const Status = new t.Type<DeliveryStatus, string, unknown>(
  'DeliveryStatus',
  (u): u is DeliveryStatus => typeof u === 'string' && isDeliveryStatus(u),
  (u, c) =>
    typeof u === 'string' && isDeliveryStatus(u)
      ? t.success(u)
      : t.failure(u, c, 'expected pending, delivered or failed'),
  (s) => s,
);

const EndpointRow = t.type(
  {
    id: t.string,
    url: t.string,
    events: EventList,
    enabled: t.union([t.boolean, t.number]),
    disabled_reason: OptionalText,
    created_at: Millis,
    rotated_at: OptionalMillis,
  },
  'EndpointRow',
);

export const endpointFromRow = (row: unknown): E.Either<StoreUnavailable, EndpointRecord> => {
  const decoded = EndpointRow.decode(row);
  if (E.isLeft(decoded)) return E.left(rowProblem('webhook_endpoints', decoded.left));
  const r = decoded.right;
  return E.right({
    id: r.id,
    url: r.url,
    events: r.events,
    enabled: r.enabled === true || r.enabled === 1,
    disabledReason: r.disabled_reason,
    createdAt: new Date(r.created_at),
    rotatedAt: r.rotated_at === null ? null : new Date(r.rotated_at),
  });
};
export const endpointsFromRows = decodeEach(endpointFromRow);

const DeliveryRow = t.type(
  {
    id: t.number,
    event_id: t.string,
    event_type: t.string,
    endpoint_id: t.string,
    status: Status,
    attempts: t.number,
    next_attempt_at: Millis,
    last_status: t.union([t.number, t.null]),
    last_error: OptionalText,
    created_at: Millis,
    ended_at: OptionalMillis,
  },
  'DeliveryRow',
);

export const deliveryFromRow = (row: unknown): E.Either<StoreUnavailable, DeliveryRecord> => {
  const decoded = DeliveryRow.decode(row);
  if (E.isLeft(decoded)) return E.left(rowProblem('webhook_deliveries', decoded.left));
  const r = decoded.right;
  return E.right({
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    endpointId: r.endpoint_id,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === 'pending' ? new Date(r.next_attempt_at) : null,
    lastStatus: r.last_status,
    lastError: r.last_error,
    createdAt: new Date(r.created_at),
    endedAt: r.ended_at === null ? null : new Date(r.ended_at),
  });
};
export const deliveriesFromRows = decodeEach(deliveryFromRow);

/** The columns a claim returns: the delivery joined with its endpoint's URL and secrets. */
const ClaimRow = t.type(
  {
    id: t.number,
    event_id: t.string,
    body: t.string,
    endpoint_id: t.string,
    attempts: t.number,
    url: t.string,
    secret: t.string,
    previous_secret: OptionalText,
    rotated_at: OptionalMillis,
    trace_parent: OptionalText,
    trace_state: OptionalText,
  },
  'ClaimRow',
);

/** A claimed delivery; the previous secret signs too while the rotation is younger than 24 h at `now`. */
export const claimFromRow =
  (now: number) =>
  (row: unknown): E.Either<StoreUnavailable, ClaimedDelivery> => {
    const decoded = ClaimRow.decode(row);
    if (E.isLeft(decoded)) return E.left(rowProblem('webhook_deliveries', decoded.left));
    const r = decoded.right;
    const previousSigns =
      r.previous_secret !== null && r.rotated_at !== null && now - r.rotated_at < PREVIOUS_SECRET_MS;
    return E.right({
      id: r.id,
      eventId: r.event_id,
      body: r.body,
      endpointId: r.endpoint_id,
      url: r.url,
      secrets: previousSigns && r.previous_secret !== null ? [r.secret, r.previous_secret] : [r.secret],
      attempts: r.attempts,
      ...(r.trace_parent === null
        ? {}
        : {
            traceContext:
              r.trace_state === null
                ? { traceparent: r.trace_parent }
                : { traceparent: r.trace_parent, tracestate: r.trace_state },
          }),
    });
  };

const BacklogRow = t.type({ pending: t.number, oldest: OptionalMillis }, 'BacklogRow');

export const backlogFromRow =
  (now: number) =>
  (row: unknown): E.Either<StoreUnavailable, { pending: number; oldestAgeSeconds: number }> => {
    const decoded = BacklogRow.decode(row);
    if (E.isLeft(decoded)) return E.left(rowProblem('webhook_deliveries', decoded.left));
    const { pending, oldest } = decoded.right;
    return E.right({
      pending,
      oldestAgeSeconds: oldest === null || pending === 0 ? 0 : Math.max(0, (now - oldest) / 1000),
    });
  };

/** An event's `webhook-id`: `msg_` and 32 hex digits of a random UUID (never reused). */
export const newEventId = (uuid: string): string => `msg_${uuid.replaceAll('-', '')}`;
