import {
  ChangePositionFromString,
  DEFAULT_PAGE_LIMIT,
  formatErrors,
  hasPreference,
  isNameSort,
  ListCursor,
  ListQuery,
  PageCursor,
  PageLimit,
  PlantSort,
  PlantTag,
  SearchText,
  type ChangePosition,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { UnexpectedResponseError, ValidationError } from './client-error.js';
import { findLink } from './link-header.js';
import type { ListPlantsQuery, NextPageQuery } from './plants-api.js';
import type { Exchange } from './transport.js';

/** The query parameters of `GET /plants`, by name, as they are sent. */
export type ListParams = Readonly<Record<string, string>>;

/**
 * The query string of `list(query)`, in the order limit, sort, after, cursor, q, tag. With
 * `validate`, each field is checked with its domain codec and then the whole with `ListQuery`
 * (which refuses `after` with a name order and `cursor` with an id order), so a bad query is
 * refused with every failing field named and nothing is sent.
 */
export const listParams = (query: ListPlantsQuery<PlantSort>, validate: boolean): ListParams => {
  const problems: string[] = [];
  const params: Record<string, string> = {};
  const add = <A>(name: keyof ListPlantsQuery<PlantSort>, codec: t.Type<A, unknown, unknown>): void => {
    const value = query[name];
    if (value === undefined) return;
    if (validate) {
      const decoded = codec.decode(value);
      if (E.isLeft(decoded)) problems.push(...formatErrors(decoded.left, name));
    }
    params[name] = String(value);
  };
  add('limit', PageLimit);
  add('sort', PlantSort);
  add('after', ListCursor);
  add('cursor', PageCursor);
  add('q', SearchText);
  add('tag', PlantTag);
  if (validate && problems.length === 0) {
    const combined = ListQuery.decode(params);
    if (E.isLeft(combined)) problems.push(...formatErrors(combined.left));
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return params;
};

/** A query string as `ListQuery` reads it: a repeated parameter arrives as an array. */
const paramsRecord = (params: URLSearchParams): Record<string, string | string[]> => {
  const record: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    record[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return record;
};

const describeFilter = (name: string, value: string | undefined): string =>
  value === undefined ? `no ${name}` : `${name}=${JSON.stringify(value)}`;

/**
 * The query of the next page, read from the `Link: <…>; rel="next"` of the answer to `sent`;
 * undefined when there is none. Whatever parameters the link carries are taken as they are, after
 * the domain's `ListQuery` has checked them; the link must keep the filters and the order that
 * were asked for, since following it would otherwise list other plants than the caller meant.
 */
export const nextPage = (exchange: Exchange, sent: ListParams): NextPageQuery<PlantSort> | undefined => {
  const link = findLink(exchange.headers.link, 'next', exchange.url);
  if (link === undefined) return undefined;
  const target = `${link.pathname}${link.search}`;
  const unexpected = (problem: string) =>
    new UnexpectedResponseError([`the Link rel="next" target ${target} ${problem}`], {
      ...exchange.details,
      status: exchange.status,
    });
  const decoded = ListQuery.decode(paramsRecord(link.searchParams));
  if (E.isLeft(decoded)) throw unexpected(`is not a page of this list: ${formatErrors(decoded.left).join('; ')}`);
  const { sort, after, cursor, q, tag } = decoded.right;
  const nameOrder = isNameSort(sort);
  if (nameOrder ? cursor === undefined : !link.searchParams.has('after')) {
    throw unexpected(`has no ${nameOrder ? 'cursor' : 'after'} to continue from`);
  }
  for (const [name, kept] of [
    ['tag', tag],
    ['q', q],
  ] as const) {
    if (kept !== sent[name]) throw unexpected(`does not keep the filter ${describeFilter(name, sent[name])}`);
  }
  const sentSort = sent['sort'] ?? 'id';
  if (sort !== sentSort) throw unexpected(`does not keep the order sort=${sentSort}`);
  // A link without limit keeps the page size that was asked for.
  const limit = link.searchParams.has('limit') ? decoded.right.limit : Number(sent['limit'] ?? DEFAULT_PAGE_LIMIT);
  const filters = { ...(q === undefined ? {} : { q }), ...(tag === undefined ? {} : { tag }) };
  if (nameOrder) return { limit, sort, cursor: cursor as string, ...filters };
  return { limit, ...(sort === 'id' ? {} : { sort }), after, ...filters };
};

const header = (exchange: Exchange, name: string): string | undefined => {
  const value = exchange.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/**
 * The `X-Total-Count` of an answer to `Prefer: count=exact`. A server that did not apply the
 * preference (it says so with `Preference-Applied`) or sent no valid count is refused: a missing
 * total must not pass for a count of nothing.
 */
export const totalCount = (exchange: Exchange): number => {
  const unexpected = (problem: string) =>
    new UnexpectedResponseError([problem], { ...exchange.details, status: exchange.status });
  if (!hasPreference(header(exchange, 'preference-applied'), 'count', 'exact')) {
    throw unexpected(
      'the server did not apply Prefer: count=exact (its answer has no Preference-Applied: count=exact), so it gave no total',
    );
  }
  const raw = header(exchange, 'x-total-count');
  if (raw === undefined) throw unexpected('the answer applied Prefer: count=exact but has no X-Total-Count header');
  const total = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(total)) {
    throw unexpected(`the X-Total-Count header ${JSON.stringify(raw)} is not a non-negative integer`);
  }
  return total;
};

/**
 * The `X-Change-Seq` of a list page: the newest change the page's snapshot includes. Undefined
 * when the server sent none (one older than the change feed); a malformed value is refused, since
 * a mirror that followed the changes from a wrong number would silently miss some.
 */
export const changeSeqOf = (exchange: Exchange): ChangePosition | undefined => {
  const raw = header(exchange, 'x-change-seq');
  if (raw === undefined) return undefined;
  const decoded = ChangePositionFromString.decode(raw.trim());
  if (E.isLeft(decoded)) {
    throw new UnexpectedResponseError([`the X-Change-Seq header ${JSON.stringify(raw)} is not a change number`], {
      ...exchange.details,
      status: exchange.status,
    });
  }
  return decoded.right;
};

/**
 * Why `next` does not move on from `previous` (undefined when it does): `all` stops rather than
 * loop for ever on a server that hands out the same page again.
 */
export const advanceProblem = (
  previous: NextPageQuery<PlantSort> | undefined,
  next: NextPageQuery<PlantSort>,
): string | undefined => {
  if ('cursor' in next) {
    return previous !== undefined && 'cursor' in previous && previous.cursor === next.cursor
      ? 'the same cursor again'
      : undefined;
  }
  const before = previous !== undefined && 'after' in previous ? previous.after : 0;
  if (next.after === before) return `after=${next.after} again`;
  const forward = next.sort === '-id' ? before === 0 || next.after < before : next.after > before;
  return forward && next.after !== 0 ? undefined : `after=${next.after} following after=${before}`;
};
