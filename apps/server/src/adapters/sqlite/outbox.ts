import { randomUUID } from 'node:crypto';
import { Plant, type PlantId } from '@plant-store/domain';
import type BetterSqlite3 from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import type { EventType } from '../../ports/webhook-store.js';
import type { SavedTraceContext, WriteTrace } from '../../tracing/tracing.js';
import { endpointsFromRows, newEventId } from '../webhook-rows.js';

interface Subscriber {
  readonly id: string;
  /** null: every type. */
  readonly events: ReadonlySet<string> | null;
}

/**
 * The transactional outbox on SQLite: inside a group-commit transaction, a committed change writes
 * its event as one `webhook_deliveries` row per enabled endpoint subscribed to its type (the
 * payload serialised once, here, and stored with each). No subscriber: nothing is written, so a
 * store without endpoints pays one read of its (empty) endpoints per batch and nothing per write.
 *
 * The endpoints are read inside each transaction, at its first change, so they are exactly those
 * committed before it, whoever committed them (the webhooks CLI too); again within the batch
 * after this connection changed them (`invalidate`). Keeping them from one batch to the next
 * while no other connection committed gained nothing measurable (creates with one endpoint
 * 1.02×, without 0.99×; docs/explanation/performance.md).
 */
export class SqliteOutbox {
  private readonly enabledEndpoints: BetterSqlite3.Statement<[]>;
  private readonly insert: BetterSqlite3.Statement<OutboxRow>;
  private subscribers: readonly Subscriber[] | undefined;

  constructor(db: BetterSqlite3.Database) {
    this.enabledEndpoints = db.prepare(
      'SELECT id, url, events, enabled, disabled_reason, created_at, rotated_at FROM webhook_endpoints WHERE enabled = 1',
    );
    this.insert = db.prepare(
      `INSERT INTO webhook_deliveries (event_id, event_type, body, endpoint_id, status, next_attempt_at, created_at,
                                       trace_parent, trace_state)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?)`,
    );
  }

  /** Our own change to the endpoints: read them again in the next transaction. */
  invalidate(): void {
    this.subscribers = undefined;
  }

  /** Call inside each transaction, before its first write. */
  open(now: number): OutboxBatch {
    this.subscribers = undefined;
    return new OutboxBatch(() => this.current(), this.insert, now);
  }

  /** The enabled endpoints as of now, inside the transaction (read again after invalidate). */
  private current(): readonly Subscriber[] {
    if (this.subscribers === undefined) {
      const endpoints = endpointsFromRows(this.enabledEndpoints.all());
      if (E.isLeft(endpoints)) throw endpoints.left.cause;
      this.subscribers = endpoints.right.map((e) => ({
        id: e.id,
        events: e.events === null ? null : new Set(e.events),
      }));
    }
    return this.subscribers;
  }
}

/** A plant as an event's `data`: its encoding through Plant, members in the wire order (see webhookEventBody). */
export const eventData = (plant: Plant): object => Plant.encode(plant);

type OutboxRow = [string, string, string, string, number, number, string | null, string | null];

/** One transaction's events. `wrote`: it wrote at least one delivery (wake the dispatcher after commit). */
export class OutboxBatch {
  wrote = false;
  /** The trace of the write being applied (tracing on), saved with its events. */
  trace: WriteTrace | undefined;
  private readonly timestamp: string;

  constructor(
    private readonly subscribers: () => readonly Subscriber[],
    private readonly insert: BetterSqlite3.Statement<OutboxRow>,
    private readonly now: number,
  ) {
    this.timestamp = new Date(now).toISOString();
  }

  created(plant: Plant): void {
    this.emit('plant.created', eventData(plant));
  }

  updated(plant: Plant): void {
    this.emit('plant.updated', eventData(plant));
  }

  deleted(id: PlantId): void {
    this.emit('plant.deleted', { id });
  }

  private emit(type: EventType, data: object): void {
    // Read per change, not per batch: an endpoint this batch disabled (a 410) gets nothing more.
    const subscribers = this.subscribers();
    if (subscribers.length === 0) return;
    let body: string | undefined;
    let eventId = '';
    let trace: SavedTraceContext | undefined;
    for (const subscriber of subscribers) {
      if (subscriber.events !== null && !subscriber.events.has(type)) continue;
      if (body === undefined) {
        body = JSON.stringify({ type, timestamp: this.timestamp, data });
        eventId = newEventId(randomUUID());
      }
      trace ??= this.trace?.saved();
      this.insert.run(
        eventId,
        type,
        body,
        subscriber.id,
        this.now,
        this.now,
        trace?.traceparent ?? null,
        trace?.tracestate ?? null,
      );
      this.wrote = true;
    }
  }
}
