import type { PostgresMigration } from './postgres-migration.js';

export const migration0005: PostgresMigration = {
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
};
