import { plantJsonSql, type JsonMember } from '../plant-json.js';
import type { WriteFunctionColumn } from './write-function-v3.js';

/**
 * The text of `plant_store_create_batch_v1` for a plant of `columns` (every member but the id, in
 * the codec's order): an array of creates (POST /plants/batch) in ONE call, one round trip and one
 * transaction, all or nothing. Part of a released migration (12): its text for a given list never
 * changes; a migration that adds a plant column makes a new version with the longer list.
 *
 * Input: `plants`, a JSON array of `{i, id, auto, <each column>, folded, trace_parent,
 * trace_state}` (`id` NULL for a server-assigned one, `auto` its rank among those), the array's
 * largest given id and how many it leaves to the server, and for a keyed array the owner, key,
 * canonical request (idempotency/batch-request.ts) and the keys' time to live. One row back:
 * `batch_outcome` `created` (with `batch_ids`, the ids in the array's order as a JSON array, and
 * `batch_seq`, the newest change number), `taken` (`batch_ids`: the ids other plants have) or
 * `saved` (`batch_saved`: the `request` column the key holds).
 *
 * It first locks the id counter, the writers' lock every write of every release takes: each later
 * statement of the function sees a snapshot taken after it was granted, so the key lookup and the
 * check of the given ids see every commit before, and no other write comes between the check and
 * the insert. Then, with every id free, one statement inserts the plants and writes their
 * `plant.created` events to the outbox (as createsStatement does), and the change log's trigger
 * gives each plant its change, numbered in that one commit. Once the high-water mark is used up
 * (a client took 2^53−1), the server-assigned plants take, one by one, the smallest free id above
 * the gap cursor, after the given ones are in (as the write queue's id gap statement does).
 */
export const batchFunctionV1 = (name: string, columns: readonly WriteFunctionColumn[]): string => {
  const members: JsonMember[] = [{ field: 'id', kind: 'integer' }, ...columns];
  const each = (f: (c: WriteFunctionColumn) => string, sep = ', ') => columns.map(f).join(sep);
  const record = `i int4, id int8, auto int8, ${each((c) => `${c.field} ${c.type}`)}, folded text, trace_parent text, trace_state text`;
  // The events of the plants in `stored` (id and every column), with the trace context of `input`.
  const outbox = (stored: string) => `
        events AS MATERIALIZED (
          SELECT 'msg_' || replace(gen_random_uuid()::text, '-', '') AS id,
                 '{"type":"plant.created","timestamp":"' || to_char(v_committed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                   || '","data":' || ${plantJsonSql('s', members)} || '}' AS body,
                 n.trace_parent, n.trace_state
            FROM ${stored} s JOIN input n ON n.id = s.id
           WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.enabled AND (e.events IS NULL OR 'plant.created' = ANY (e.events)))
        ), outbox AS (
          INSERT INTO webhook_deliveries (event_id, event_type, body, endpoint_id, status, next_attempt_at, created_at,
                                          trace_parent, trace_state)
          SELECT ev.id, 'plant.created', ev.body, e.id, 'pending', v_committed_at, v_committed_at, ev.trace_parent, ev.trace_state
            FROM events ev JOIN webhook_endpoints e ON e.enabled AND (e.events IS NULL OR 'plant.created' = ANY (e.events))
        )`;
  return `      CREATE FUNCTION ${name}(p_plants jsonb, p_max_explicit int8, p_autos int8, p_owner text, p_key text,
                                    p_request text, p_ttl_seconds int4)
      RETURNS TABLE (batch_outcome text, batch_ids text, batch_seq int8, batch_saved text)
      -- No JIT, as plant_store_write_v3: compiling would cost far more than running.
      LANGUAGE plpgsql VOLATILE SET jit = off AS $fn$
      #variable_conflict use_column
      DECLARE
        v_committed_at timestamptz;
        v_saved text;
        v_taken int8[];
        v_base int8;
        v_ids text;
        v_seq int8;
        v_first int8;
        v_cursor int8;
        v_free int8;
        v_plant record;
      BEGIN
        PERFORM 1 FROM plant_id_counter FOR UPDATE;
        v_committed_at := clock_timestamp();
        IF p_key IS NOT NULL THEN
          SELECT k.request INTO v_saved FROM idempotency_keys k
           WHERE k.owner = p_owner AND k.key = p_key AND k.expires_at > now();
          IF FOUND THEN
            RETURN QUERY SELECT 'saved'::text, NULL::text, NULL::int8, v_saved;
            RETURN;
          END IF;
        END IF;
        SELECT array_agg(p.id ORDER BY x.i) INTO v_taken
          FROM jsonb_to_recordset(p_plants) AS x(i int4, id int8) JOIN plants p ON p.id = x.id;
        IF v_taken IS NOT NULL THEN
          IF p_key IS NOT NULL THEN
            INSERT INTO idempotency_keys (owner, key, request, status, plant_id, version, expires_at)
            VALUES (p_owner, p_key, p_request || E'\\n' || jsonb_build_object('taken', to_jsonb(v_taken))::text, 409,
                    v_taken[1], 0, now() + make_interval(secs => p_ttl_seconds))
            ON CONFLICT (owner, key) DO UPDATE SET
              request = EXCLUDED.request, status = EXCLUDED.status, plant_id = EXCLUDED.plant_id,
              version = EXCLUDED.version, expires_at = EXCLUDED.expires_at;
          END IF;
          RETURN QUERY SELECT 'taken'::text, to_jsonb(v_taken)::text, NULL::int8, NULL::text;
          RETURN;
        END IF;
        UPDATE plant_id_counter SET next_id = GREATEST(next_id, p_max_explicit + 1) + p_autos
        RETURNING next_id - p_autos INTO v_base;
        IF v_base + p_autos - 1 <= 9007199254740991 THEN
          WITH input AS (
            SELECT x.i, COALESCE(x.id, v_base + x.auto) AS id, ${each((c) => `x.${c.field}`)}, x.folded, x.trace_parent, x.trace_state
              FROM jsonb_to_recordset(p_plants) AS x(${record})
          ), stored AS (
            INSERT INTO plants (id, ${each((c) => c.field)}, name_folded)
            SELECT n.id, ${each((c) => `n.${c.field}`)}, n.folded FROM input n ORDER BY n.id
            RETURNING plants.id, ${each((c) => `plants.${c.field}`)}
          ), ${outbox('stored')}
          SELECT json_agg(n.id ORDER BY n.i)::text, (array_agg(n.id ORDER BY n.i))[1] INTO v_ids, v_first FROM input n;
        ELSE
          -- The mark is used up: the given ids first, then each server-assigned plant in the
          -- smallest free id above the gap cursor, wrapping to 1 once.
          CREATE TEMP TABLE IF NOT EXISTS plant_store_batch_input (${record}) ON COMMIT DROP;
          INSERT INTO plant_store_batch_input SELECT * FROM jsonb_to_recordset(p_plants) AS x(${record});
          FOR v_plant IN SELECT * FROM plant_store_batch_input WHERE id IS NULL ORDER BY i LOOP
            SELECT gap_cursor INTO v_cursor FROM plant_id_counter;
            v_free := COALESCE(
              (SELECT v_cursor + 1 WHERE v_cursor + 1 <= 9007199254740991
                  AND NOT EXISTS (SELECT 1 FROM plants WHERE id = v_cursor + 1)
                  AND NOT EXISTS (SELECT 1 FROM plant_store_batch_input b WHERE b.id = v_cursor + 1)),
              (SELECT c.id + 1 FROM (SELECT id FROM plants UNION ALL SELECT id FROM plant_store_batch_input WHERE id IS NOT NULL) c
                WHERE c.id > v_cursor AND c.id < 9007199254740991
                  AND NOT EXISTS (SELECT 1 FROM plants q WHERE q.id = c.id + 1)
                  AND NOT EXISTS (SELECT 1 FROM plant_store_batch_input b WHERE b.id = c.id + 1)
                ORDER BY c.id LIMIT 1),
              (SELECT 1::int8 WHERE NOT EXISTS (SELECT 1 FROM plants WHERE id = 1)
                  AND NOT EXISTS (SELECT 1 FROM plant_store_batch_input b WHERE b.id = 1)),
              (SELECT c.id + 1 FROM (SELECT id FROM plants UNION ALL SELECT id FROM plant_store_batch_input WHERE id IS NOT NULL) c
                WHERE c.id < 9007199254740991
                  AND NOT EXISTS (SELECT 1 FROM plants q WHERE q.id = c.id + 1)
                  AND NOT EXISTS (SELECT 1 FROM plant_store_batch_input b WHERE b.id = c.id + 1)
                ORDER BY c.id LIMIT 1));
            IF v_free IS NULL THEN
              RAISE EXCEPTION 'every plant id from 1 to 2^53-1 is in use';
            END IF;
            UPDATE plant_id_counter SET gap_cursor = v_free;
            UPDATE plant_store_batch_input SET id = v_free WHERE i = v_plant.i;
          END LOOP;
          WITH input AS (SELECT * FROM plant_store_batch_input), stored AS (
            INSERT INTO plants (id, ${each((c) => c.field)}, name_folded)
            SELECT n.id, ${each((c) => `n.${c.field}`)}, n.folded FROM input n ORDER BY n.id
            RETURNING plants.id, ${each((c) => `plants.${c.field}`)}
          ), ${outbox('stored')}
          SELECT json_agg(n.id ORDER BY n.i)::text, (array_agg(n.id ORDER BY n.i))[1] INTO v_ids, v_first FROM input n;
          DROP TABLE plant_store_batch_input;
        END IF;
        SELECT s.last_seq INTO v_seq FROM plant_change_state s;
        IF p_key IS NOT NULL THEN
          INSERT INTO idempotency_keys (owner, key, request, status, plant_id, version, expires_at)
          VALUES (p_owner, p_key, p_request || E'\\n' || jsonb_build_object('ids', v_ids::jsonb, 'seq', v_seq)::text, 201,
                  v_first, 0, now() + make_interval(secs => p_ttl_seconds))
          ON CONFLICT (owner, key) DO UPDATE SET
            request = EXCLUDED.request, status = EXCLUDED.status, plant_id = EXCLUDED.plant_id,
            version = EXCLUDED.version, expires_at = EXCLUDED.expires_at;
        END IF;
        RETURN QUERY SELECT 'created'::text, v_ids, v_seq, NULL::text;
      END
      $fn$;
`;
};
