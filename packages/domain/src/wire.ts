import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describeValue, MAX_NAMED_UNKNOWN } from './describe-value.js';
import { PlantTag } from './plant.js';
import { ListCursorFromString, type ListCursor } from './plant-id.js';
import { isNameSort, PageCursorFromString, PlantSort, SearchText, type PageCursor } from './search.js';
import { struct } from './struct.js';

/** `{"error": <HTTP status>, "message": <text>}`: the body of every error response. */
export const ErrorBody = struct(
  'ErrorBody',
  {
    error: t.refinement(t.Int, (n) => n >= 100 && n <= 599, 'HttpStatus'),
    message: t.string,
  },
  {},
  'strip',
);
export type ErrorBody = t.TypeOf<typeof ErrorBody>;

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;

export interface PageLimitBrand {
  readonly PageLimit: unique symbol;
}
export const PageLimit = t.brand(
  t.Int,
  (n): n is t.Branded<t.Int, PageLimitBrand> => n >= 1 && n <= MAX_PAGE_LIMIT,
  'PageLimit',
);
export type PageLimit = t.TypeOf<typeof PageLimit>;

/** `limit` as it arrives in a query string: canonical decimal digits 1…1000. */
export const PageLimitFromString = new t.Type<PageLimit, string, unknown>(
  'PageLimitFromString',
  PageLimit.is,
  (u, c) =>
    typeof u === 'string' && /^[1-9][0-9]{0,3}$/.test(u) && Number(u) <= MAX_PAGE_LIMIT
      ? t.success(Number(u) as PageLimit)
      : t.failure(u, c, `expected an integer from 1 to ${MAX_PAGE_LIMIT}, got ${describeValue(u)}`),
  String,
);

export interface ListQuery {
  readonly limit: PageLimit;
  /** Where an id-ordered page starts (0: the first plant of the order); always 0 with a name order. */
  readonly after: ListCursor;
  /** Only plants whose tag equals this exactly (code point for code point). */
  readonly tag?: PlantTag;
  /** Only plants whose folded name contains the folded text. */
  readonly q?: SearchText;
  readonly sort: PlantSort;
  /** Where a name-ordered page starts: the cursor of the previous page's Link (absent: the first). */
  readonly cursor?: PageCursor;
}
export type ListQueryInput = Readonly<Record<string, string | readonly string[] | undefined>>;

const listParams = {
  limit: PageLimitFromString,
  after: ListCursorFromString,
  tag: PlantTag,
  q: SearchText,
  sort: PlantSort,
  cursor: PageCursorFromString,
} as const;

/**
 * Decodes each parameter of a parsed query string (a string each, a repeated one arriving as an
 * array) with its codec in `params`, into `output`: an unknown parameter is refused by name (the
 * first few, then how many more), a repeated one too. Returns the problems and the parameters given.
 */
export const decodeQueryParams = (
  params: Readonly<Record<string, t.Decoder<unknown, unknown>>>,
  input: ListQueryInput,
  c: t.Context,
  output: object,
): { readonly errors: t.ValidationError[]; readonly given: ReadonlySet<string> } => {
  const allowed = `allowed: ${Object.keys(params).join(', ')}`;
  const errors: t.ValidationError[] = [];
  const given = new Set<string>();
  let strangers = 0;
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const context = t.appendContext(c, key, t.string, value);
    const codec = Object.hasOwn(params, key) ? params[key] : undefined;
    if (codec === undefined) {
      if (++strangers <= MAX_NAMED_UNKNOWN)
        errors.push({ value, context, message: `unknown query parameter (${allowed})` });
    } else if (typeof value !== 'string') {
      errors.push({ value, context, message: 'expected a single value, got the parameter repeated' });
    } else {
      const result = codec.validate(value, context);
      if (E.isLeft(result)) errors.push(...result.left);
      else {
        (output as Record<string, unknown>)[key] = result.right;
        given.add(key);
      }
    }
  }
  if (strangers > MAX_NAMED_UNKNOWN) {
    errors.push({
      value: input,
      context: c,
      message: `and ${strangers - MAX_NAMED_UNKNOWN} more unknown query parameters`,
    });
  }
  return { errors, given };
};

type MutableListQuery = { -readonly [K in keyof ListQuery]: ListQuery[K] };

/**
 * The query of `GET /plants` as a parsed query string (each parameter a string, a repeated one
 * arriving as an array). Absent `limit`, `after` and `sort` take their defaults, an absent `tag`
 * or `q` filters nothing; a repeated or unknown parameter is rejected by name, and so are the
 * pairs that do not go together (`after` with a name order, `cursor` with an id order).
 */
export const ListQuery = new t.Type<ListQuery, Record<string, string>, unknown>(
  'ListQuery',
  (u): u is ListQuery =>
    typeof u === 'object' &&
    u !== null &&
    PageLimit.is((u as ListQuery).limit) &&
    ListCursorFromString.is((u as ListQuery).after) &&
    PlantSort.is((u as ListQuery).sort),
  (u, c) => {
    if (typeof u !== 'object' || u === null) return t.failure(u, c, `expected a query string, got ${describeValue(u)}`);
    const input = u as ListQueryInput;
    const output: MutableListQuery = { limit: DEFAULT_PAGE_LIMIT as PageLimit, after: 0 as ListCursor, sort: 'id' };
    const { errors, given } = decodeQueryParams(listParams, input, c, output);
    // A sort that was refused says nothing of which pairs go together: only its own problem is named.
    if (input['sort'] === undefined || given.has('sort')) {
      const nameOrder = isNameSort(output.sort);
      if (nameOrder && given.has('after')) {
        errors.push({
          value: input['after'],
          context: t.appendContext(c, 'after', t.string, input['after']),
          message: `not with sort=${output.sort} (a name order continues with the cursor of the previous page's Link)`,
        });
      }
      if (!nameOrder && given.has('cursor')) {
        errors.push({
          value: input['cursor'],
          context: t.appendContext(c, 'cursor', t.string, input['cursor']),
          message: `not with sort=${output.sort} (an id order continues with after)`,
        });
      }
    }
    return errors.length > 0 ? t.failures(errors) : t.success(output);
  },
  ({ limit, after, tag, q, sort, cursor }) => {
    const encoded: Record<string, string> = { limit: String(limit) };
    if (!isNameSort(sort)) encoded['after'] = String(after);
    if (sort !== 'id') encoded['sort'] = sort;
    if (tag !== undefined) encoded['tag'] = tag;
    if (q !== undefined) encoded['q'] = q;
    if (cursor !== undefined) encoded['cursor'] = cursor;
    return encoded;
  },
);
