import * as t from 'io-ts';
import { describeValue } from './describe-value.js';
import { textCodec } from './text.js';

/**
 * The one folding of names and search text: NFKC, then ECMAScript's locale-independent
 * `toLowerCase`. Both stores keep `fold(name)` beside the name (written by the server, never by
 * a database function), so search and name order are exactly alike on every store.
 */
export const fold = (s: string): string => s.normalize('NFKC').toLowerCase();

/** A UTF-16 code unit moved so that code units compare in code-point order (surrogates above U+FFFF's BMP). */
const pointOrder = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);

/**
 * Code-point order (UTF-8 byte order: how SQLite's BINARY and PostgreSQL's `COLLATE "C"`
 * compare), not the UTF-16 code-unit order of `<`: "\u{1F33F}" sorts after "\uFFFD" here.
 */
export const compareCodePoints = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return pointOrder(x) - pointOrder(y);
  }
  return a.length - b.length;
};

export const MAX_SEARCH_LENGTH = 100;

export interface SearchTextBrand {
  readonly SearchText: unique symbol;
}
/** `q`: the tag rules (1–100 characters, at least one non-whitespace, no control characters). */
export const SearchText = textCodec<SearchTextBrand>('SearchText', MAX_SEARCH_LENGTH);
export type SearchText = t.TypeOf<typeof SearchText>;

export const PLANT_SORTS = ['id', '-id', 'name', '-name'] as const;
/** The orders of a list: by id or by folded name, `-` for descending. */
export type PlantSort = (typeof PLANT_SORTS)[number];

const isPlantSort = (u: unknown): u is PlantSort =>
  typeof u === 'string' && (PLANT_SORTS as readonly string[]).includes(u);

export const PlantSort = new t.Type<PlantSort, string, unknown>(
  'PlantSort',
  isPlantSort,
  (u, c) =>
    isPlantSort(u)
      ? t.success(u)
      : t.failure(u, c, `expected one of ${PLANT_SORTS.join(', ')}, got ${describeValue(u)}`),
  String,
);

/** Whether `sort` orders by name (its pages continue with `cursor`, not `after`). */
export const isNameSort = (sort: PlantSort): sort is 'name' | '-name' => sort === 'name' || sort === '-name';

export const MAX_PAGE_CURSOR_LENGTH = 2048;
/** The page cursor's alphabet: RFC 3986's unreserved characters. */
export const PAGE_CURSOR_PATTERN = `^[A-Za-z0-9._~-]{1,${MAX_PAGE_CURSOR_LENGTH}}$`;
const pageCursorPattern = new RegExp(PAGE_CURSOR_PATTERN);

export interface PageCursorBrand {
  readonly PageCursor: unique symbol;
}
/**
 * `cursor` as the client sees it: opaque, 1–2048 unreserved characters, taken from the `Link`
 * of the previous page. What it holds is the server's business (it checks it further).
 */
export const PageCursor = t.brand(
  t.string,
  (s): s is t.Branded<string, PageCursorBrand> => pageCursorPattern.test(s),
  'PageCursor',
);
export type PageCursor = t.TypeOf<typeof PageCursor>;

export const PageCursorFromString = new t.Type<PageCursor, string, unknown>(
  'PageCursorFromString',
  PageCursor.is,
  (u, c) =>
    PageCursor.is(u)
      ? t.success(u)
      : t.failure(
          u,
          c,
          `expected the cursor of a previous page's Link (1–${MAX_PAGE_CURSOR_LENGTH} characters from A–Z a–z 0–9 - . _ ~), got ${describeValue(u)}`,
        ),
  String,
);
