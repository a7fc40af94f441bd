import type Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import type { StoreError } from '../../ports/plant-store.js';
import type { AttemptRecord, ClaimedDelivery, ReplayOutcome, WebhookStore } from '../../ports/webhook-store.js';
import { decodeEach } from '../store-rows.js';
import {
  backlogFromRow,
  claimFromRow,
  deliveriesFromRows,
  endpointFromRow,
  endpointsFromRows,
} from '../webhook-rows.js';
import { attempt } from './attempt.js';
import type { SqliteBatch } from './batch.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteOutbox } from './outbox.js';

/**
 * The dispatcher's writes need not be on disk before it goes on: a claim or a record lost to a
 * power cut only means an attempt is made again (at least once). They still wait for the commits
 * before them, so no event leaves before its plant change is durable.
 */
const QUIET = { durable: false } as const;
/** The dispatcher's and the purge's writes, never batched with a request's (see SubmitOptions). */
const BACKGROUND = { background: true } as const;
const QUIET_BACKGROUND = { ...QUIET, ...BACKGROUND } as const;

const ENDPOINT_COLUMNS = 'id, url, events, enabled, disabled_reason, created_at, rotated_at';
const DELIVERY_COLUMNS =
  'id, event_id, event_type, endpoint_id, status, attempts, next_attempt_at, last_status, last_error, created_at, ended_at';

/**
 * Endpoints and the dispatcher's side of the outbox on SQLite. Every change goes through group
 * commit, so a claim or an attempt's record shares a transaction with the plant writes of its
 * turn, and claims of several processes on one file take turns under SQLite's write lock.
 */
export const createSqliteWebhookStore = (
  db: Database.Database,
  commits: GroupCommit<SqliteBatch>,
  isClosed: () => boolean,
  outbox: SqliteOutbox,
): WebhookStore => {
  const insertEndpoint = db.prepare<[string, string, string | null, string, number]>(
    `INSERT INTO webhook_endpoints (id, url, events, secret, enabled, created_at) VALUES (?, ?, ?, ?, 1, ?)
     RETURNING ${ENDPOINT_COLUMNS}`,
  );
  const allEndpoints = db.prepare(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`);
  const removeEndpoint = db.prepare<[string]>('DELETE FROM webhook_endpoints WHERE id = ?');
  // No foreign keys (see migration 3): an endpoint's deliveries and attempts go with it here.
  const removeAttemptsOf = db.prepare<[string]>(
    'DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)',
  );
  const removeDeliveriesOf = db.prepare<[string]>('DELETE FROM webhook_deliveries WHERE endpoint_id = ?');
  const enableEndpoint = db.prepare<[string]>(
    'UPDATE webhook_endpoints SET enabled = 1, disabled_reason = NULL WHERE id = ?',
  );
  const rotate = db.prepare<[string, number, string]>(
    'UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, rotated_at = ? WHERE id = ?',
  );
  const deliveries = db.prepare<
    [number | null, number | null, string | null, string | null, string | null, string | null, number]
  >(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
      WHERE (? IS NULL OR id = ?) AND (? IS NULL OR endpoint_id = ?) AND (? IS NULL OR status = ?)
      ORDER BY id DESC LIMIT ?`,
  );
  const deliveryState = db.prepare<[number]>(
    `SELECT d.status, d.endpoint_id, e.enabled FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = ?`,
  );
  const reschedule = db.prepare<[number, number]>(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, held_by = NULL, ended_at = NULL
      WHERE id = ?`,
  );
  const rescheduleFailed = db.prepare<[number, string | null, string | null]>(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, held_by = NULL, ended_at = NULL
      WHERE status = 'failed' AND (? IS NULL OR endpoint_id = ?)
        AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled = 1)`,
  );
  // Due deliveries, oldest due first (ties in event order), held until the lease ends.
  const claim = db.prepare<[number, string, number, number]>(
    `UPDATE webhook_deliveries SET next_attempt_at = ?, held_by = ?
      WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
                    ORDER BY next_attempt_at, id LIMIT ?)
     RETURNING id, event_id, body, endpoint_id, attempts, trace_parent, trace_state`,
  );
  const endpointSecrets = db.prepare<[string]>(
    'SELECT url, secret, previous_secret, rotated_at FROM webhook_endpoints WHERE id = ?',
  );
  const settle = db.prepare<[string, number, number | null, string | null, number | null, number, string]>(
    `UPDATE webhook_deliveries
        SET status = ?, attempts = attempts + 1, total_attempts = total_attempts + 1, next_attempt_at = ?,
            held_by = NULL, last_status = ?, last_error = ?, ended_at = ?
      WHERE id = ? AND held_by = ? AND status = 'pending'
     RETURNING total_attempts, endpoint_id`,
  );
  const insertAttempt = db.prepare<[number, number, number, number, number | null, string | null]>(
    'INSERT INTO webhook_attempts (delivery_id, n, started_at, duration_ms, status, error) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const disable = db.prepare<[string, string]>(
    'UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ? WHERE id = ?',
  );
  const failPending = db.prepare<[string, number, string]>(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = ?, ended_at = ?, held_by = NULL
      WHERE endpoint_id = ? AND status = 'pending'`,
  );
  const release = db.prepare<[number, number, string]>(
    `UPDATE webhook_deliveries SET next_attempt_at = ?, held_by = NULL WHERE id = ? AND held_by = ? AND status = 'pending'`,
  );
  const backlog = db.prepare(
    `SELECT count(*) AS pending, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`,
  );
  const deliveriesAfter = db.prepare<[number, number]>(
    'SELECT id, ended_at FROM webhook_deliveries WHERE id > ? ORDER BY id LIMIT ?',
  );
  const forgetDelivery = db.prepare<[number]>('DELETE FROM webhook_deliveries WHERE id = ?');
  const forgetAttempts = db.prepare<[number]>('DELETE FROM webhook_attempts WHERE delivery_id = ?');
  let sweptTo = 0;

  const decodeClaims = (now: number) => decodeEach(claimFromRow(now));

  return {
    addEndpoint: (endpoint) => () =>
      commits.submit(() => {
        outbox.invalidate();
        return endpointFromRow(
          insertEndpoint.get(
            endpoint.id,
            endpoint.url,
            endpoint.events === null ? null : endpoint.events.join(' '),
            endpoint.secret,
            Date.now(),
          ),
        );
      }),
    listEndpoints: () => async () => attempt(isClosed, () => endpointsFromRows(allEndpoints.all())),
    removeEndpoint: (id) => () =>
      commits.submit(() => {
        outbox.invalidate();
        removeAttemptsOf.run(id);
        removeDeliveriesOf.run(id);
        return E.right(removeEndpoint.run(id).changes > 0);
      }),
    enableEndpoint: (id) => () =>
      commits.submit(() => {
        outbox.invalidate();
        return E.right(enableEndpoint.run(id).changes > 0);
      }),
    rotateSecret: (id, secret) => () => commits.submit(() => E.right(rotate.run(secret, Date.now(), id).changes > 0)),
    listDeliveries:
      ({ deliveryId, endpointId, status, limit }) =>
      async () =>
        attempt(isClosed, () =>
          deliveriesFromRows(
            deliveries.all(
              deliveryId ?? null,
              deliveryId ?? null,
              endpointId ?? null,
              endpointId ?? null,
              status ?? null,
              status ?? null,
              limit,
            ),
          ),
        ),
    replay: (deliveryId) => () =>
      commits.submit((): E.Either<StoreError, ReplayOutcome> => {
        const state = deliveryState.get(deliveryId) as
          { status: string; endpoint_id: string; enabled: number } | undefined;
        if (state === undefined) return E.right({ _tag: 'DeliveryNotFound' });
        if (state.status === 'pending') return E.right({ _tag: 'AlreadyPending' });
        if (state.enabled !== 1) return E.right({ _tag: 'EndpointDisabled', endpointId: state.endpoint_id });
        reschedule.run(Date.now(), deliveryId);
        return E.right({ _tag: 'Replayed' });
      }),
    replayFailed: (endpointId) => () =>
      commits.submit(() => E.right(rescheduleFailed.run(Date.now(), endpointId ?? null, endpointId ?? null).changes)),
    claimDue: (holder, limit, leaseMs) => () =>
      commits.submit(() => {
        const now = Date.now();
        const claimed = claim.all(now + leaseMs, holder, now, limit) as Record<string, unknown>[];
        const endpoints = new Map<string, unknown>();
        const rows = claimed.map((row) => {
          const endpointId = row.endpoint_id;
          // Not a string: no secrets to add, and decodeClaims names the column.
          if (typeof endpointId !== 'string') return row;
          if (!endpoints.has(endpointId)) endpoints.set(endpointId, endpointSecrets.get(endpointId));
          return { ...row, ...(endpoints.get(endpointId) as object) };
        });
        // RETURNING order is not the claim's order: oldest due first again.
        return E.map((list: readonly ClaimedDelivery[]) => [...list].sort((a, b) => a.id - b.id))(
          decodeClaims(now)(rows),
        );
      }, QUIET_BACKGROUND),
    recordAttempts: (holder, attempts) => () =>
      commits.submit(() => {
        const now = Date.now();
        for (const attempt of attempts) recordOne(holder, attempt, now);
        return E.right(undefined);
      }, QUIET_BACKGROUND),
    release: (holder, ids) => () =>
      commits.submit(() => {
        const now = Date.now();
        for (const id of ids) release.run(now, id, holder);
        return E.right(undefined);
      }, QUIET_BACKGROUND),
    backlog: () => async () => attempt(isClosed, () => backlogFromRow(Date.now())(backlog.get())),
    purgeEnded: (retentionMs, limit) => () =>
      commits.submit(() => {
        const cutoff = Date.now() - retentionMs;
        const rows = deliveriesAfter.all(sweptTo, limit) as { id: number; ended_at: number | null }[];
        let forgotten = 0;
        for (const row of rows) {
          if (row.ended_at === null || row.ended_at > cutoff) continue;
          forgetAttempts.run(row.id);
          forgotten += forgetDelivery.run(row.id).changes;
        }
        const last = rows[rows.length - 1];
        const more = rows.length === limit && last !== undefined;
        sweptTo = more ? last.id : 0;
        return E.right({ forgotten, more });
      }, BACKGROUND),
  };

  function recordOne(holder: string, attempt: AttemptRecord, now: number): void {
    const { deliveryId, outcome, status, error, startedAt, durationMs } = attempt;
    const ended = outcome === 'retry' ? null : now;
    const next = outcome === 'retry' ? now + (attempt.retryInMs ?? 0) : now;
    const newStatus = outcome === 'delivered' ? 'delivered' : outcome === 'retry' ? 'pending' : 'failed';
    const lastError = outcome === 'gone' ? `${error ?? 'HTTP 410'}: endpoint disabled` : (error ?? null);
    const row = settle.get(newStatus, next, status ?? null, lastError, ended, deliveryId, holder) as
      { total_attempts: number; endpoint_id: string } | undefined;
    // Not held by us any more (its lease ran out and another took it over): theirs to record.
    if (row === undefined) return;
    insertAttempt.run(
      deliveryId,
      row.total_attempts,
      startedAt.getTime(),
      Math.round(durationMs),
      status ?? null,
      error ?? null,
    );
    if (outcome === 'gone') {
      const reason = `${status ?? 410} Gone at ${new Date(now).toISOString()}`;
      disable.run(reason, row.endpoint_id);
      failPending.run('endpoint disabled: it answered 410 Gone', now, row.endpoint_id);
      outbox.invalidate();
    }
  }
};
