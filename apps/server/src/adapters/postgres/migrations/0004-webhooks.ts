import type { PostgresMigration } from './postgres-migration.js';

export const migration0004: PostgresMigration = {
  version: 4,
  name: 'webhook endpoints, deliveries and attempts; the outbox in plant_store_write',
  sql: `
      -- The outbox is the deliveries table: a committed change writes one row per subscribed
      -- endpoint, with the event's id, type and payload, in the change's own transaction
      -- (plant_store_write below). A pending delivery is due at next_attempt_at; a claim moves
      -- that to the end of its lease and names the holder, so a crashed holder's deliveries fall
      -- due again by themselves. events: the subscribed types, NULL for every type.
      CREATE TABLE webhook_endpoints (
        id              text PRIMARY KEY,
        url             text NOT NULL,
        events          text[],
        secret          text NOT NULL,
        previous_secret text,
        rotated_at      timestamptz,
        enabled         boolean NOT NULL DEFAULT true,
        disabled_reason text,
        created_at      timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE webhook_deliveries (
        id              int8 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id        text NOT NULL,
        event_type      text NOT NULL,
        body            text NOT NULL,
        endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        status          text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts        int4 NOT NULL DEFAULT 0,
        total_attempts  int4 NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        held_by         text,
        last_status     int4,
        last_error      text,
        created_at      timestamptz NOT NULL,
        ended_at        timestamptz
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id);
      -- For the retention purge; written when a delivery ends, never by the plant writes.
      CREATE INDEX webhook_deliveries_ended ON webhook_deliveries (ended_at) WHERE ended_at IS NOT NULL;
      CREATE TABLE webhook_attempts (
        delivery_id int8 NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        n           int4 NOT NULL,
        started_at  timestamptz NOT NULL,
        duration_ms int4 NOT NULL,
        status      int4,
        error       text,
        PRIMARY KEY (delivery_id, n)
      );

      CREATE OR REPLACE FUNCTION plant_store_write(writes jsonb, max_explicit int8, autos int8, ttl_seconds int4)
      RETURNS TABLE (i int4, id text, done boolean, saved_request text, saved_status int2, saved_id text)
      LANGUAGE plpgsql VOLATILE AS $fn$
      #variable_conflict use_column
      DECLARE
        committed_at timestamptz;
      BEGIN
        PERFORM 1 FROM plant_id_counter FOR UPDATE;
        -- The events' time: once the writers' lock is held, as close to the commit as a
        -- statement can see (now() is the transaction's start, before any wait for the lock).
        committed_at := clock_timestamp();
        RETURN QUERY
        WITH x AS (
          SELECT * FROM jsonb_to_recordset(writes)
            AS x(i int4, op text, id int8, auto int8, name text, tag text, owner text, key text, request text)
        ), saved AS (
          SELECT x.i, k.request, k.status, k.plant_id
            FROM x JOIN idempotency_keys k ON k.owner = x.owner AND k.key = x.key AND k.expires_at > now()
        ), counter AS (
          UPDATE plant_id_counter
             SET next_id = GREATEST(next_id, max_explicit + 1) + autos
          RETURNING next_id - autos AS base
        ), input AS (
          SELECT x.i, x.op, COALESCE(x.id, counter.base + x.auto) AS id, x.id IS NOT NULL AS chosen,
                 x.name, x.tag, x.owner, x.key, x.request
            FROM counter, x
           WHERE x.i NOT IN (SELECT s.i FROM saved s)
        ), deleted AS (
          DELETE FROM plants p USING input d WHERE d.op = 'delete' AND p.id = d.id RETURNING d.i
        ), inserted AS (
          INSERT INTO plants (id, name, tag)
          SELECT n.id, n.name, n.tag FROM input n WHERE n.op = 'create' AND n.id <= 9007199254740991 ORDER BY n.id
          ON CONFLICT (id) DO NOTHING
          RETURNING plants.id
        ), keyed AS (
          -- The outcome of every keyed create that has one: stored (201), or its chosen id taken
          -- (409). A server-assigned create that stored nothing saves nothing (its answer is a 503,
          -- or it is created in an id gap, key and all, by the write queue).
          INSERT INTO idempotency_keys (owner, key, request, status, plant_id, expires_at)
          SELECT n.owner, n.key, n.request, CASE WHEN ok THEN 201 ELSE 409 END, n.id,
                 now() + make_interval(secs => ttl_seconds)
            FROM (SELECT n.*, n.id IN (SELECT ins.id FROM inserted ins) AS ok FROM input n) n
           WHERE n.op = 'create' AND n.key IS NOT NULL AND (n.ok OR n.chosen)
          ON CONFLICT (owner, key) DO UPDATE SET
            request = EXCLUDED.request, status = EXCLUDED.status, plant_id = EXCLUDED.plant_id,
            expires_at = EXCLUDED.expires_at
        ), changes AS (
          -- The outbox: each committed change's event, serialised once (compact JSON, as the
          -- SQLite adapter's JSON.stringify writes it), then one delivery per enabled endpoint
          -- subscribed to its type, in this transaction. No subscriber: nothing is written.
          SELECT c.type, '{"type":"' || c.type || '","timestamp":"'
                 || to_char(committed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                 || '","data":' || c.data || '}' AS body
            FROM (
              SELECT 'plant.created' AS type, n.i,
                     '{"id":' || n.id || ',"name":' || to_json(n.name)::text
                       || COALESCE(',"tag":' || to_json(n.tag)::text, '') || '}' AS data
                FROM input n WHERE n.op = 'create' AND n.id IN (SELECT ins.id FROM inserted ins)
              UNION ALL
              SELECT 'plant.deleted', n.i, '{"id":' || n.id || '}'
                FROM input n WHERE n.op = 'delete' AND n.i IN (SELECT d.i FROM deleted d)
            ) c
           WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.enabled AND (e.events IS NULL OR c.type = ANY (e.events)))
        ), events AS (
          SELECT 'msg_' || replace(gen_random_uuid()::text, '-', '') AS id, c.type, c.body FROM changes c
        ), outbox AS (
          INSERT INTO webhook_deliveries (event_id, event_type, body, endpoint_id, status, next_attempt_at, created_at)
          SELECT ev.id, ev.type, ev.body, e.id, 'pending', committed_at, committed_at
            FROM events ev JOIN webhook_endpoints e ON e.enabled AND (e.events IS NULL OR ev.type = ANY (e.events))
        )
        SELECT x.i, n.id::text,
               CASE WHEN n.i IS NULL THEN false
                    WHEN n.op = 'delete' THEN n.i IN (SELECT d.i FROM deleted d)
                    ELSE n.id IN (SELECT ins.id FROM inserted ins) END,
               s.request, s.status, s.plant_id::text
          FROM x LEFT JOIN input n ON n.i = x.i LEFT JOIN saved s ON s.i = x.i
         ORDER BY x.i;
      END
      $fn$;
    `,
};
