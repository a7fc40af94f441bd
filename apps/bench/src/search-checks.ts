import { PlantPage, type Plant } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type { ScenarioKind } from './scenarios.js';
import {
  COUNT_PATH,
  COUNT_PREFER,
  COUNT_TAG_PATH,
  descPath,
  expectedDescPage,
  expectedNamePage,
  expectedSearchPage,
  middle,
  namePath,
  nameOf,
  SEARCH_PAGE_LIMIT,
  SEARCH_SPAN,
  SEARCH_TEXT,
  searchPath,
  taggedCount,
} from './search-pages.js';
import { tagOf } from './tag-pages.js';

/**
 * Checks, before any load, that a tagged store (src/search-pages.ts) answers the searched, sorted
 * and counted pages exactly, and gathers the request paths each of those scenarios draws from:
 * a fast wrong answer must not pass for a fast right one.
 */

/** The request paths of each page scenario, drawn at random by every request of its load. */
export type PagePools = Partial<Record<ScenarioKind, readonly string[]>>;

/** How many paths a pool of `-id` or `q` pages holds (cursors drawn across the middle of the store). */
const POOL_SIZE = 256;
/** How many name cursors a pool aims at (a name cursor can only be had by paging to it). */
const NAME_CURSORS = 64;
/**
 * How long paging to the middle of a store in one name order may take: past it the pool keeps the
 * cursors had so far (and says so), rather than the bench waiting on a server that scans.
 */
const NAME_WALK_LIMIT_MS = 90_000;

interface Answer {
  readonly status: number;
  readonly ids: readonly number[] | undefined;
  readonly headers: Headers;
}

const get = async (base: string, token: string, path: string, prefer?: string): Promise<Answer> => {
  const res = await fetch(`${base}${path}`, {
    headers: { authorization: `Bearer ${token}`, ...(prefer === undefined ? {} : { prefer }) },
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(
      `smoke check: GET ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 300)}`,
    );
  }
  const page = PlantPage.decode(body);
  // Every plant must be the one the preload wrote under its id: its name and tag too.
  const whole = (p: Plant): boolean => p.name === nameOf(p.id) && (p.tag ?? null) === tagOf(p.id);
  return {
    status: res.status,
    ids: E.isRight(page) && page.right.every(whole) ? page.right.map((p) => p.id) : undefined,
    headers: res.headers,
  };
};

const span = (ids: readonly number[]): string =>
  ids.length === 0 ? 'no plants' : `the ${ids.length} plants from ${ids[0]} to ${ids.at(-1)}`;

const expectPage = (path: string, answer: Answer, expected: readonly number[]): void => {
  if (answer.status !== 200 || answer.ids === undefined || answer.ids.join(',') !== expected.join(',')) {
    throw new Error(
      `smoke check: GET ${path} answered ${answer.status} without ${span(expected)}, each with its preloaded name and tag` +
        (answer.ids === undefined ? '' : ` (got ${span(answer.ids)})`),
    );
  }
};

/** The next page's query, from `Link: <…>; rel="next"`. */
const nextLink = (base: string, path: string, answer: Answer): URLSearchParams => {
  const link = answer.headers.get('link') ?? '';
  const target = /<([^>]*)>\s*;\s*rel="next"/.exec(link)?.[1];
  if (target === undefined)
    throw new Error(`smoke check: GET ${path}: a full page without a next Link: ${JSON.stringify(link)}`);
  return new URL(target, base).searchParams;
};

/** Paths across the middle of a store, `after` drawn at random for each. */
const drawn = (from: number, to: number, path: (after: number) => string): readonly string[] =>
  Array.from({ length: POOL_SIZE }, () => path(from + Math.floor(Math.random() * (to - from + 1))));

/** Checks the first, the last and a few drawn pages of a pool against `expected` (by the pool's `after`). */
const checkDrawn = async (
  base: string,
  token: string,
  pool: readonly string[],
  expected: (after: number) => readonly number[],
  link: (after: number, last: number) => Readonly<Record<string, string>>,
): Promise<void> => {
  for (const path of [pool[0], pool.at(-1), pool[Math.floor(pool.length / 2)]]) {
    if (path === undefined) continue;
    const after = Number(new URL(path, base).searchParams.get('after'));
    const answer = await get(base, token, path);
    const ids = expected(after);
    expectPage(path, answer, ids);
    const next = nextLink(base, path, answer);
    for (const [name, value] of Object.entries(link(after, ids.at(-1) ?? 0))) {
      if (next.get(name) !== value)
        throw new Error(
          `smoke check: GET ${path}: the next page's Link has ${name}=${String(next.get(name))}, not ${value}`,
        );
    }
  }
};

/** `sort=-id` pages after ids across the middle of the store. */
const descPool = async (base: string, token: string, size: number): Promise<readonly string[]> => {
  const { from, to } = middle(size, 0);
  const pool = drawn(Math.max(from, SEARCH_PAGE_LIMIT + 1), Math.max(to, SEARCH_PAGE_LIMIT + 1), descPath);
  await checkDrawn(
    base,
    token,
    pool,
    (after) => expectedDescPage(after),
    (_, last) => ({
      sort: '-id',
      after: String(last),
    }),
  );
  return pool;
};

/** `q` pages (id order) after ids across the middle of the store, each full. */
const searchPool = async (base: string, token: string, size: number): Promise<readonly string[]> => {
  const { from, to } = middle(size, SEARCH_SPAN);
  const pool = drawn(from, to, searchPath);
  await checkDrawn(
    base,
    token,
    pool,
    (after) => expectedSearchPage(size, after),
    (_, last) => ({ q: SEARCH_TEXT, after: String(last) }),
  );
  return pool;
};

/**
 * Pages through a name order from its start to the middle of the store, each page checked against
 * the order the names make, and keeps the cursors met on the way from a quarter in: the pool of
 * the name scenario. The cursor is opaque, so the only way to one in the middle is to page there.
 */
const namePool = async (
  base: string,
  token: string,
  size: number,
  sort: 'name' | '-name',
  warn: (line: string) => void,
): Promise<readonly string[]> => {
  const step = Math.max(10, Math.min(1000, Math.floor(size / 4 / NAME_CURSORS)));
  const started = Date.now();
  const cursors: { readonly cursor: string; readonly position: number }[] = [];
  let cursor: string | undefined;
  let position = 0;
  while (position + step <= size / 2) {
    const path = namePath(sort, cursor, step);
    const answer = await get(base, token, path);
    expectPage(path, answer, expectedNamePage(size, sort, position, step));
    const next = nextLink(base, path, answer);
    const nextCursor = next.get('cursor');
    if (nextCursor === null || next.get('sort') !== sort || next.has('after'))
      throw new Error(`smoke check: GET ${path}: the next page's Link lacks sort=${sort} and a cursor (or has after)`);
    cursor = nextCursor;
    position += step;
    if (position >= size / 4) cursors.push({ cursor, position });
    if (Date.now() - started > NAME_WALK_LIMIT_MS) {
      warn(
        `sort=${sort}: paging to the middle of ${size} plants took over ${NAME_WALK_LIMIT_MS / 1000} s; measuring from ${position} plants in`,
      );
      if (cursors.length === 0) cursors.push({ cursor, position });
      break;
    }
  }
  const pool = cursors.map((c) => namePath(sort, c.cursor));
  // The pages the load asks for (limit 100 after a cursor met with another limit) hold the next
  // plants of the order too.
  for (const c of [cursors[0], cursors.at(-1)]) {
    if (c === undefined) continue;
    const path = namePath(sort, c.cursor);
    expectPage(path, await get(base, token, path), expectedNamePage(size, sort, c.position));
  }
  return pool;
};

const COUNT_HEADER = 'x-total-count';

/**
 * `Prefer: count=exact` answers the page with `X-Total-Count` (the whole store, or one tag's
 * plants) and `Preference-Applied: count=exact`; without it the page carries no count (so the
 * other page scenarios do not pay for one).
 */
const checkCount = async (base: string, token: string, path: string, total: number): Promise<void> => {
  const counted = await get(base, token, path, COUNT_PREFER);
  const count = counted.headers.get(COUNT_HEADER);
  const applied = counted.headers.get('preference-applied') ?? '';
  if (
    counted.status !== 200 ||
    counted.ids?.length !== SEARCH_PAGE_LIMIT ||
    count !== String(total) ||
    !/\bcount=exact\b/.test(applied)
  )
    throw new Error(
      `smoke check: GET ${path} with Prefer: count=exact answered ${counted.status}, X-Total-Count ${String(count)}, Preference-Applied ${JSON.stringify(applied)}: expected a full page, ${total} and count=exact`,
    );
  const plain = await get(base, token, path);
  if (plain.headers.has(COUNT_HEADER))
    throw new Error(`smoke check: GET ${path} without Prefer answered an X-Total-Count (a count on every page)`);
};

/**
 * Checks a tagged store of plants `1…size` for the scenarios in `kinds` and returns their pools.
 * Name orders are checked from the start to the middle of the store; `-id` and `q` pages at their
 * pool's ends and middle; counts of the whole store and of one tag.
 */
export const smokeCheckSearchPages = async (
  base: string,
  token: string,
  size: number,
  kinds: readonly ScenarioKind[],
  warn: (line: string) => void,
): Promise<PagePools> => {
  const pools: Record<string, readonly string[]> = {};
  if (kinds.includes('list-name')) pools['list-name'] = await namePool(base, token, size, 'name', warn);
  if (kinds.includes('list-name-desc')) pools['list-name-desc'] = await namePool(base, token, size, '-name', warn);
  if (kinds.includes('list-id-desc')) pools['list-id-desc'] = await descPool(base, token, size);
  if (kinds.includes('list-q')) pools['list-q'] = await searchPool(base, token, size);
  if (kinds.includes('count')) {
    await checkCount(base, token, COUNT_PATH, size);
    pools['count'] = [COUNT_PATH];
  }
  if (kinds.includes('count-tag')) {
    await checkCount(base, token, COUNT_TAG_PATH, taggedCount(size));
    pools['count-tag'] = [COUNT_TAG_PATH];
  }
  return pools;
};
