import type postgres from 'postgres';
import { writeFunction } from './write-function.js';

export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  /** One or more statements, run in the migrating transaction. */
  readonly sql: string;
}

/**
 * The schema, as an append-only list: a released migration is never edited, a change is a new
 * version. `schema_migrations` records which versions ran.
 *
 * - `plants.id` is `int8` kept within the contract's 1 … 2^53−1 by a CHECK.
 * - `plant_id_counter` is the high-water mark for server-assigned ids: one row, `next_id` one
 *   more than the largest id ever stored (client-chosen ids included, deletes never lower it), so
 *   an assigned id never collides and never reuses a deleted id. A sequence would not do: an
 *   explicit id does not advance it, and `setval` races with `nextval`.
 * - `tokens` live here too, so a token issued with the CLI works on every instance.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'plants, plant id counter and tokens',
    sql: `
      CREATE TABLE plants (
        id   int8 PRIMARY KEY CHECK (id BETWEEN 1 AND 9007199254740991),
        name text NOT NULL,
        tag  text
      );
      CREATE TABLE plant_id_counter (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        next_id   int8 NOT NULL CHECK (next_id >= 1)
      );
      INSERT INTO plant_id_counter (singleton, next_id) VALUES (true, 1);
      CREATE TABLE tokens (
        id         text PRIMARY KEY,
        name       text NOT NULL UNIQUE,
        scopes     jsonb NOT NULL,
        hash       bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz
      );
    `,
  },
  {
    version: 2,
    name: 'gap cursor for server-assigned ids past 2^53-1',
    // Where the search for a free id starts once the high-water mark has passed 2^53−1.
    sql: `ALTER TABLE plant_id_counter ADD COLUMN gap_cursor int8 NOT NULL DEFAULT 0 CHECK (gap_cursor >= 0)`,
  },
  {
    version: 3,
    name: 'idempotency keys, and one function for every batch of writes',
    sql: `
      -- One row per (owner, key): the outcome a keyed create saved, in the transaction of the
      -- plant. request is the create's canonical JSON (what a later request must equal, and the
      -- name and tag of the plant a 201 created, plant_id); a 409 names the taken id. Rows past
      -- expires_at are ignored, overwritten by the key's next use, and purged.
      CREATE TABLE idempotency_keys (
        owner       text NOT NULL,
        key         text NOT NULL,
        request     text NOT NULL,
        status      int2 NOT NULL CHECK (status IN (201, 409)),
        plant_id    int8 NOT NULL,
        expires_at  timestamptz NOT NULL,
        PRIMARY KEY (owner, key)
      );
      CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

      -- A batch of creates and deletes that name distinct ids and keys (write-queue.ts),
      -- as one transaction. It first locks the id counter, the writers' lock every write takes:
      -- in READ COMMITTED each later statement of a function sees a snapshot taken after that
      -- lock was granted, so the key lookup sees every key that any instance saved before. (In
      -- one plain statement the snapshot precedes the lock, and two instances could each miss
      -- the other's key.) Then the batch, with each write's saved key, if any, in place of the
      -- write. Returns one row per write, in order.
      CREATE FUNCTION plant_store_write(writes jsonb, max_explicit int8, autos int8, ttl_seconds int4)
      RETURNS TABLE (i int4, id text, done boolean, saved_request text, saved_status int2, saved_id text)
      LANGUAGE plpgsql VOLATILE AS $fn$
      #variable_conflict use_column
      BEGIN
        PERFORM 1 FROM plant_id_counter FOR UPDATE;
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
  },
  {
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
  },
  {
    version: 5,
    name: 'plant versions, the tag index, and updates and conditions in plant_store_write_v2',
    sql: `
      -- The version an ETag is made of. A sequence never gives a value twice (not even after a
      -- rollback), so a deleted and re-created id never gets an ETag it had before. Rows stored
      -- before this migration keep 0 (instant: a constant default); later inserts take the next
      -- value by default, the inserts of plant_store_write_v2 below and those of an instance of
      -- the previous release still running during a rolling upgrade alike.
      CREATE SEQUENCE plant_versions AS int8 START 1;
      ALTER TABLE plants ADD COLUMN version int8 NOT NULL DEFAULT 0;
      ALTER TABLE plants ALTER COLUMN version SET DEFAULT nextval('plant_versions');
      ALTER SEQUENCE plant_versions OWNED BY plants.version;
      -- The version a keyed create's 201 had, replayed with it (0 for keys saved before).
      ALTER TABLE idempotency_keys ADD COLUMN version int8 NOT NULL DEFAULT 0;
      -- The tag filter pages through (tag, id); partial, so untagged plants cost nothing.
      CREATE INDEX plants_tag ON plants (tag, id) WHERE tag IS NOT NULL;

      -- plant_store_write with updates and conditional writes. A write is
      -- {i, op: create|update|delete, id, auto, name, tag, set_tag, owner, key, request,
      --  if_match, if_none_match}; an update's name NULL keeps the name, set_tag says whether
      -- the tag is replaced (by tag, NULL removing it); if_match / if_none_match are NULL (no
      -- header), the JSON string "*", or a JSON array of versions. The conditions are checked
      -- against the plants as committed once the writers' lock is held, in the statement that
      -- writes: compare and write are one step, across every instance. An update that changes
      -- nothing writes nothing and keeps its version. Rows back, one per write in order: done
      -- (created / updated or unchanged / deleted), found (update and delete: the plant existed),
      -- version (the plant's after the write, or as found when a condition failed), and an
      -- update's resulting name and tag. The previous function stays for instances of the
      -- previous release during a rolling upgrade.
      CREATE FUNCTION plant_store_write_v2(writes jsonb, max_explicit int8, autos int8, ttl_seconds int4)
      RETURNS TABLE (i int4, id text, done boolean, found boolean, version text, name text, tag text,
                     saved_request text, saved_status int2, saved_id text, saved_version text)
      -- No JIT: the planner's estimate for this statement (100 rows per set-returning call,
      -- times its subplans) passes jit_above_cost, and compiling it costs about 1.5 s a call
      -- for a statement that runs in about 1 ms.
      LANGUAGE plpgsql VOLATILE SET jit = off AS $fn$
      #variable_conflict use_column
      DECLARE
        committed_at timestamptz;
      BEGIN
        PERFORM 1 FROM plant_id_counter FOR UPDATE;
        committed_at := clock_timestamp();
        RETURN QUERY
        WITH x AS (
          SELECT * FROM jsonb_to_recordset(writes)
            AS x(i int4, op text, id int8, auto int8, name text, tag text, set_tag boolean, owner text, key text,
                 request text, if_match jsonb, if_none_match jsonb)
        ), saved AS (
          SELECT x.i, k.request, k.status, k.plant_id, k.version
            FROM x JOIN idempotency_keys k ON k.owner = x.owner AND k.key = x.key AND k.expires_at > now()
        ), counter AS (
          UPDATE plant_id_counter
             SET next_id = GREATEST(next_id, max_explicit + 1) + autos
          RETURNING next_id - autos AS base
        ), input AS (
          -- The counter as a scalar, not joined: it is one row, but a table the planner has no
          -- statistics for (autovacuum off, or not yet run) is estimated at hundreds of rows, and
          -- that estimate, multiplied into every CTE below, turned the lookups of plants by id
          -- into hash joins over the whole table (a batch of 50 patches: 40–60 ms on 200k plants
          -- instead of 1–4 ms).
          SELECT x.i, x.op, COALESCE(x.id, (SELECT c.base FROM counter c) + x.auto) AS id, x.id IS NOT NULL AS chosen,
                 x.name, x.tag, x.set_tag, x.owner, x.key, x.request, x.if_match, x.if_none_match
            FROM x
           WHERE x.i NOT IN (SELECT s.i FROM saved s)
        ), current AS (
          SELECT n.i, p.name, p.tag, p.version
            FROM input n JOIN plants p ON p.id = n.id
           WHERE n.op IN ('update', 'delete')
        ), allowed AS (
          SELECT c.i FROM current c JOIN input n ON n.i = c.i
           WHERE (n.if_match IS NULL OR n.if_match = '"*"'::jsonb OR n.if_match @> to_jsonb(c.version))
             AND (n.if_none_match IS NULL OR (n.if_none_match <> '"*"'::jsonb AND NOT n.if_none_match @> to_jsonb(c.version)))
        ), patched AS (
          SELECT n.i, n.id, COALESCE(n.name, c.name) AS name,
                 CASE WHEN n.set_tag THEN n.tag ELSE c.tag END AS tag,
                 c.name AS old_name, c.tag AS old_tag
            FROM input n JOIN current c ON c.i = n.i
           WHERE n.op = 'update' AND n.i IN (SELECT a.i FROM allowed a)
        ), updated AS (
          UPDATE plants p SET name = u.name, tag = u.tag, version = nextval('plant_versions')
            FROM patched u
           WHERE p.id = u.id AND (u.name IS DISTINCT FROM u.old_name OR u.tag IS DISTINCT FROM u.old_tag)
          RETURNING u.i, p.version
        ), deleted AS (
          DELETE FROM plants p USING input d
           WHERE d.op = 'delete' AND p.id = d.id AND d.i IN (SELECT a.i FROM allowed a)
          RETURNING d.i
        ), inserted AS (
          INSERT INTO plants (id, name, tag)
          SELECT n.id, n.name, n.tag FROM input n WHERE n.op = 'create' AND n.id <= 9007199254740991 ORDER BY n.id
          ON CONFLICT (id) DO NOTHING
          RETURNING plants.id, plants.version
        ), keyed AS (
          -- As in plant_store_write, with the version the 201 carried.
          INSERT INTO idempotency_keys (owner, key, request, status, plant_id, version, expires_at)
          SELECT n.owner, n.key, n.request, CASE WHEN n.stored IS NOT NULL THEN 201 ELSE 409 END, n.id,
                 COALESCE(n.stored, 0), now() + make_interval(secs => ttl_seconds)
            FROM (SELECT n.*, ins.version AS stored FROM input n LEFT JOIN inserted ins ON ins.id = n.id AND n.op = 'create') n
           WHERE n.op = 'create' AND n.key IS NOT NULL AND (n.stored IS NOT NULL OR n.chosen)
          ON CONFLICT (owner, key) DO UPDATE SET
            request = EXCLUDED.request, status = EXCLUDED.status, plant_id = EXCLUDED.plant_id,
            version = EXCLUDED.version, expires_at = EXCLUDED.expires_at
        ), changes AS (
          SELECT c.type, '{"type":"' || c.type || '","timestamp":"'
                 || to_char(committed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                 || '","data":' || c.data || '}' AS body
            FROM (
              SELECT 'plant.created' AS type, n.i,
                     '{"id":' || n.id || ',"name":' || to_json(n.name)::text
                       || COALESCE(',"tag":' || to_json(n.tag)::text, '') || '}' AS data
                FROM input n WHERE n.op = 'create' AND n.id IN (SELECT ins.id FROM inserted ins)
              UNION ALL
              SELECT 'plant.updated', u.i,
                     '{"id":' || u.id || ',"name":' || to_json(u.name)::text
                       || COALESCE(',"tag":' || to_json(u.tag)::text, '') || '}'
                FROM patched u WHERE u.i IN (SELECT up.i FROM updated up)
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
                    WHEN n.op = 'create' THEN n.id IN (SELECT ins.id FROM inserted ins)
                    WHEN n.op = 'delete' THEN n.i IN (SELECT d.i FROM deleted d)
                    ELSE n.i IN (SELECT a.i FROM allowed a) END,
               c.i IS NOT NULL,
               CASE WHEN n.op = 'create' THEN (SELECT ins.version FROM inserted ins WHERE ins.id = n.id)
                    ELSE COALESCE((SELECT up.version FROM updated up WHERE up.i = x.i), c.version) END::text,
               pt.name, pt.tag,
               s.request, s.status, s.plant_id::text, s.version::text
          FROM x LEFT JOIN input n ON n.i = x.i LEFT JOIN saved s ON s.i = x.i
                 LEFT JOIN current c ON c.i = x.i LEFT JOIN patched pt ON pt.i = x.i
         ORDER BY x.i;
      END
      $fn$;
    `,
  },
  {
    version: 6,
    name: 'folded names, the name order and the search index; plant_store_write_v2 writes folded names',
    // `name_folded` is the domain's fold of the name (NFKC, then lower case), which only the
    // server computes: it writes it in the statement that writes the name. Rows stored before
    // this migration, and rows an instance of the previous release writes during a rolling
    // upgrade, have NULL there until an instance of this release folds them at start
    // (backfillFoldedNames); plants_unfolded finds them without a scan. COLLATE "C": code-point
    // order, whatever the database's collation. Name order pages through plants_name, forwards
    // and backwards, and with a tag through plants_tag_name. Substring search: a pg_trgm GIN index serves `name_folded LIKE '%…%'`. The
    // extension is created in `public`, once per database, so a schema's removal never takes it
    // away from the others; without the privilege to create it (or where it is not installed),
    // a warning is raised, no index is made, and searches read the table instead.
    // plant_store_write_v2 is replaced in place, same signature: a write that carries
    // name_folded stores it; one of the previous release (which does not) stores NULL on create
    // and on rename, never a stale folding.
    sql: `
      ALTER TABLE plants ADD COLUMN name_folded text COLLATE "C";
      CREATE INDEX plants_name ON plants (name_folded, id);
      CREATE INDEX plants_tag_name ON plants (tag, name_folded, id) WHERE tag IS NOT NULL;
      CREATE INDEX plants_unfolded ON plants (id) WHERE name_folded IS NULL;
      -- The exact counts Prefer: count=exact answers without a scan: one row per tag and one, the
      -- empty tag (never a real one), for every plant. Kept by statement-level triggers, so every
      -- writer keeps them, whatever statement it uses, an instance of the previous release
      -- included; a statement's rows are counted once, at its end, in its transaction. Every
      -- statement that changes plants first takes the writers' lock (plant_id_counter), so the
      -- few counter rows add no waiting; rows are written in tag order all the same. A tag whose
      -- plants are all gone keeps its row, at 0.
      CREATE TABLE plant_counts (tag text COLLATE "C" PRIMARY KEY, n int8 NOT NULL);
      INSERT INTO plant_counts (tag, n) SELECT '', count(*) FROM plants;
      INSERT INTO plant_counts (tag, n) SELECT tag, count(*) FROM plants WHERE tag IS NOT NULL GROUP BY tag;
      CREATE FUNCTION plant_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $counts$
      BEGIN
        INSERT INTO plant_counts AS c (tag, n)
        SELECT x.tag, x.n FROM (
          SELECT '' AS tag, count(*) AS n FROM new_rows
          UNION ALL SELECT r.tag, count(*) FROM new_rows r WHERE r.tag IS NOT NULL GROUP BY r.tag
        ) x WHERE x.n <> 0 ORDER BY x.tag
        ON CONFLICT (tag) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END
      $counts$;
      CREATE FUNCTION plant_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $counts$
      BEGIN
        INSERT INTO plant_counts AS c (tag, n)
        SELECT x.tag, -x.n FROM (
          SELECT '' AS tag, count(*) AS n FROM old_rows
          UNION ALL SELECT r.tag, count(*) FROM old_rows r WHERE r.tag IS NOT NULL GROUP BY r.tag
        ) x WHERE x.n <> 0 ORDER BY x.tag
        ON CONFLICT (tag) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END
      $counts$;
      CREATE FUNCTION plant_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $counts$
      BEGIN
        INSERT INTO plant_counts AS c (tag, n)
        SELECT x.tag, sum(x.d) FROM (
          SELECT r.tag, 1 AS d FROM new_rows r WHERE r.tag IS NOT NULL
          UNION ALL SELECT r.tag, -1 FROM old_rows r WHERE r.tag IS NOT NULL
        ) x GROUP BY x.tag HAVING sum(x.d) <> 0 ORDER BY x.tag
        ON CONFLICT (tag) DO UPDATE SET n = c.n + EXCLUDED.n;
        RETURN NULL;
      END
      $counts$;
      CREATE FUNCTION plant_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $counts$
      BEGIN
        DELETE FROM plant_counts;
        INSERT INTO plant_counts (tag, n) VALUES ('', 0);
        RETURN NULL;
      END
      $counts$;
      CREATE TRIGGER plant_counts_inserted AFTER INSERT ON plants REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_counts_inserted();
      CREATE TRIGGER plant_counts_deleted AFTER DELETE ON plants REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_counts_deleted();
      CREATE TRIGGER plant_counts_updated AFTER UPDATE ON plants REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_counts_updated();
      CREATE TRIGGER plant_counts_truncated AFTER TRUNCATE ON plants
        FOR EACH STATEMENT EXECUTE FUNCTION plant_counts_truncated();

      DO $trgm$
      DECLARE
        home text;
      BEGIN
        BEGIN
          CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
          SELECT extnamespace::regnamespace::text INTO home FROM pg_extension WHERE extname = 'pg_trgm';
          EXECUTE format('CREATE INDEX plants_name_trgm ON plants USING gin (name_folded %s.gin_trgm_ops)', home);
        EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported OR undefined_object
          OR invalid_schema_name THEN
          RAISE WARNING 'plant store: no pg_trgm index (%); substring searches will read the whole table', SQLERRM;
        END;
      END
      $trgm$;

${writeFunction(false)}    `,
  },
  {
    version: 7,
    name: 'the trace context of each event, for its deliveries',
    // The W3C traceparent and tracestate of the request whose change emitted the event, written
    // with it when tracing is on, so that each attempt continues that request's trace (after a
    // restart too). NULL: the change was not traced; the release before writes NULL (expand only:
    // nothing it reads or calls changes shape).
    sql: `
      ALTER TABLE webhook_deliveries ADD COLUMN trace_parent text, ADD COLUMN trace_state text;
${writeFunction(true)}    `,
  },
  {
    version: 8,
    name: 'the change log',
    // Every committed change of a plant, numbered in commit order over the whole database
    // (GET /plants/changes; docs/explanation/storage.md, "The change log"). Statement triggers
    // on plants fill it, so every writer does: this release, the release before it during a
    // rolling upgrade, the data commands. A number from a sequence would be drawn in start order
    // and committed in another (a reader that saw 8 before 7 committed would skip 7 forever);
    // here each statement's changes take their numbers by updating the one state row, whose
    // lock the transaction then holds until it commits, so a later number is never visible
    // before an earlier one. Writers already take turns on plant_id_counter's row, so this adds
    // a row update, not a wait. `last_seq` is the newest number given, `forgotten_through` the
    // newest forgotten (the retention); `at` is the commit time in milliseconds. A rename that
    // keeps name and tag is not a change. With `plant_store.copying` set (migrate), the
    // triggers log nothing: the copy brings the source's log.
    sql: `
      CREATE TABLE plant_change_state (
        singleton         boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        last_seq          int8 NOT NULL,
        forgotten_through int8 NOT NULL
      );
      INSERT INTO plant_change_state (singleton, last_seq, forgotten_through) VALUES (true, 0, 0);
      CREATE TABLE plant_changes (
        seq      int8 PRIMARY KEY,
        type     text NOT NULL,
        plant_id int8 NOT NULL,
        name     text,
        tag      text,
        version  int8,
        at       int8 NOT NULL
      );
      CREATE FUNCTION plant_store_log_changes() RETURNS trigger LANGUAGE plpgsql AS $log$
      DECLARE
        n    int8;
        base int8;
        now_ms int8 := (extract(epoch FROM clock_timestamp()) * 1000)::int8;
      BEGIN
        IF current_setting('plant_store.copying', true) = 'on' THEN RETURN NULL; END IF;
        IF TG_OP = 'INSERT' THEN
          SELECT count(*) INTO n FROM new_rows;
        ELSIF TG_OP = 'UPDATE' THEN
          SELECT count(*) INTO n FROM new_rows nw JOIN old_rows o ON o.id = nw.id
           WHERE nw.name IS DISTINCT FROM o.name OR nw.tag IS DISTINCT FROM o.tag;
        ELSE
          SELECT count(*) INTO n FROM old_rows;
        END IF;
        IF n = 0 THEN RETURN NULL; END IF;
        UPDATE plant_change_state SET last_seq = last_seq + n RETURNING last_seq - n INTO base;
        IF TG_OP = 'INSERT' THEN
          INSERT INTO plant_changes (seq, type, plant_id, name, tag, version, at)
          SELECT base + row_number() OVER (ORDER BY nw.id), 'plant.created', nw.id, nw.name, nw.tag, nw.version, now_ms
            FROM new_rows nw;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO plant_changes (seq, type, plant_id, name, tag, version, at)
          SELECT base + row_number() OVER (ORDER BY nw.id), 'plant.updated', nw.id, nw.name, nw.tag, nw.version, now_ms
            FROM new_rows nw JOIN old_rows o ON o.id = nw.id
           WHERE nw.name IS DISTINCT FROM o.name OR nw.tag IS DISTINCT FROM o.tag;
        ELSE
          INSERT INTO plant_changes (seq, type, plant_id, at)
          SELECT base + row_number() OVER (ORDER BY o.id), 'plant.deleted', o.id, now_ms FROM old_rows o;
        END IF;
        RETURN NULL;
      END
      $log$;
      CREATE TRIGGER plant_changes_insert AFTER INSERT ON plants REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes();
      CREATE TRIGGER plant_changes_update AFTER UPDATE ON plants REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes();
      CREATE TRIGGER plant_changes_delete AFTER DELETE ON plants REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION plant_store_log_changes();
    `,
  },
];

/**
 * An arbitrary fixed key for `pg_advisory_xact_lock`: "plant" in ASCII. Advisory locks are per
 * database, so instances migrating different schemas of one database take turns (briefly).
 */
export const MIGRATION_LOCK_KEY = 482854661748;

/** A dollar-quoted literal for `text`, with a tag that does not occur in it. */
const dollarQuote = (text: string): string => {
  let tag = 'migration';
  while (text.includes(`$${tag}$`)) tag += '_';
  return `$${tag}$${text}$${tag}$`;
};

const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Applies the migrations not yet recorded, in one transaction holding an advisory lock, so that
 * several instances starting at once migrate exactly once: the first takes the lock and migrates,
 * the others wait for its commit, then find every version recorded and do nothing. A failing
 * migration rolls back entirely (PostgreSQL DDL is transactional) and the open fails.
 * `schema`, when given, is created first (inside the lock, so concurrent creators do not race).
 *
 * The whole transaction is ONE simple-protocol query, which PostgreSQL runs as one implicit
 * transaction (each migration guarded by a DO block that checks `schema_migrations`), not the
 * driver's `begin()`: a connection pinned by `begin()` that dies mid-transaction can crash the
 * process in postgres 3.4.9 (see write-queue.ts). If the connection dies here, the
 * server rolls the transaction back.
 * Returns the versions this call applied.
 */
export const migratePostgres = async (
  sql: postgres.Sql,
  schema: string | undefined,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<readonly number[]> => {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  for (const m of ordered) {
    if (!Number.isSafeInteger(m.version) || m.version < 1)
      throw new TypeError(`migration version ${m.version} is not a positive integer`);
  }
  const script = [
    // Migrations may legitimately take longer than a request's statement timeout (and so may
    // waiting for another instance's migration). Rolled back with the transaction on failure,
    // reset to the connection's value at the end.
    'SET statement_timeout = 0',
    `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}) AS locked`,
    ...(schema === undefined ? [] : [`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`]),
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version    int4 PRIMARY KEY,
       name       text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
    `SELECT coalesce(json_agg(version), '[]')::text AS already_applied FROM schema_migrations`,
    ...ordered.map(
      (m) =>
        `DO ${dollarQuote(`BEGIN
        IF NOT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ${m.version}) THEN
          EXECUTE ${dollarQuote(m.sql)};
          INSERT INTO schema_migrations (version, name) VALUES (${m.version}, ${dollarQuote(m.name)});
        END IF;
      END`)}`,
    ),
    'RESET statement_timeout',
  ].join(';\n');
  const results: unknown = await sql.unsafe(script);
  const already = findAlreadyApplied(results);
  return ordered.map((m) => m.version).filter((v) => !already.includes(v));
};

/** The versions the `already_applied` row of the script's results lists. */
const findAlreadyApplied = (results: unknown): readonly number[] => {
  const sets = Array.isArray(results) ? (results as unknown[]) : [];
  for (const set of sets) {
    const row: unknown = Array.isArray(set) ? set[0] : undefined;
    if (typeof row === 'object' && row !== null && 'already_applied' in row) {
      const parsed: unknown = JSON.parse(String(row.already_applied));
      if (Array.isArray(parsed) && parsed.every((v) => Number.isSafeInteger(v))) return parsed as number[];
    }
  }
  throw new TypeError('the migration script returned no already_applied row');
};
