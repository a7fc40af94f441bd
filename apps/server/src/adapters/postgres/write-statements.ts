import { fold, MAX_PLANT_ID, type Plant } from '@plant-store/domain';
import {
  PLANT_COLUMNS,
  PLANT_FIELDS,
  plantColumnList,
  plantColumnsOf,
  plantValues,
  postgresType,
  type PlantField,
} from '../plant-columns.js';
import { PLANT_WRITE_FUNCTION } from './migrations/index.js';
import { plantJsonSql } from './plant-json.js';
import type postgres from 'postgres';
import type { IdempotencyClaim, NewPlant, WriteCondition } from '../../ports/plant-store.js';
import type { WriteTrace } from '../../tracing/tracing.js';
import type { Write } from './write.js';

/** A create and the trace it was made in (tracing on), saved with its event. */
export interface TracedCreate {
  readonly plant: NewPlant;
  readonly trace?: WriteTrace | undefined;
}

/** The trace context members of a write's input row; none when it was not traced (the columns read NULL). */
const traceMembers = (trace: WriteTrace | undefined): { trace_parent?: string; trace_state?: string } => {
  if (trace === undefined) return {};
  const { traceparent, tracestate } = trace.saved();
  return tracestate === undefined
    ? { trace_parent: traceparent }
    : { trace_parent: traceparent, trace_state: tracestate };
};

/**
 * Every plant column (plant-columns.ts), bare and of each alias the statements use, and the same
 * as a record's column definitions: made once, not per statement.
 */
const COLUMNS = plantColumnList();
const PLANTS_COLUMNS = plantColumnList('plants');
const X_COLUMNS = plantColumnList('x');
const N_COLUMNS = plantColumnList('n');
const RECORD = PLANT_COLUMNS.map((c) => `${c.field} ${postgresType(c.kind)}`).join(', ');

/** A plant's columns as parameters, each cast to its column's type: `$1::text, $2::text`. */
const parameters = (sql: postgres.Sql, plant: Pick<Plant, PlantField>): postgres.PendingQuery<postgres.Row[]> => {
  const values = plantValues(plant);
  return PLANT_COLUMNS.reduce<postgres.PendingQuery<postgres.Row[]> | undefined>((list, c, i) => {
    const one = sql`${values[i] ?? null}::${sql.unsafe(postgresType(c.kind))}`;
    return list === undefined ? one : sql`${list}, ${one}`;
  }, undefined) as postgres.PendingQuery<postgres.Row[]>;
};

/** A merge patch as the write function reads it: for each plant column `f`, `f` (NULL removes it) and `set_f`. */
const patchMembers = (patch: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const members: Record<string, unknown> = {};
  for (const f of PLANT_FIELDS) {
    members[f] = patch[f] ?? null;
    members[`set_${f}`] = patch[f] !== undefined;
  }
  return members;
};

/** A whole plant as the write function reads it: every column `f` set (`set_f`), an absent member NULL. */
const replaceMembers = (plant: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const members: Record<string, unknown> = {};
  for (const f of PLANT_FIELDS) {
    members[f] = plant[f] ?? null;
    members[`set_${f}`] = true;
  }
  return members;
};

/**
 * The change log's newest number, locked (FOR NO KEY UPDATE, as the triggers' update of it) once
 * `after` (a CTE that takes the writers' lock) has run: the row as the last writer committed it,
 * whatever the statement's snapshot, and no other writer can number a change before this
 * statement commits. So its insert's trigger numbers the plants it stores from here, in id order
 * (plant_store_log_changes_v2): the first `last_seq + 1`. The subquery in the WHERE makes the
 * writers' lock come first, as in every other writer (no deadlock).
 */
const lockedLog = (sql: postgres.Sql, after: string): postgres.PendingQuery<postgres.Row[]> => sql`
  log AS (
    SELECT s.last_seq FROM plant_change_state s WHERE (SELECT count(*) FROM ${sql.unsafe(after)}) > 0 FOR NO KEY UPDATE
  )`;

// The statements of the write queue (see PostgresWriteQueue): the two a segment can take, and
// the one for a server-assigned create once the high-water mark is used up.

/**
 * The statement for a segment of creates none of which has an idempotency key: every create of
 * an ordinary batch, and the lone create of a client that waits for each answer. Plain SQL,
 * prepared by the driver once per connection, instead of plant_store_write_v2
 * (migrations/write-function.ts): that plpgsql function also serves keys, updates, deletes and
 * conditions, and a call of it costs PostgreSQL more CPU than this statement (two statements
 * where this is one, a generic plan of many CTEs and subplans to start and run, the JSON
 * unpacked; see docs/explanation/storage.md). It does what the function does for such creates:
 *
 * - It first updates the `plant_id_counter` row, the writers' lock: raised above the largest
 *   client-chosen id and advanced past the ids it assigns. The plants to insert are selected
 *   from the updated counter row, so none is inserted before that lock is held; the UPDATE
 *   waits for the writer holding it and then applies to the row that writer committed (READ
 *   COMMITTED re-checks an updated row), so the mark stays exact, and write statements of every
 *   instance still take turns.
 * - `INSERT … ON CONFLICT (id) DO NOTHING`, in ascending id order: a taken id is a row not
 *   inserted (409); the conflict check sees every committed plant, whatever the statement's
 *   snapshot. Ids past 2^53−1 (the mark used up) are not inserted; the write queue finds those a
 *   gap. Versions come from the column's default, the `plant_versions` sequence.
 * - The outbox: one `plant.created` event per stored plant, for every enabled endpoint
 *   subscribed to it, with the body, event id and time the function writes (the time read once
 *   the lock is held), in this transaction. What the function needs its second statement for (a
 *   snapshot taken after the lock) is the idempotency-key lookup, which these creates lack.
 *
 * - Each stored plant's change number, without a second statement: see lockedLog.
 *
 * Returns one row per create, in order, shaped as the function's (found and
 * saved_status are always false or NULL here, and no plant column is returned), so the write queue reads both alike.
 */
export const createsStatement = (
  sql: postgres.Sql,
  creates: readonly TracedCreate[],
): postgres.PendingQuery<postgres.Row[]> => {
  const [first] = creates;
  if (creates.length === 1 && first !== undefined) {
    const only = first.plant;
    const saved = first.trace?.saved();
    // A lone create: its fields as parameters, no JSON to build and unpack, no input table to
    // materialise, sort and join (less work for PostgreSQL than the batch form).
    const chosen = only.id ?? null;
    return sql`
      WITH counter AS (
        UPDATE plant_id_counter
           SET next_id = CASE WHEN ${chosen}::int8 IS NULL THEN next_id + 1 ELSE GREATEST(next_id, ${chosen}::int8 + 1) END
        RETURNING COALESCE(${chosen}::int8, next_id - 1) AS id, clock_timestamp() AS at
      ), stored AS (
        INSERT INTO plants (id, ${sql.unsafe(COLUMNS)}, name_folded)
        SELECT c.id, ${parameters(sql, only)}, ${fold(only.name)}::text
          FROM counter c WHERE c.id <= 9007199254740991
        ON CONFLICT (id) DO NOTHING
        RETURNING plants.id, ${sql.unsafe(PLANTS_COLUMNS)}, plants.version
      ), ${lockedLog(sql, 'counter')}, ${outbox(sql, sql`${saved?.traceparent ?? null}::text AS trace_parent, ${saved?.tracestate ?? null}::text AS trace_state FROM stored s`)}
      SELECT 0 AS i, c.id::text AS id, s.id IS NOT NULL AS done, false AS found, s.version::text AS version,
             NULL::int2 AS saved_status, CASE WHEN s.id IS NOT NULL THEN (SELECT l.last_seq + 1 FROM log l) END::float8 AS change_seq
        FROM counter c LEFT JOIN stored s ON true`;
  }
  let autos = 0;
  let maxExplicit = 0;
  const input = creates.map(({ plant, trace }, i) => {
    const { id, name } = plant;
    if (id !== undefined) maxExplicit = Math.max(maxExplicit, id);
    return {
      i,
      id: id ?? null,
      auto: id === undefined ? autos++ : null,
      ...plantColumnsOf(plant),
      folded: fold(name),
      ...traceMembers(trace),
    };
  });
  // `LIMIT 1` on the one counter row: a table without statistics (a new store, autovacuum not
  // yet run) is estimated at far more than one row, and that estimate multiplied into every CTE
  // below can take even a small batch past jit_above_cost, to spend far longer compiling the
  // statement than running it.
  return sql`
    WITH counter AS (
      UPDATE plant_id_counter
         SET next_id = GREATEST(next_id, ${maxExplicit}::int8 + 1) + ${autos}::int8
      RETURNING next_id - ${autos}::int8 AS base, clock_timestamp() AS at
    ), input AS (
      SELECT x.i, COALESCE(x.id, c.base + x.auto) AS id, ${sql.unsafe(X_COLUMNS)}, x.folded, x.trace_parent, x.trace_state
        FROM (SELECT * FROM counter LIMIT 1) c,
             jsonb_to_recordset(${sql.json(input)}::jsonb)
               AS x(i int4, id int8, auto int8, ${sql.unsafe(RECORD)}, folded text, trace_parent text, trace_state text)
    ), stored AS (
      INSERT INTO plants (id, ${sql.unsafe(COLUMNS)}, name_folded)
      SELECT n.id, ${sql.unsafe(N_COLUMNS)}, n.folded FROM input n WHERE n.id <= 9007199254740991 ORDER BY n.id
      ON CONFLICT (id) DO NOTHING
      RETURNING plants.id, ${sql.unsafe(PLANTS_COLUMNS)}, plants.version
    ), ${lockedLog(sql, 'counter')}, numbered AS (
      SELECT s.id, (SELECT l.last_seq FROM log l) + row_number() OVER (ORDER BY s.id) AS seq FROM stored s
    ), ${outbox(sql, sql`n.trace_parent, n.trace_state FROM stored s JOIN input n ON n.id = s.id`)}
    SELECT n.i, n.id::text AS id, s.id IS NOT NULL AS done, false AS found, s.version::text AS version,
           NULL::int2 AS saved_status, q.seq::float8 AS change_seq
      FROM input n LEFT JOIN stored s ON s.id = n.id LEFT JOIN numbered q ON q.id = s.id
     ORDER BY n.i`;
};

/**
 * The outbox after `counter (…, at)` and `stored (id, every plant column, version)`: one event per stored
 * plant (its id shared by its deliveries), as plant_store_write_v2 writes it; nothing when no
 * enabled endpoint takes plant.created. `traced` is the events' trace context columns and the
 * FROM that has them (`stored s`, maybe joined): the same text whatever the values, so each
 * statement's text stays the same.
 */
const outbox = (
  sql: postgres.Sql,
  traced: postgres.PendingQuery<postgres.Row[]>,
): postgres.PendingQuery<postgres.Row[]> => sql`
  events AS MATERIALIZED (
    SELECT 'msg_' || replace(gen_random_uuid()::text, '-', '') AS id, c.at,
           '{"type":"plant.created","timestamp":"' || to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
             || '","data":' || ${sql.unsafe(plantJsonSql('s'))} || '}' AS body,
           ${traced}, (SELECT * FROM counter LIMIT 1) c
     WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.enabled AND (e.events IS NULL OR 'plant.created' = ANY (e.events)))
  ), outbox AS (
    INSERT INTO webhook_deliveries (event_id, event_type, body, endpoint_id, status, next_attempt_at, created_at,
                                    trace_parent, trace_state)
    SELECT ev.id, 'plant.created', ev.body, e.id, 'pending', ev.at, ev.at, ev.trace_parent, ev.trace_state
      FROM events ev JOIN webhook_endpoints e ON e.enabled AND (e.events IS NULL OR 'plant.created' = ANY (e.events))
  )`;

/**
 * A call of the write function (PLANT_WRITE_FUNCTION: plant_store_write_v4, see
 * migrations/write-function-v4.ts), for any segment: one row per write, in order.
 */
export const functionStatement = (
  sql: postgres.Sql,
  writes: readonly Write[],
  idempotencyTtlSeconds: number,
): postgres.PendingQuery<postgres.Row[]> => {
  let autos = 0;
  let maxExplicit = 0;
  const input = writes.map((write, i) => {
    // A delete or update never raises the mark: it stores no new id, and a 404 delete of
    // 2^53−1 would otherwise send every later server-assigned create to the gap search for good.
    if (write.kind === 'delete')
      return { i, op: 'delete', id: write.id, ...conditionColumns(write.condition), ...traceMembers(write.trace) };
    // A replace raises the mark only when it creates, which the function decides.
    if (write.kind === 'replace')
      return {
        i,
        op: 'put',
        id: write.id,
        ...replaceMembers(write.plant),
        name_folded: fold(write.plant.name),
        ...conditionColumns(write.condition),
        ...traceMembers(write.trace),
      };
    if (write.kind === 'update') {
      const { name } = write.patch;
      return {
        i,
        op: 'update',
        id: write.id,
        ...patchMembers(write.patch),
        name_folded: name === undefined ? null : fold(name),
        ...conditionColumns(write.condition),
        ...traceMembers(write.trace),
      };
    }
    const { plant, claim } = write;
    const { id, name } = plant;
    if (id !== undefined) maxExplicit = Math.max(maxExplicit, id);
    return {
      i,
      op: 'create',
      id: id ?? null,
      auto: id === undefined ? autos++ : null,
      ...plantColumnsOf(plant),
      name_folded: fold(name),
      ...(claim === undefined ? {} : { owner: claim.owner, key: claim.key, request: claim.request }),
      ...traceMembers(write.trace),
    };
  });
  return sql`
    SELECT * FROM ${sql.unsafe(PLANT_WRITE_FUNCTION.name)}(${sql.json(input)}, ${maxExplicit}::int8, ${autos}::int8, ${idempotencyTtlSeconds}::int4)`;
};

/** `condition` as the write function reads it: NULL, the JSON string "*", or an array of versions. */
const conditionColumns = (
  condition: WriteCondition | undefined,
): { if_match: string | readonly number[] | null; if_none_match: string | readonly number[] | null } => ({
  if_match: condition?.ifMatch === 'any' ? '*' : (condition?.ifMatch ?? null),
  if_none_match: condition?.ifNoneMatch === 'any' ? '*' : (condition?.ifNoneMatch ?? null),
});

/**
 * The statement for a server-assigned create once the high-water mark has passed 2^53−1 (see
 * PostgresWriteQueue.createInGap): locks the counter row, finds the smallest free id above the
 * gap cursor (wrapping to 1 once), moves the cursor there, and stores the plant, its event and
 * deliveries (the outbox, like every create) and, for a keyed create, its key. One row (GapRow): the id found (NULL: none free), and the id and version stored
 * (NULL: another writer took the id first).
 */
export const gapStatement = (
  sql: postgres.Sql,
  plant: NewPlant,
  claim: IdempotencyClaim | undefined,
  trace: WriteTrace | undefined,
  idempotencyTtlSeconds: number,
): postgres.PendingQuery<postgres.Row[]> => {
  const saved = trace?.saved();
  return sql`
  WITH cursor AS (
    -- FOR UPDATE: wait for other writers first, then read their committed cursor.
    SELECT gap_cursor AS at FROM plant_id_counter FOR UPDATE
  ), found AS (
    SELECT COALESCE(
      (SELECT c.at + 1 FROM cursor c
        WHERE c.at + 1 <= ${MAX_PLANT_ID}::int8 AND NOT EXISTS (SELECT 1 FROM plants WHERE id = c.at + 1)),
      (SELECT p.id + 1 FROM plants p, cursor c
        WHERE p.id > c.at AND p.id < ${MAX_PLANT_ID}::int8
          AND NOT EXISTS (SELECT 1 FROM plants q WHERE q.id = p.id + 1)
        ORDER BY p.id LIMIT 1),
      (SELECT 1::int8 WHERE NOT EXISTS (SELECT 1 FROM plants WHERE id = 1)),
      (SELECT p.id + 1 FROM plants p
        WHERE p.id < ${MAX_PLANT_ID}::int8 AND NOT EXISTS (SELECT 1 FROM plants q WHERE q.id = p.id + 1)
        ORDER BY p.id LIMIT 1)
    ) AS id
  ), moved AS (
    UPDATE plant_id_counter SET gap_cursor = found.id FROM found WHERE found.id IS NOT NULL RETURNING found.id
  ), inserted AS (
    INSERT INTO plants (id, ${sql.unsafe(COLUMNS)}, name_folded) SELECT id, ${parameters(sql, plant)}, ${fold(plant.name)}::text FROM moved
    ON CONFLICT (id) DO NOTHING
    RETURNING id, ${sql.unsafe(COLUMNS)}, version
  ), ${lockedLog(sql, 'cursor')}, keyed AS (
    -- The key of a keyed create, with the plant and its change number. No key can be saved
    -- meanwhile: the batch that sent this create here found none, and this process holds it in flight.
    INSERT INTO idempotency_keys (owner, key, request, status, plant_id, version, expires_at, change_seq)
    SELECT ${claim?.owner ?? null}, ${claim?.key ?? null}, ${claim?.request ?? null}, 201, id, version,
           now() + make_interval(secs => ${idempotencyTtlSeconds}::int4), (SELECT l.last_seq + 1 FROM log l)
      FROM inserted WHERE ${claim !== undefined}
    ON CONFLICT (owner, key) DO UPDATE SET
      request = EXCLUDED.request, status = EXCLUDED.status, plant_id = EXCLUDED.plant_id,
      version = EXCLUDED.version, expires_at = EXCLUDED.expires_at, change_seq = EXCLUDED.change_seq
  ), counter AS (
    SELECT clock_timestamp() AS at
  ), stored AS (
    SELECT * FROM inserted
  ), ${outbox(sql, sql`${saved?.traceparent ?? null}::text AS trace_parent, ${saved?.tracestate ?? null}::text AS trace_state FROM stored s`)}
  SELECT (SELECT id::text FROM found) AS candidate, (SELECT id::text FROM inserted) AS id,
         (SELECT version::text FROM inserted) AS version,
         (SELECT (l.last_seq + 1)::float8 FROM log l WHERE EXISTS (SELECT 1 FROM inserted)) AS change_seq`;
};
