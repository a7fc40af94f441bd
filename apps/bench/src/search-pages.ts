import { compareCodePoints, fold } from '@plant-store/domain';
import { PAGE_TAG, TAG_EVERY } from './tag-pages.js';

/**
 * The names of the tagged stores and the searched, sorted and counted pages asked of them. Plant
 * `x` is named `<NAME_WORDS[x mod NAME_WORDS.length]> <x>`: the words mix case (the first one all
 * lower-case, so that the names' own order is not their folds' order), spaces and full-width
 * letters, so the stores' folded names differ from the names, and SEARCH_TEXT is in
 * exactly one word, so a fixed share of the plants matches it whatever the store's size and every
 * search page after a cursor is full. Name order (the folded name by code point, then the id)
 * groups the plants by word and orders each group by the decimal text of the id: nothing like id
 * order, so no id index can serve it.
 */

export const NAME_WORDS: readonly string[] = [
  'aloe vera',
  'Boston Fern',
  'Calathea',
  'Dracaena',
  'Echeveria',
  'Ficus Lyrata',
  'Gardenia',
  'Hoya',
  'Ivy',
  'Jade',
  'Kentia Palm',
  'Lavender',
  'MONSTERA',
  'Ｎｅｐｅｎｔｈｅｓ',
  'Orchid',
  'Peperomia',
];

/** What the search pages ask for (`q`): in one word of NAME_WORDS only, once folded. */
export const SEARCH_TEXT = 'fern';
/** The word SEARCH_TEXT is in: plant `x` matches when `x mod NAME_WORDS.length` is this. */
const SEARCH_WORD = NAME_WORDS.findIndex((w) => fold(w).includes(SEARCH_TEXT));
/** `limit` of every page the search, sort and count scenarios ask for. */
export const SEARCH_PAGE_LIMIT = 100;

const FOLDED_WORDS = NAME_WORDS.map(fold);

/** The name plant `id` gets in a tagged store. */
export const nameOf = (id: number): string => `${NAME_WORDS[id % NAME_WORDS.length] ?? ''} ${id}`;
/** fold(nameOf(id)), built like the SQL below builds it (the unit tests hold the two equal). */
export const foldedNameOf = (id: number): string => `${FOLDED_WORDS[id % NAME_WORDS.length] ?? ''} ${id}`;

const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const wordSql = (words: readonly string[], idExpr: string): string =>
  `(CASE (${idExpr}) % ${words.length} ${words.map((w, i) => `WHEN ${i} THEN ${sqlString(w)}`).join(' ')} END) || ' ' || (${idExpr})`;

/** How a preload names plant `x`: the name and its fold, each an SQL expression (SQLite and PostgreSQL) over the id. */
export interface PreloadNames {
  readonly name: (idExpr: string) => string;
  readonly folded: (idExpr: string) => string;
}

/** The tagged stores' names (nameOf, foldedNameOf) as SQL. */
export const SEARCH_NAMES: PreloadNames = {
  name: (idExpr) => wordSql(NAME_WORDS, idExpr),
  folded: (idExpr) => wordSql(FOLDED_WORDS, idExpr),
};

/** Whether plant `id` of a tagged store matches SEARCH_TEXT. */
export const matchesSearch = (id: number): boolean => id % NAME_WORDS.length === SEARCH_WORD;

const orders = new Map<number, Int32Array>();

/**
 * The ids of a tagged store of plants `1…size` in name order (`sort=name`): the folded name by
 * code point, then the id. Kept per size (the two stores of a size share it).
 */
export const nameOrder = (size: number): Int32Array => {
  const known = orders.get(size);
  if (known !== undefined) return known;
  const keys = Array.from({ length: size + 1 }, (_, id) => foldedNameOf(id));
  const ids = Int32Array.from({ length: size }, (_, i) => i + 1).sort(
    (a, b) => compareCodePoints(keys[a] as string, keys[b] as string) || a - b,
  );
  orders.set(size, ids);
  return ids;
};

/** The ids of the page `sort` answers after its first `position` plants (from nameOrder). */
export const expectedNamePage = (
  size: number,
  sort: 'name' | '-name',
  position: number,
  limit: number = SEARCH_PAGE_LIMIT,
): readonly number[] => {
  const order = nameOrder(size);
  const ids: number[] = [];
  for (let i = position; i < Math.min(size, position + limit); i++)
    ids.push(order[sort === 'name' ? i : size - 1 - i] as number);
  return ids;
};

/** The ids of `sort=-id&after=<after>` (the plants below `after`, newest first). */
export const expectedDescPage = (after: number, limit: number = SEARCH_PAGE_LIMIT): readonly number[] =>
  Array.from({ length: Math.max(0, Math.min(limit, after - 1)) }, (_, i) => after - 1 - i);

/** The ids of `q=SEARCH_TEXT&after=<after>` (id order) in a store of plants `1…size`. */
export const expectedSearchPage = (
  size: number,
  after: number,
  limit: number = SEARCH_PAGE_LIMIT,
): readonly number[] => {
  const ids: number[] = [];
  for (let id = after + 1; id <= size && ids.length < limit; id++) if (matchesSearch(id)) ids.push(id);
  return ids;
};

/** How many plants of a tagged store of plants `1…size` carry PAGE_TAG (what its count answers). */
export const taggedCount = (size: number): number => Math.floor(size / TAG_EVERY);

/**
 * The middle of a store: where the pages the load asks for start (a quarter to three quarters
 * in), so that a plan that reads the order from its start, or all the matches, shows on the
 * larger store, and the load is not one cached page. `span` is how many ids a full page needs.
 */
export const middle = (size: number, span: number): { readonly from: number; readonly to: number } => {
  const to = Math.max(0, Math.min(Math.floor((3 * size) / 4), size - span));
  return { from: Math.min(Math.floor(size / 4), to), to };
};

/** The ids a search page spans: a full page of matches, and one more word cycle of slack. */
export const SEARCH_SPAN = (SEARCH_PAGE_LIMIT + 1) * NAME_WORDS.length;

export const descPath = (after: number): string => `/plants?sort=-id&limit=${SEARCH_PAGE_LIMIT}&after=${after}`;
export const searchPath = (after: number): string =>
  `/plants?q=${encodeURIComponent(SEARCH_TEXT)}&limit=${SEARCH_PAGE_LIMIT}&after=${after}`;
export const namePath = (sort: 'name' | '-name', cursor: string | undefined, limit = SEARCH_PAGE_LIMIT): string =>
  `/plants?sort=${sort}&limit=${limit}${cursor === undefined ? '' : `&cursor=${cursor}`}`;
/** The Prefer header of the counted scenarios. */
export const COUNT_PREFER = 'count=exact';
/** The counted pages: the whole store, and one tag (PAGE_TAG). */
export const COUNT_PATH = `/plants?limit=${SEARCH_PAGE_LIMIT}`;
export const COUNT_TAG_PATH = `/plants?tag=${encodeURIComponent(PAGE_TAG)}&limit=${SEARCH_PAGE_LIMIT}`;
