import { fold } from '@plant-store/domain';
import type postgres from 'postgres';
import type { PageQuery, PlantFilter } from '../../ports/plant-store.js';

/** `q` as a LIKE pattern for "contains": `%`, `_` and `\` escaped, so each stands for itself. */
export const containsPattern = (q: string): string => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

type Fragment = postgres.PendingQuery<postgres.Row[]>;

const joinTerms = (sql: postgres.Sql, terms: readonly Fragment[]): Fragment =>
  terms.reduce<Fragment | undefined>(
    (all, term) => (all === undefined ? sql`WHERE ${term}` : sql`${all} AND ${term}`),
    undefined,
  ) ?? sql``;

const filterTerms = (sql: postgres.Sql, filter: PlantFilter): Fragment[] => [
  ...(filter.tag === undefined ? [] : [sql`tag = ${filter.tag}::text`]),
  ...(filter.q === undefined ? [] : [sql`name_folded LIKE ${containsPattern(filter.q)}::text`]),
];

/**
 * One keyset page. Id order seeks the primary key (or plants_tag with a tag); name order seeks
 * plants_name by the row value (name_folded, id), which compares in code-point order (the column
 * is COLLATE "C"). With `q`, the planner chooses between walking the order's index and reading
 * the pg_trgm index: a `q` that many plants match fills a page within the first rows of the
 * order, a rare one is found through the index. Plants not yet folded (NULL) stay out of name
 * order until folded.
 */
export const pageStatement = (sql: postgres.Sql, query: PageQuery): Fragment => {
  const { order } = query;
  const terms = filterTerms(sql, query);
  if (order.by === 'id') {
    if (order.after !== undefined)
      terms.push(order.descending ? sql`id < ${order.after}::int8` : sql`id > ${order.after}::int8`);
    return sql`SELECT id, name, tag FROM plants ${joinTerms(sql, terms)}
                ORDER BY ${order.descending ? sql`id DESC` : sql`id`} LIMIT ${query.limit}::int4`;
  }
  terms.push(sql`name_folded IS NOT NULL`);
  if (order.after !== undefined) {
    const { folded, id } = order.after;
    terms.push(
      order.descending
        ? sql`(name_folded, id) < (${folded}::text, ${id}::int8)`
        : sql`(name_folded, id) > (${folded}::text, ${id}::int8)`,
    );
  }
  return sql`SELECT id, name, tag FROM plants ${joinTerms(sql, terms)}
              ORDER BY ${order.descending ? sql`name_folded DESC, id DESC` : sql`name_folded, id`} LIMIT ${query.limit}::int4`;
};

/** The exact count of what the filter keeps (plants_tag serves a tag; the pg_trgm index a `q`). */
export const countStatement = (sql: postgres.Sql, filter: PlantFilter): Fragment =>
  sql`SELECT count(*)::text AS n FROM plants ${joinTerms(sql, filterTerms(sql, filter))}`;

const BACKFILL_BATCH = 5000;

/**
 * Folds the names stored without a folded name (NULL): every row before the migration that added
 * the column, and those an instance of the previous release wrote during a rolling upgrade. A
 * batch at a time, in id order, each row only if its name is still the one folded. Returns how
 * many rows it folded.
 */
export const backfillFoldedNames = async (sql: postgres.Sql): Promise<number> => {
  let folded = 0;
  for (;;) {
    const rows = await sql<{ id: string; name: string }[]>`
      SELECT id::text AS id, name FROM plants WHERE name_folded IS NULL ORDER BY id LIMIT ${BACKFILL_BATCH}::int4`;
    if (rows.length === 0) return folded;
    const input = rows.map(({ id, name }) => ({ id, name, folded: fold(name) }));
    const updated = await sql`
      UPDATE plants p SET name_folded = x.folded
        FROM jsonb_to_recordset(${sql.json(input)}::jsonb) AS x(id int8, name text, folded text)
       WHERE p.id = x.id AND p.name = x.name AND p.name_folded IS NULL`;
    folded += updated.count;
    if (rows.length < BACKFILL_BATCH && updated.count === rows.length) return folded;
  }
};
