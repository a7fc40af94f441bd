import type Database from 'better-sqlite3';
import type { PageQuery, PlantFilter } from '../../ports/plant-store.js';
import { directScanRows } from '../direct-scan.js';
import { plantColumnList } from '../plant-columns.js';

/** Every plant column (plant-columns.ts) of `plants p`, as a page selects them. */
const PLANT_COLUMNS_P = plantColumnList('p');

/** The trigram index finds only texts of at least three characters. */
const INDEXED_LENGTH = 3;

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** `q` as an FTS5 phrase: one quoted string (its quotes doubled), so no character is query syntax. */
const phraseOf = (q: string): string => `"${q.replaceAll('"', '""')}"`;

type Params = Record<string, string | number>;

interface Statement {
  readonly sql: string;
  readonly params: Params;
}

/** The term of the tag, when there is one, on `plants p` (its parameter added to `params`). */
const tagTerms = (tag: string | undefined, params: Params): string[] => {
  if (tag === undefined) return [];
  params['tag'] = tag;
  return ['p.tag = @tag'];
};

/** The WHERE terms of the page's tag and starting place, on `plants p` (ids on `idColumn`). */
const placeAndFilter = (query: PageQuery, idColumn: string): { terms: string[]; params: Params } => {
  const params: Params = { limit: query.limit };
  const terms = tagTerms(query.tag, params);
  const { order } = query;
  const cmp = order.descending ? '<' : '>';
  if (order.by === 'id' && order.after !== undefined) {
    terms.push(`${idColumn} ${cmp} @afterId`);
    params['afterId'] = order.after;
  } else if (order.by === 'name' && order.after !== undefined) {
    terms.push(`(p.name_folded, p.id) ${cmp} (@afterFolded, @afterId)`);
    params['afterFolded'] = order.after.folded;
    params['afterId'] = order.after.id;
  }
  return { terms, params };
};

const orderBy = (query: PageQuery, idColumn: string): string => {
  const { by, descending } = query.order;
  const dir = descending ? ' DESC' : '';
  return by === 'id' ? `${idColumn}${dir}` : `p.name_folded${dir}, p.id${dir}`;
};

const where = (terms: readonly string[]): string => (terms.length === 0 ? '' : `WHERE ${terms.join(' AND ')}`);

/** A page without `q`: one seek into the primary key, plants_tag or plants_name, and a short walk. */
const plainPage = (query: PageQuery): Statement => {
  const { terms, params } = placeAndFilter(query, 'p.id');
  return {
    sql: `SELECT p.id, ${PLANT_COLUMNS_P} FROM plants p ${where(terms)} ORDER BY ${orderBy(query, 'p.id')} LIMIT @limit`,
    params,
  };
};

/** A `q` page that examines the plants in order, at most `examined` of them (undefined: all). */
const scannedPage = (query: PageQuery, q: string, examined: number | undefined): Statement => {
  const { terms, params } = placeAndFilter(query, 'p.id');
  params['q'] = q;
  if (examined === undefined) {
    return {
      sql: `SELECT p.id, ${PLANT_COLUMNS_P} FROM plants p ${where([...terms, 'instr(p.name_folded, @q) > 0'])}
            ORDER BY ${orderBy(query, 'p.id')} LIMIT @limit`,
      params,
    };
  }
  params['examined'] = examined;
  return {
    sql: `SELECT p.id, ${PLANT_COLUMNS_P} FROM (
            SELECT p.id, ${PLANT_COLUMNS_P}, p.name_folded FROM plants p ${where(terms)}
             ORDER BY ${orderBy(query, 'p.id')} LIMIT @examined
          ) p WHERE instr(p.name_folded, @q) > 0 ORDER BY ${orderBy(query, 'p.id')} LIMIT @limit`,
    params,
  };
};

/**
 * The plants written since the search index was last brought up to date (search-index.ts), as
 * the index's matches would be: each checked against its folded name, on `plants p`.
 */
const pendingMatches = (query: PageQuery): { sql: string; params: Params } => {
  const { terms, params } = placeAndFilter(query, 'p.id');
  return {
    sql: `SELECT p.id, ${PLANT_COLUMNS_P}, p.name_folded FROM plants_search_pending s CROSS JOIN plants p ON p.id = s.id
          ${where([...terms, 'instr(p.name_folded, @q) > 0'])}
          ORDER BY ${orderBy(query, 'p.id')} LIMIT @limit`,
    params,
  };
};

/**
 * A `q` page through the search index, and the pending plants beside it (never in both): each
 * side gives at most a page in the page's order, and the page is the first of the two merged.
 * In id order the index is read in id order from the starting place and stops once the page is
 * full; in name order every match is read, placed and sorted. `instr` checks each match against
 * the folded name itself.
 */
const indexedPage = (query: PageQuery, q: string): Statement => {
  const pending = pendingMatches(query);
  let indexed: string;
  let params: Params;
  if (query.order.by === 'id') {
    const placed = placeAndFilter(query, 'plants_search.rowid');
    params = placed.params;
    indexed = `SELECT p.id, ${PLANT_COLUMNS_P}, p.name_folded FROM plants_search JOIN plants p ON p.id = plants_search.rowid
            ${where(['plants_search MATCH @phrase', ...placed.terms, 'instr(p.name_folded, @q) > 0'])}
            ORDER BY ${orderBy(query, 'plants_search.rowid')} LIMIT @limit`;
  } else {
    // CROSS JOIN keeps the index first (SQLite does not reorder it): walking plants_name and
    // probing the matches would read the rest of the order when the matches sort before the page.
    const placed = placeAndFilter(query, 'p.id');
    params = placed.params;
    indexed = `SELECT p.id, ${PLANT_COLUMNS_P}, p.name_folded FROM plants_search CROSS JOIN plants p ON p.id = plants_search.rowid
          ${where(['plants_search MATCH @phrase', ...placed.terms, 'instr(p.name_folded, @q) > 0'])}
          ORDER BY ${orderBy(query, 'p.id')} LIMIT @limit`;
  }
  Object.assign(params, pending.params, { q, phrase: phraseOf(q) });
  return {
    sql: `SELECT p.id, ${PLANT_COLUMNS_P} FROM (
            SELECT * FROM (${indexed}) UNION ALL SELECT * FROM (${pending.sql})
          ) p ORDER BY ${orderBy(query, 'p.id')} LIMIT @limit`,
    params,
  };
};

/** How many plants the filter keeps: the tag through plants_tag, a `q` through the index when it can. */
const countOf = (filter: PlantFilter): Statement => {
  const params: Params = {};
  const terms = tagTerms(filter.tag, params);
  if (filter.q === undefined) return { sql: `SELECT count(*) FROM plants p ${where(terms)}`, params };
  params['q'] = filter.q;
  terms.push('instr(p.name_folded, @q) > 0');
  if (codePoints(filter.q) < INDEXED_LENGTH) return { sql: `SELECT count(*) FROM plants p ${where(terms)}`, params };
  params['phrase'] = phraseOf(filter.q);
  return {
    sql: `SELECT (SELECT count(*) FROM plants_search JOIN plants p ON p.id = plants_search.rowid
          ${where(['plants_search MATCH @phrase', ...terms])})
          + (SELECT count(*) FROM plants_search_pending s CROSS JOIN plants p ON p.id = s.id ${where(terms)})`,
    params,
  };
};

/** Reads pages and counts of plants (rows `{id, name, tag}`), each statement prepared once. */
export const createPlantPages = (db: Database.Database) => {
  const statements = new Map<string, Database.Statement>();
  const run = ({ sql, params }: Statement, mode: 'all' | 'count'): unknown => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (mode === 'count') statement.pluck();
      statements.set(sql, statement);
    }
    return mode === 'all' ? statement.all(params) : statement.get(params);
  };
  return {
    list: (query: PageQuery): unknown[] => {
      const { q } = query;
      if (q === undefined) return run(plainPage(query), 'all') as unknown[];
      if (codePoints(q) < INDEXED_LENGTH) return run(scannedPage(query, q, undefined), 'all') as unknown[];
      const direct = run(scannedPage(query, q, directScanRows(query.limit)), 'all') as unknown[];
      return direct.length === query.limit ? direct : (run(indexedPage(query, q), 'all') as unknown[]);
    },
    count: (filter: PlantFilter): number => run(countOf(filter), 'count') as number,
  };
};
