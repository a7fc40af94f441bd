import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type postgres from 'postgres';
import type { ChangeLog } from '../../ports/change-log.js';
import { changesAbove, changesAboveTagged, changeStateFromRow, countFromRow } from '../store-rows.js';
import type { PostgresGate } from './gate.js';
import { plantColumnList } from '../plant-columns.js';

/** Every plant column (plant-columns.ts), as a change keeps the plant after it, and the tag it left (migration 11). */
const COLUMNS = `${plantColumnList()}, left_tag`;

/** A change as read (`p`: plant_changes): numbers as float8, JS numbers. */
const SELECTED = `p.seq::float8 AS seq, p.type, p.plant_id::float8 AS plant_id, ${plantColumnList('p')}, p.left_tag,
  p.version::float8 AS version, p.at::float8 AS at`;

/**
 * The change log in PostgreSQL (migration 8: statement triggers on `plants` fill it, numbered
 * under the state row's lock, so in commit order; migration 11: the left tags and the indexes by
 * tag). A read is one statement: the state and the
 * changes above a number in one snapshot. (`ORDER BY plant_changes.seq`, not `seq`: that would be
 * the float8 the select names so, which no index holds in order, and a page from far behind would
 * sort every change above it.)
 */
export const createPostgresChangeLog = (sql: postgres.Sql, gate: PostgresGate): ChangeLog => ({
  above: (since, limit, expiredBefore) => async () =>
    pipe(
      await gate.run(
        'read changes',
        () => sql`
          SELECT s.last_seq::float8 AS last_seq, s.forgotten_through::float8 AS forgotten_through, c.*
            FROM plant_change_state s LEFT JOIN LATERAL (
              SELECT seq::float8 AS seq, type, plant_id::float8 AS plant_id, ${sql.unsafe(COLUMNS)}, version::float8 AS version,
                     at::float8 AS at
                FROM plant_changes WHERE seq > ${since}::int8 ORDER BY plant_changes.seq LIMIT ${limit}::int4
            ) c ON true`,
      ),
      E.chainW((rows) =>
        pipe(
          changeStateFromRow(rows[0]),
          E.chain((state) =>
            changesAbove(
              since,
              state,
              rows.filter((r) => r['seq'] !== null),
              expiredBefore,
            ),
          ),
        ),
      ),
    ),
  aboveTagged: (since, tag, limit, expiredBefore) => async () =>
    pipe(
      await gate.run(
        'read changes of a tag',
        // The first `limit` changes above `since` whose tag is it, and the first `limit` whose left
        // tag is (never both: a change's left tag differs from its tag), each a range of its partial
        // index, merged by number; with the state and the first change's time (any tag), which say
        // whether the reader is behind the retention.
        () => sql`
          SELECT s.last_seq::float8 AS last_seq, s.forgotten_through::float8 AS forgotten_through,
                 s.untagged_through::float8 AS untagged_through,
                 (SELECT at::float8 FROM plant_changes WHERE seq > ${since}::int8 ORDER BY seq LIMIT 1) AS first_at, c.*
            FROM plant_change_state s LEFT JOIN LATERAL (
              (SELECT ${sql.unsafe(SELECTED)} FROM plant_changes p
                WHERE p.tag = ${tag} AND p.seq > ${since}::int8 ORDER BY p.seq LIMIT ${limit}::int4)
              UNION ALL
              (SELECT ${sql.unsafe(SELECTED)} FROM plant_changes p
                WHERE p.left_tag = ${tag} AND p.seq > ${since}::int8 ORDER BY p.seq LIMIT ${limit}::int4)
              ORDER BY seq LIMIT ${limit}::int4
            ) c ON true`,
      ),
      E.chainW((rows) =>
        pipe(
          changeStateFromRow(rows[0]),
          E.chain((state) =>
            changesAboveTagged(
              since,
              state,
              rows[0]?.['first_at'],
              rows.filter((r) => r['seq'] !== null),
              expiredBefore,
            ),
          ),
        ),
      ),
    ),
  newest: () => async () =>
    pipe(
      await gate.run('newest change', () => sql`SELECT last_seq::float8 AS last_seq FROM plant_change_state`),
      E.chainW((rows) =>
        pipe(
          changeStateFromRow(rows[0]),
          E.map((s) => s.lastSeq),
        ),
      ),
    ),
  forget: (before, limit) => async () =>
    pipe(
      await gate.run(
        'forget changes',
        // The oldest changes committed before a time, at most `limit`; the state remembers the
        // newest number forgotten (a reader behind it has missed changes: 410). The state row is
        // locked like a writer's, after the delete, for a moment only.
        () => sql`
          WITH gone AS (
            DELETE FROM plant_changes WHERE seq IN (
              SELECT seq FROM plant_changes WHERE at < ${before}::int8 ORDER BY seq LIMIT ${limit}::int4)
            RETURNING seq
          ), noted AS (
            UPDATE plant_change_state SET forgotten_through = greatest(forgotten_through, (SELECT max(seq) FROM gone))
             WHERE EXISTS (SELECT 1 FROM gone)
          )
          SELECT count(*)::int4 AS n FROM gone`,
      ),
      E.chain((rows) => countFromRow(rows[0])),
    ),
});
