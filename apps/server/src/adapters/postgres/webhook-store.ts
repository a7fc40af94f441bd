import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type postgres from 'postgres';
import type { StoreError } from '../../ports/plant-store.js';
import type { ClaimedDelivery, EndpointRecord, ReplayOutcome, WebhookStore } from '../../ports/webhook-store.js';
import { decodeEach } from '../store-rows.js';
import {
  backlogFromRow,
  claimFromRow,
  deliveriesFromRows,
  endpointFromRow,
  endpointsFromRows,
} from '../webhook-rows.js';
import type { PostgresGate } from './gate.js';

/** Epoch milliseconds of a timestamptz column, as the shared row codecs read times. */
const ms = (column: string): string => `floor(extract(epoch FROM ${column}) * 1000)::float8`;

const ENDPOINT_COLUMNS = `id, url, array_to_string(events, ' ') AS events, enabled, disabled_reason,
  ${ms('created_at')} AS created_at, ${ms('rotated_at')} AS rotated_at`;
const DELIVERY_COLUMNS = `id::float8 AS id, event_id, event_type, endpoint_id, status, attempts,
  ${ms('next_attempt_at')} AS next_attempt_at, last_status, last_error, ${ms('created_at')} AS created_at, ${ms('ended_at')} AS ended_at`;

/**
 * Endpoints and the dispatcher's side of the outbox on PostgreSQL. Every instance claims with
 * `FOR UPDATE SKIP LOCKED`, so two instances never hold one delivery at once; times are the
 * database's (`now()`), the one clock all instances share.
 */
export const createPostgresWebhookStore = (sql: postgres.Sql, gate: PostgresGate): WebhookStore => {
  const run = <A>(what: string, work: () => Promise<A>): Promise<E.Either<StoreError, A>> => gate.run(what, work);
  return {
    addEndpoint: (endpoint) => async () => {
      const added = await run(
        'add webhook endpoint',
        () => sql`
          INSERT INTO webhook_endpoints (id, url, events, secret)
          VALUES (${endpoint.id}, ${endpoint.url},
                  string_to_array(${endpoint.events === null ? null : endpoint.events.join(' ')}::text, ' '), ${endpoint.secret})`,
      );
      return E.isLeft(added) ? added : findEndpoint(endpoint.id);
    },
    listEndpoints: () => async () =>
      pipe(
        await run('list webhook endpoints', () =>
          sql.unsafe(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`),
        ),
        E.chain(endpointsFromRows),
      ),
    removeEndpoint: (id) => async () =>
      pipe(
        await run('remove webhook endpoint', () => sql`DELETE FROM webhook_endpoints WHERE id = ${id}`),
        E.map((rows) => rows.count > 0),
      ),
    enableEndpoint: (id) => async () =>
      pipe(
        await run(
          'enable webhook endpoint',
          () => sql`UPDATE webhook_endpoints SET enabled = true, disabled_reason = NULL WHERE id = ${id}`,
        ),
        E.map((rows) => rows.count > 0),
      ),
    rotateSecret: (id, secret) => async () =>
      pipe(
        await run(
          'rotate webhook secret',
          () =>
            sql`UPDATE webhook_endpoints SET previous_secret = secret, secret = ${secret}, rotated_at = now() WHERE id = ${id}`,
        ),
        E.map((rows) => rows.count > 0),
      ),
    listDeliveries:
      ({ deliveryId, endpointId, status, limit }) =>
      async () =>
        pipe(
          await run('list webhook deliveries', () =>
            sql.unsafe(
              `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
              WHERE ($1::text IS NULL OR endpoint_id = $1) AND ($2::text IS NULL OR status = $2)
                AND ($4::int8 IS NULL OR id = $4)
              ORDER BY id DESC LIMIT $3`,
              [endpointId ?? null, status ?? null, limit, deliveryId ?? null],
            ),
          ),
          E.chain(deliveriesFromRows),
        ),
    replay: (deliveryId) => async () =>
      pipe(
        await run(
          'replay webhook delivery',
          () => sql`
            WITH target AS (
              SELECT d.id, d.status, d.endpoint_id, e.enabled
                FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
               WHERE d.id = ${deliveryId}::int8 FOR UPDATE OF d
            ), replayed AS (
              UPDATE webhook_deliveries d
                 SET status = 'pending', attempts = 0, next_attempt_at = now(), held_by = NULL, ended_at = NULL
                FROM target t WHERE d.id = t.id AND t.status <> 'pending' AND t.enabled
              RETURNING d.id
            )
            SELECT t.status, t.endpoint_id, t.enabled, EXISTS (SELECT 1 FROM replayed) AS replayed FROM target t`,
        ),
        E.map((rows): ReplayOutcome => {
          const row = rows[0] as
            { status: string; endpoint_id: string; enabled: boolean; replayed: boolean } | undefined;
          if (row === undefined) return { _tag: 'DeliveryNotFound' };
          if (row.replayed) return { _tag: 'Replayed' };
          if (row.status === 'pending') return { _tag: 'AlreadyPending' };
          return { _tag: 'EndpointDisabled', endpointId: row.endpoint_id };
        }),
      ),
    replayFailed: (endpointId) => async () =>
      pipe(
        await run(
          'replay failed webhook deliveries',
          () => sql`
            UPDATE webhook_deliveries
               SET status = 'pending', attempts = 0, next_attempt_at = now(), held_by = NULL, ended_at = NULL
             WHERE status = 'failed' AND (${endpointId ?? null}::text IS NULL OR endpoint_id = ${endpointId ?? null}::text)
               AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled)`,
        ),
        E.map((rows) => rows.count),
      ),
    claimDue: (holder, limit, leaseMs) => async () =>
      pipe(
        await run('claim webhook deliveries', () =>
          sql.unsafe(
            `WITH due AS (
               SELECT id FROM webhook_deliveries
                WHERE status = 'pending' AND next_attempt_at <= now()
                ORDER BY next_attempt_at, id LIMIT $2
                FOR UPDATE SKIP LOCKED
             ), claimed AS (
               UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $3::float8 / 1000), held_by = $1
                 FROM due WHERE d.id = due.id
               RETURNING d.id, d.event_id, d.body, d.endpoint_id, d.attempts, d.trace_parent, d.trace_state
             )
             SELECT c.id::float8 AS id, c.event_id, c.body, c.endpoint_id, c.attempts, c.trace_parent, c.trace_state,
                    e.url, e.secret, e.previous_secret,
                    ${ms('e.rotated_at')} AS rotated_at, ${ms('now()')} AS now
               FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id
              ORDER BY c.id`,
            [holder, limit, leaseMs],
          ),
        ),
        E.chain((rows): E.Either<StoreError, readonly ClaimedDelivery[]> => {
          const first = rows[0] as { now?: unknown } | undefined;
          const now = typeof first?.now === 'number' ? first.now : Date.now();
          return decodeEach(claimFromRow(now))(rows);
        }),
      ),
    recordAttempts: (holder, attempts) => async () => {
      if (attempts.length === 0) return E.right(undefined);
      const input = attempts.map((a) => ({
        delivery_id: a.deliveryId,
        outcome: a.outcome,
        retry_ms: a.retryInMs ?? 0,
        status: a.status ?? null,
        error: a.error ?? null,
        started_at: a.startedAt.toISOString(),
        duration_ms: Math.round(a.durationMs),
      }));
      // One statement for a batch of attempts: settle each delivery still held by `holder`,
      // record its attempt, and for a 410 disable the endpoint and fail its pending deliveries.
      return pipe(
        await run(
          'record webhook attempts',
          () => sql`
            WITH x AS (
              SELECT * FROM jsonb_to_recordset(${sql.json(input)})
                AS x(delivery_id int8, outcome text, retry_ms int8, status int4, error text, started_at timestamptz, duration_ms int4)
            ), settled AS (
              UPDATE webhook_deliveries d
                 SET status = CASE x.outcome WHEN 'delivered' THEN 'delivered' WHEN 'retry' THEN 'pending' ELSE 'failed' END,
                     attempts = d.attempts + 1, total_attempts = d.total_attempts + 1,
                     next_attempt_at = CASE WHEN x.outcome = 'retry' THEN now() + make_interval(secs => x.retry_ms::float8 / 1000) ELSE now() END,
                     held_by = NULL, last_status = x.status,
                     last_error = CASE WHEN x.outcome = 'gone' THEN coalesce(x.error, 'HTTP 410') || ': endpoint disabled' ELSE x.error END,
                     ended_at = CASE WHEN x.outcome = 'retry' THEN NULL ELSE now() END
                FROM x WHERE d.id = x.delivery_id AND d.held_by = ${holder} AND d.status = 'pending'
              RETURNING d.id, d.total_attempts, d.endpoint_id, x.outcome, x.status, x.error, x.started_at, x.duration_ms
            ), logged AS (
              INSERT INTO webhook_attempts (delivery_id, n, started_at, duration_ms, status, error)
              SELECT id, total_attempts, started_at, duration_ms, status, error FROM settled
            ), disabled AS (
              UPDATE webhook_endpoints e SET enabled = false,
                     disabled_reason = '410 Gone at ' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
               WHERE e.id IN (SELECT endpoint_id FROM settled WHERE outcome = 'gone')
              RETURNING e.id
            )
            UPDATE webhook_deliveries d
               SET status = 'failed', last_error = 'endpoint disabled: it answered 410 Gone', ended_at = now(), held_by = NULL
             WHERE d.endpoint_id IN (SELECT id FROM disabled) AND d.status = 'pending'
               AND d.id NOT IN (SELECT id FROM settled)`,
        ),
        E.map(() => undefined),
      );
    },
    release: (holder, ids) => async () =>
      ids.length === 0
        ? E.right(undefined)
        : pipe(
            await run(
              'release webhook deliveries',
              () => sql`
                UPDATE webhook_deliveries SET next_attempt_at = now(), held_by = NULL
                 WHERE id IN (SELECT jsonb_array_elements_text(${sql.json([...ids])})::int8) AND held_by = ${holder} AND status = 'pending'`,
            ),
            E.map(() => undefined),
          ),
    backlog: () => async () =>
      pipe(
        await run('webhook backlog', () =>
          sql.unsafe(
            `SELECT count(*)::float8 AS pending, ${ms('min(created_at)')} AS oldest, ${ms('now()')} AS now
               FROM webhook_deliveries WHERE status = 'pending'`,
          ),
        ),
        E.chain((rows) => {
          const row = rows[0] as { now?: unknown } | undefined;
          return backlogFromRow(typeof row?.now === 'number' ? row.now : Date.now())(row);
        }),
      ),
    purgeEnded: (retentionMs, limit) => async () =>
      pipe(
        await run(
          'purge webhook deliveries',
          () => sql`
            DELETE FROM webhook_deliveries WHERE id = ANY (ARRAY(
              SELECT id FROM webhook_deliveries
               WHERE status <> 'pending' AND ended_at <= now() - make_interval(secs => ${retentionMs}::float8 / 1000)
               LIMIT ${limit}::int4))`,
        ),
        E.map((rows) => ({ forgotten: rows.count, more: rows.count === limit })),
      ),
  };

  async function findEndpoint(id: string): Promise<E.Either<StoreError, EndpointRecord>> {
    return pipe(
      await run('find webhook endpoint', () =>
        sql.unsafe(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id]),
      ),
      E.chain((rows) => endpointFromRow(rows[0])),
    );
  }
};
