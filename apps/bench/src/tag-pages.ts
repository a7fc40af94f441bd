/**
 * The tagged stores of the `list tag 100` scenario (a tag-filtered page on a smaller and a larger
 * store). Plant `x` of a store of plants `1…size` carries the tag `tag-<x mod TAG_EVERY>`: the one
 * the scenario asks for, `tag-0`, is on one plant in TAG_EVERY and the other tags on the rest, so
 * the filter has to skip nine plants of ten.
 */

/** One plant in this many carries PAGE_TAG. */
export const TAG_EVERY = 10;
/** The tag the scenario filters on. */
export const PAGE_TAG = 'tag-0';
/** `limit` of every tag page the scenario asks for. */
export const TAG_PAGE_LIMIT = 100;

/** The tag plant `id` gets in a tagged store. */
export const tagOf = (id: number): string => `tag-${id % TAG_EVERY}`;

/** The same as tagOf, as an SQL expression (SQLite and PostgreSQL) over the integer `idExpr`. */
export const tagSql = (idExpr: string): string => `'tag-' || (${idExpr} % ${TAG_EVERY})`;

/**
 * The largest `after` cursor a request of the scenario draws: past it, fewer than a full page of
 * PAGE_TAG remains in a store of plants `1…size`. Every request asks for a page after a cursor
 * drawn from `0…lastCursor(size)`, so the load is not one cached page and every page is full.
 */
export const lastCursor = (size: number): number => size - TAG_PAGE_LIMIT * TAG_EVERY;

/** The smallest store the scenario can page through (a full page after some cursor). */
export const MIN_TAGGED_SIZE = 2 * TAG_PAGE_LIMIT * TAG_EVERY;

/** The ids `GET /plants?tag=PAGE_TAG&limit=…&after=…` must answer in a tagged store of plants `1…size`. */
export const expectedTagPage = (size: number, after: number, limit: number = TAG_PAGE_LIMIT): readonly number[] => {
  const ids: number[] = [];
  for (let id = (Math.floor(after / TAG_EVERY) + 1) * TAG_EVERY; id <= size && ids.length < limit; id += TAG_EVERY)
    ids.push(id);
  return ids;
};

/** The request path of a tag page, but for the cursor: `<prefix><after>`. */
export const tagPagePrefix = (tag: string): string =>
  `/plants?tag=${encodeURIComponent(tag)}&limit=${TAG_PAGE_LIMIT}&after=`;
