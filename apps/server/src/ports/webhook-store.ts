import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@plant-store/domain';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { SavedTraceContext } from '../tracing/tracing.js';
import type { StoreError } from './plant-store.js';

/**
 * The event types a change can emit (the domain's list, docs/reference/webhooks.md). An endpoint
 * subscribed to `null` receives every type, including types added later.
 */
export const EVENT_TYPES = WEBHOOK_EVENT_TYPES;
export type EventType = WebhookEventType;
export const isEventType = (s: string): s is EventType => (EVENT_TYPES as readonly string[]).includes(s);

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const isDeliveryStatus = (s: string): s is DeliveryStatus =>
  (DELIVERY_STATUSES as readonly string[]).includes(s);

/** How long the previous secret still signs after a rotation. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

/** A registered receiver of events. The secret is never part of a record. */
export interface EndpointRecord {
  /** `we_…`, safe to print and log. */
  readonly id: string;
  readonly url: string;
  /** The types it receives; null: every type. */
  readonly events: readonly EventType[] | null;
  readonly enabled: boolean;
  /** Why it was disabled (a 410), when it is. */
  readonly disabledReason: string | null;
  readonly createdAt: Date;
  /** When the secret was last rotated, if ever. */
  readonly rotatedAt: Date | null;
}

export interface NewEndpoint {
  readonly id: string;
  readonly url: string;
  readonly events: readonly EventType[] | null;
  /** `whsec_…` (see webhooks/signature.ts). */
  readonly secret: string;
}

/** One event to one endpoint, as the CLI shows it. */
export interface DeliveryRecord {
  readonly id: number;
  /** The event's `webhook-id`, `msg_…`. */
  readonly eventId: string;
  readonly eventType: string;
  readonly endpointId: string;
  readonly status: DeliveryStatus;
  /** Attempts since the delivery was created or last replayed. */
  readonly attempts: number;
  /** Pending: when the next attempt is due (or, while an instance holds it, when its hold ends). */
  readonly nextAttemptAt: Date | null;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly endedAt: Date | null;
}

/** A delivery an instance now holds, with what it takes to send it. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly eventId: string;
  /** The payload, byte for byte as committed. */
  readonly body: string;
  readonly endpointId: string;
  readonly url: string;
  /** The current secret, then the previous one while it still signs. */
  readonly secrets: readonly string[];
  /** Failed attempts so far (since creation or the last replay). */
  readonly attempts: number;
  /** The trace of the request whose change emitted the event, when it was traced: each attempt continues it. */
  readonly traceContext?: SavedTraceContext;
}

/** What became of one attempt, as the dispatcher decided it. */
export interface AttemptRecord {
  readonly deliveryId: number;
  /**
   * `delivered`; `retry` after `retryInMs`; `failed` (the schedule is spent, final until replayed);
   * `gone`: the receiver answered 410, which disables the endpoint and fails its pending deliveries.
   */
  readonly outcome: 'delivered' | 'retry' | 'failed' | 'gone';
  readonly retryInMs?: number;
  readonly status?: number;
  readonly error?: string;
  readonly startedAt: Date;
  readonly durationMs: number;
}

export type ReplayOutcome =
  | { readonly _tag: 'Replayed' }
  /** Already pending: nothing to do. */
  | { readonly _tag: 'AlreadyPending' }
  | { readonly _tag: 'DeliveryNotFound' }
  | { readonly _tag: 'EndpointDisabled'; readonly endpointId: string };

export interface DeliveryFilter {
  readonly deliveryId?: number;
  readonly endpointId?: string;
  readonly status?: DeliveryStatus;
  readonly limit: number;
}

export interface OutboxBacklog {
  /** Pending deliveries, those waiting for a retry and those held by an instance included. */
  readonly pending: number;
  /** Seconds since the oldest pending delivery was created; 0 when none is pending. */
  readonly oldestAgeSeconds: number;
}

/**
 * Endpoints, and the outbox the plant writes fill: a committed create or delete writes its event
 * and one delivery per enabled, subscribed endpoint in its own transaction (PlantStore). This port
 * is everything else: the operator's CLI and the dispatcher. Like PlantStore, it never rejects.
 *
 * Sharing: every instance (and process) on one store claims due deliveries with a lease — a
 * claimed delivery is due again only after `leaseMs`, so a crashed holder's deliveries are taken
 * over once the lease ends; an attempt is recorded only by the instance holding it.
 */
export interface WebhookStore {
  addEndpoint(endpoint: NewEndpoint): TaskEither<StoreError, EndpointRecord>;
  listEndpoints(): TaskEither<StoreError, readonly EndpointRecord[]>;
  /** Removes it and every delivery of it (pending ones are dropped); false when unknown. */
  removeEndpoint(id: string): TaskEither<StoreError, boolean>;
  /** Enables a disabled endpoint; false when unknown. */
  enableEndpoint(id: string): TaskEither<StoreError, boolean>;
  /** The new secret signs first; the old one keeps signing second for 24 h. False when unknown. */
  rotateSecret(id: string, secret: string): TaskEither<StoreError, boolean>;
  /** Newest first. */
  listDeliveries(filter: DeliveryFilter): TaskEither<StoreError, readonly DeliveryRecord[]>;
  /** A failed or delivered delivery pending again now, with a fresh schedule. */
  replay(deliveryId: number): TaskEither<StoreError, ReplayOutcome>;
  /** Every failed delivery (of one endpoint) pending again, in event order; how many. Disabled endpoints' are left. */
  replayFailed(endpointId?: string): TaskEither<StoreError, number>;

  /** Holds up to `limit` due deliveries for `holder` for `leaseMs`, oldest due first. */
  claimDue(holder: string, limit: number, leaseMs: number): TaskEither<StoreError, readonly ClaimedDelivery[]>;
  /** Records attempts of deliveries `holder` holds (others' are ignored: their lease was lost). */
  recordAttempts(holder: string, attempts: readonly AttemptRecord[]): TaskEither<StoreError, void>;
  /** Hands held deliveries back, due now (graceful shutdown). */
  release(holder: string, deliveryIds: readonly number[]): TaskEither<StoreError, void>;
  backlog(): TaskEither<StoreError, OutboxBacklog>;
  /**
   * One step of forgetting deliveries (and their attempts) that ended more than `retentionMs`
   * ago: looks at about `limit` deliveries; `more` as for idempotency keys.
   */
  purgeEnded(
    retentionMs: number,
    limit: number,
  ): TaskEither<StoreError, { readonly forgotten: number; readonly more: boolean }>;
}
