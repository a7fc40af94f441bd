import { plantJsonSql, type JsonMember } from '../plant-json.js';
import type { WriteFunctionColumn } from './write-function-v3.js';

/**
 * The text of `plant_store_write_v4` and of the row type it keeps its outcomes in, for a plant of
 * `columns` (every member but the id, in the codec's order): plant_store_write_v3
 * (write-function-v3.ts) and three things more.
 *
 * - **Replacing** (`op` `put`, PUT /plants/{id}): the plant with the write's id becomes the row's
 *   columns (each `set_f` true; an absent member NULL). An existing plant is replaced when the
 *   conditions hold, and only written when something differs (as an update); an absent one is
 *   created unless the write has `if_match` (If-Match on a missing plant fails, RFC 9110
 *   §13.1.1), and raises the high-water mark like a client-chosen id. A replace whose condition
 *   fails, like an update's, is not done with `found` true; a create refused by If-Match is not
 *   done with `found` false.
 * - **Each write's change number** (`change_seq`, X-Change-Seq): the function locks the change
 *   log's state row right after the writers' lock, so the numbers its triggers give are the ones
 *   above `seq_before` and no other transaction can take one before it commits; once the writes
 *   are done (their statement's triggers have run), each write that changed a plant finds its
 *   change by version (created, updated) or by id (deleted). A write that changed nothing gets
 *   `seq_before`, the newest number its snapshot saw.
 * - **The number saved with a key** (`idempotency_keys.change_seq`, migration 10): the keys are
 *   written after the writes, with their creates' numbers, and `saved_change_seq` replays it
 *   (NULL for an outcome a release before saved).
 *
 * Part of a released migration (10): its text for a given list never changes; a migration that
 * adds a plant column makes a new version of both with the longer list.
 */
export const writeFunctionV4 = (name: string, rowType: string, columns: readonly WriteFunctionColumn[]): string => {
  const members: JsonMember[] = [{ field: 'id', kind: 'integer' }, ...columns];
  const each = (f: (c: WriteFunctionColumn) => string, sep = ', ') => columns.map(f).join(sep);
  return `      CREATE TYPE ${rowType} AS (
        i int4, op text, id int8, chosen boolean, done boolean, found boolean, version int8,
        ${each((c) => `${c.field} ${c.type}`)},
        owner text, key text, request text,
        saved_request text, saved_status int2, saved_id int8, saved_version int8, saved_change_seq int8
      );
      CREATE FUNCTION ${name}(writes jsonb, max_explicit int8, autos int8, ttl_seconds int4)
      RETURNS TABLE (i int4, id text, done boolean, found boolean, version text, ${each((c) => `${c.field} ${c.type}`)},
                     saved_request text, saved_status int2, saved_id text, saved_version text,
                     saved_change_seq float8, change_seq float8)
      -- No JIT, as plant_store_write_v3.
      LANGUAGE plpgsql VOLATILE SET jit = off AS $fn$
      #variable_conflict use_column
      DECLARE
        committed_at timestamptz;
        seq_before int8;
        outcome ${rowType}[];
      BEGIN
        PERFORM 1 FROM plant_id_counter FOR UPDATE;
        SELECT s.last_seq INTO seq_before FROM plant_change_state s FOR NO KEY UPDATE;
        committed_at := clock_timestamp();
        WITH x AS (
          SELECT * FROM jsonb_to_recordset(writes)
            AS x(i int4, op text, id int8, auto int8, ${each((c) => `${c.field} ${c.type}, set_${c.field} boolean`)},
                 owner text, key text, request text, if_match jsonb, if_none_match jsonb, name_folded text,
                 trace_parent text, trace_state text)
        ), saved AS (
          SELECT x.i, k.request, k.status, k.plant_id, k.version, k.change_seq
            FROM x JOIN idempotency_keys k ON k.owner = x.owner AND k.key = x.key AND k.expires_at > now()
        ), put_new AS (
          -- The replaces that create: no plant with the id, and no If-Match.
          SELECT x.i, x.id FROM x
           WHERE x.op = 'put' AND x.if_match IS NULL AND NOT EXISTS (SELECT 1 FROM plants p WHERE p.id = x.id)
        ), counter AS (
          UPDATE plant_id_counter
             SET next_id = GREATEST(next_id, max_explicit + 1, (SELECT COALESCE(max(pn.id), 0) + 1 FROM put_new pn)) + autos
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
           WHERE n.op IN ('update', 'delete', 'put')
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
           WHERE n.op IN ('update', 'put') AND n.i IN (SELECT a.i FROM allowed a)
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
            FROM input n
           WHERE (n.op = 'create' OR (n.op = 'put' AND n.i IN (SELECT pn.i FROM put_new pn)))
             AND n.id <= 9007199254740991
           ORDER BY n.id
          ON CONFLICT (id) DO NOTHING
          RETURNING plants.id, plants.version
        ), changes AS (
          SELECT c.type, '{"type":"' || c.type || '","timestamp":"'
                 || to_char(committed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                 || '","data":' || c.data || '}' AS body, c.trace_parent, c.trace_state
            FROM (
              SELECT 'plant.created' AS type, n.i, ${plantJsonSql('n', members)} AS data, n.trace_parent, n.trace_state
                FROM input n WHERE n.op IN ('create', 'put') AND n.id IN (SELECT ins.id FROM inserted ins)
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
        SELECT array_agg(ROW(
                 x.i, x.op, n.id, COALESCE(n.chosen, false),
                 CASE WHEN n.i IS NULL THEN false
                      WHEN n.op = 'create' THEN n.id IN (SELECT ins.id FROM inserted ins)
                      WHEN n.op = 'delete' THEN n.i IN (SELECT d.i FROM deleted d)
                      WHEN n.op = 'put' AND c.i IS NULL THEN n.id IN (SELECT ins.id FROM inserted ins)
                      ELSE n.i IN (SELECT a.i FROM allowed a) END,
                 c.i IS NOT NULL,
                 CASE WHEN n.op = 'create' OR (n.op = 'put' AND c.i IS NULL)
                      THEN (SELECT ins.version FROM inserted ins WHERE ins.id = n.id)
                      ELSE COALESCE((SELECT up.version FROM updated up WHERE up.i = x.i), c.version) END,
                 ${each((c) => `pt.${c.field}`)},
                 n.owner, n.key, n.request,
                 s.request, s.status, s.plant_id, s.version, s.change_seq
               )::${rowType} ORDER BY x.i) INTO outcome
          FROM x LEFT JOIN input n ON n.i = x.i LEFT JOIN saved s ON s.i = x.i
                 LEFT JOIN current c ON c.i = x.i LEFT JOIN patched pt ON pt.i = x.i;
        RETURN QUERY
        WITH o AS (
          SELECT * FROM unnest(outcome)
        ), logged AS (
          -- This function's changes, and only they: the state row has been locked since seq_before.
          SELECT l.seq, l.type, l.plant_id, l.version FROM plant_changes l WHERE l.seq > seq_before
        ), numbered AS (
          SELECT o.*,
                 CASE WHEN NOT o.done THEN NULL
                      WHEN o.op = 'delete'
                      THEN (SELECT l.seq FROM logged l WHERE l.type = 'plant.deleted' AND l.plant_id = o.id)
                      ELSE COALESCE((SELECT l.seq FROM logged l
                                      WHERE l.plant_id = o.id AND l.version = o.version AND l.type <> 'plant.deleted'),
                                    seq_before) END AS change_seq
            FROM o
        ), keyed AS (
          INSERT INTO idempotency_keys (owner, key, request, status, plant_id, version, expires_at, change_seq)
          SELECT n.owner, n.key, n.request, CASE WHEN n.done THEN 201 ELSE 409 END, n.id,
                 CASE WHEN n.done THEN n.version ELSE 0 END, now() + make_interval(secs => ttl_seconds),
                 CASE WHEN n.done THEN n.change_seq END
            FROM numbered n
           WHERE n.op = 'create' AND n.key IS NOT NULL AND n.saved_status IS NULL AND (n.done OR n.chosen)
          ON CONFLICT (owner, key) DO UPDATE SET
            request = EXCLUDED.request, status = EXCLUDED.status, plant_id = EXCLUDED.plant_id,
            version = EXCLUDED.version, expires_at = EXCLUDED.expires_at, change_seq = EXCLUDED.change_seq
        )
        SELECT n.i, n.id::text, n.done, n.found, n.version::text, ${each((c) => `n.${c.field}`)},
               n.saved_request, n.saved_status, n.saved_id::text, n.saved_version::text,
               n.saved_change_seq::float8, n.change_seq::float8
          FROM numbered n
         ORDER BY n.i;
      END
      $fn$;
`;
};
