import { plantJsonSql, type JsonMember } from '../plant-json.js';

/** A plant column as a write function is made for it: its name and its PostgreSQL type. */
export interface WriteFunctionColumn extends JsonMember {
  readonly type: string;
}

/**
 * The text of `plant_store_write_v3` for a plant of `columns` (every member but the id, in the
 * codec's order): plant_store_write_v2 (write-function.ts, traced) with every plant column taken
 * from the field list instead of spelled by hand. A write's input row has, for each column `f`,
 * `f` (a create's value; a patch's new value, NULL removing it) and `set_f` (a patch names it);
 * its rows back carry each column of an updated plant. An update writes only when the plant
 * changed, comparing every column; the events' `data` is plantJsonSql (the codec's bytes). Part
 * of released migrations (9): its text for a given list never changes, and a migration that adds
 * a plant column makes a new version of the function with the longer list.
 */
export const writeFunctionV3 = (name: string, columns: readonly WriteFunctionColumn[]): string => {
  const members: JsonMember[] = [{ field: 'id', kind: 'integer' }, ...columns];
  const each = (f: (c: WriteFunctionColumn) => string, sep = ', ') => columns.map(f).join(sep);
  return `      CREATE FUNCTION ${name}(writes jsonb, max_explicit int8, autos int8, ttl_seconds int4)
      RETURNS TABLE (i int4, id text, done boolean, found boolean, version text, ${each((c) => `${c.field} ${c.type}`)},
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
            AS x(i int4, op text, id int8, auto int8, ${each((c) => `${c.field} ${c.type}, set_${c.field} boolean`)},
                 owner text, key text, request text, if_match jsonb, if_none_match jsonb, name_folded text,
                 trace_parent text, trace_state text)
        ), saved AS (
          SELECT x.i, k.request, k.status, k.plant_id, k.version
            FROM x JOIN idempotency_keys k ON k.owner = x.owner AND k.key = x.key AND k.expires_at > now()
        ), counter AS (
          UPDATE plant_id_counter
             SET next_id = GREATEST(next_id, max_explicit + 1) + autos
          RETURNING next_id - autos AS base
        ), input AS (
          -- The counter as a scalar, not joined (see plant_store_write_v2).
          SELECT x.i, x.op, COALESCE(x.id, (SELECT c.base FROM counter c) + x.auto) AS id, x.id IS NOT NULL AS chosen,
                 ${each((c) => `x.${c.field}, x.set_${c.field}`)}, x.owner, x.key, x.request, x.if_match, x.if_none_match,
                 x.name_folded, x.trace_parent, x.trace_state
            FROM x
           WHERE x.i NOT IN (SELECT s.i FROM saved s)
        ), current AS (
          SELECT n.i, ${each((c) => `p.${c.field}`)}, p.version, p.name_folded
            FROM input n JOIN plants p ON p.id = n.id
           WHERE n.op IN ('update', 'delete')
        ), allowed AS (
          SELECT c.i FROM current c JOIN input n ON n.i = c.i
           WHERE (n.if_match IS NULL OR n.if_match = '"*"'::jsonb OR n.if_match @> to_jsonb(c.version))
             AND (n.if_none_match IS NULL OR (n.if_none_match <> '"*"'::jsonb AND NOT n.if_none_match @> to_jsonb(c.version)))
        ), patched AS (
          SELECT n.i, n.id,
                 ${each((c) => `CASE WHEN n.set_${c.field} THEN n.${c.field} ELSE c.${c.field} END AS ${c.field}`, ',\n                 ')},
                 COALESCE(n.name_folded, c.name_folded) AS name_folded,
                 ROW(${each((c) => `c.${c.field}`)}) AS old, n.trace_parent, n.trace_state
            FROM input n JOIN current c ON c.i = n.i
           WHERE n.op = 'update' AND n.i IN (SELECT a.i FROM allowed a)
        ), updated AS (
          UPDATE plants p SET ${each((c) => `${c.field} = u.${c.field}`)}, name_folded = u.name_folded,
                 version = nextval('plant_versions')
            FROM patched u
           WHERE p.id = u.id AND ROW(${each((c) => `u.${c.field}`)}) IS DISTINCT FROM u.old
          RETURNING u.i, p.version
        ), deleted AS (
          DELETE FROM plants p USING input d
           WHERE d.op = 'delete' AND p.id = d.id AND d.i IN (SELECT a.i FROM allowed a)
          RETURNING d.i
        ), inserted AS (
          INSERT INTO plants (id, ${each((c) => c.field)}, name_folded)
          SELECT n.id, ${each((c) => `n.${c.field}`)}, n.name_folded
            FROM input n WHERE n.op = 'create' AND n.id <= 9007199254740991 ORDER BY n.id
          ON CONFLICT (id) DO NOTHING
          RETURNING plants.id, plants.version
        ), keyed AS (
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
                 || '","data":' || c.data || '}' AS body, c.trace_parent, c.trace_state
            FROM (
              SELECT 'plant.created' AS type, n.i, ${plantJsonSql('n', members)} AS data, n.trace_parent, n.trace_state
                FROM input n WHERE n.op = 'create' AND n.id IN (SELECT ins.id FROM inserted ins)
              UNION ALL
              SELECT 'plant.updated', u.i, ${plantJsonSql('u', members)}, u.trace_parent, u.trace_state
                FROM patched u WHERE u.i IN (SELECT up.i FROM updated up)
              UNION ALL
              SELECT 'plant.deleted', n.i, '{"id":' || n.id || '}', n.trace_parent, n.trace_state
                FROM input n WHERE n.op = 'delete' AND n.i IN (SELECT d.i FROM deleted d)
            ) c
           WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.enabled AND (e.events IS NULL OR c.type = ANY (e.events)))
        ), events AS (
          SELECT 'msg_' || replace(gen_random_uuid()::text, '-', '') AS id, c.type, c.body, c.trace_parent, c.trace_state
            FROM changes c
        ), outbox AS (
          INSERT INTO webhook_deliveries (event_id, event_type, body, endpoint_id, status, next_attempt_at, created_at,
                                          trace_parent, trace_state)
          SELECT ev.id, ev.type, ev.body, e.id, 'pending', committed_at, committed_at, ev.trace_parent, ev.trace_state
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
               ${each((c) => `pt.${c.field}`)},
               s.request, s.status, s.plant_id::text, s.version::text
          FROM x LEFT JOIN input n ON n.i = x.i LEFT JOIN saved s ON s.i = x.i
                 LEFT JOIN current c ON c.i = x.i LEFT JOIN patched pt ON pt.i = x.i
         ORDER BY x.i;
      END
      $fn$;
`;
};
