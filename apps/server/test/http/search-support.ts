/**
 * What the search suites (search-*.test.ts) share: the contract's search, order and paging of
 * `GET /plants` written out over an in-memory list of plants, a walk that follows a query's
 * `Link` to its last page and checks every page and every `Link` on the way, and fast-check
 * arbitraries for names that make folding and code-point order matter.
 *
 * The model folds with the domain's `fold` and orders with its `compareCodePoints`: they are the
 * definition the contract names, and their own tests hold them to NFKC + toLowerCase and to
 * UTF-8 byte order. What is checked here is that both stores answer by that definition.
 */
import { compareCodePoints, fold } from '@plant-store/domain';
import fc from 'fast-check';
import { bearer, request, type Reply, type TestServer } from './support.js';

export type Sort = 'id' | '-id' | 'name' | '-name';
export const SORTS: readonly Sort[] = ['id', '-id', 'name', '-name'];
export const isNameSort = (sort: Sort): boolean => sort === 'name' || sort === '-name';

/** A plant as `GET /plants` shows it (no `tag` member when it has none). */
export interface WirePlant {
  readonly id: number;
  readonly name: string;
  readonly tag?: string;
}

export const wirePlant = (id: number, name: string, tag: string | undefined): WirePlant =>
  tag === undefined ? { id, name } : { id, name, tag };

export interface Search {
  readonly q?: string | undefined;
  readonly tag?: string | undefined;
  /** Sent as given; absent means the default order (by id). */
  readonly sort?: Sort | undefined;
  readonly limit: number;
}

export const describeSearch = (search: Search): string => JSON.stringify(search);

/** Whether the contract keeps `plant` for `search`: the tag exactly, the folded name containing the folded q. */
export const matches = (plant: WirePlant, search: Pick<Search, 'q' | 'tag'>): boolean =>
  (search.tag === undefined || plant.tag === search.tag) &&
  (search.q === undefined || fold(plant.name).includes(fold(search.q)));

const byFoldedName = (a: WirePlant, b: WirePlant): number =>
  compareCodePoints(fold(a.name), fold(b.name)) || a.id - b.id;

/** The contract's order: by id, or by the folded name in code-point order with ties by id, `-` descending. */
export const compareIn =
  (sort: Sort) =>
  (a: WirePlant, b: WirePlant): number => {
    switch (sort) {
      case 'id':
        return a.id - b.id;
      case '-id':
        return b.id - a.id;
      case 'name':
        return byFoldedName(a, b);
      case '-name':
        return byFoldedName(b, a);
    }
  };

/** Every plant of `plants` that `search` keeps, in its order. */
export const expectedList = (plants: Iterable<WirePlant>, search: Search): WirePlant[] =>
  [...plants].filter((p) => matches(p, search)).sort(compareIn(search.sort ?? 'id'));

/** The first page's path, form-urlencoded as URLSearchParams writes it. */
export const firstPath = (search: Search, extra: Readonly<Record<string, string>> = {}): string => {
  const params = new URLSearchParams({ limit: String(search.limit) });
  if (search.sort !== undefined) params.set('sort', search.sort);
  if (search.q !== undefined) params.set('q', search.q);
  if (search.tag !== undefined) params.set('tag', search.tag);
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  return `/plants?${params.toString()}`;
};

/** The target of a reply's `Link: <…>; rel="next"`, or undefined without one. */
export const nextPath = (reply: Reply): string | undefined => {
  const link = reply.headers.link;
  if (link === undefined) return undefined;
  const match = /^<(\/plants\?[^>]*)>; rel="next"$/.exec(String(link));
  if (match?.[1] === undefined) throw new Error(`Link not of the form </plants?…>; rel="next": ${String(link)}`);
  return match[1];
};

const CURSOR = /^[A-Za-z0-9._~-]{1,2048}$/;

/** The cursor a name-ordered page's `Link` carries. */
export const cursorOf = (reply: Reply): string => {
  const next = nextPath(reply);
  const cursor = next === undefined ? null : new URLSearchParams(next.slice('/plants?'.length)).get('cursor');
  if (cursor === null) throw new Error(`no cursor in the Link of ${reply.text}: ${String(reply.headers.link)}`);
  return cursor;
};

/**
 * Problems with the `Link` of a full page: it must carry exactly what the next page needs —
 * `limit`, `sort` unless the order is by id, `q` and `tag` as given, and `after` (the last id)
 * for an id order or a `cursor` of the unreserved alphabet for a name order — each once.
 */
export const linkProblems = (next: string, search: Search, last: WirePlant): string[] => {
  const params = new URLSearchParams(next.slice('/plants?'.length));
  const sort = search.sort ?? 'id';
  const problems: string[] = [];
  // A URI reference: printable ASCII only, everything else percent-encoded.
  if (!/^[\x21-\x7e]+$/.test(next)) problems.push('characters a URI does not hold unencoded');
  const keys = [...params.keys()].sort();
  const wanted = [
    'limit',
    ...(sort === 'id' ? [] : ['sort']),
    ...(search.q === undefined ? [] : ['q']),
    ...(search.tag === undefined ? [] : ['tag']),
    isNameSort(sort) ? 'cursor' : 'after',
  ].sort();
  if (keys.join('&') !== wanted.join('&'))
    problems.push(`parameters ${keys.join(', ')}, expected ${wanted.join(', ')}`);
  if (params.get('limit') !== String(search.limit)) problems.push(`limit ${String(params.get('limit'))}`);
  if (sort !== 'id' && params.get('sort') !== sort) problems.push(`sort ${String(params.get('sort'))}`);
  if (search.q !== undefined && params.get('q') !== search.q) problems.push(`q ${JSON.stringify(params.get('q'))}`);
  if (search.tag !== undefined && params.get('tag') !== search.tag)
    problems.push(`tag ${JSON.stringify(params.get('tag'))}`);
  if (!isNameSort(sort) && params.get('after') !== String(last.id))
    problems.push(`after ${String(params.get('after'))}, expected the last id ${last.id}`);
  if (isNameSort(sort) && !CURSOR.test(params.get('cursor') ?? '')) problems.push(`cursor not of the unreserved set`);
  return problems;
};

export interface Walk {
  /** Every plant of every page, in the order received. */
  readonly plants: WirePlant[];
  readonly replies: Reply[];
  readonly paths: string[];
}

export interface WalkOptions {
  /** Send `Prefer: count=exact`, and expect this X-Total-Count on every page (a number), or any (true). */
  readonly count?: number | true | undefined;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Runs after each page with a Link, before the next is asked for. */
  readonly between?: (page: readonly WirePlant[]) => Promise<void>;
  readonly maxPages?: number;
}

/**
 * Asks for the first page of `search` and follows each `Link` to the end. Throws, naming the
 * request, unless every answer is a 200 array of at most `limit` plants with a valid `Link`
 * exactly when the page is full, and (with `count`) the count headers on every page.
 */
export const walk = async (server: TestServer, search: Search, options: WalkOptions = {}): Promise<Walk> => {
  const plants: WirePlant[] = [];
  const replies: Reply[] = [];
  const paths: string[] = [];
  const headers = {
    ...bearer(server.tokens.read),
    ...(options.count === undefined ? {} : { prefer: 'count=exact' }),
    ...options.headers,
  };
  let path: string | undefined = firstPath(search);
  while (path !== undefined) {
    if (replies.length >= (options.maxPages ?? 1000)) throw new Error(`${describeSearch(search)}: too many pages`);
    const reply = await request(server, path, { headers });
    const what = `GET ${path}`;
    if (reply.status !== 200) throw new Error(`${what}: expected 200, got ${reply.status} ${reply.text}`);
    if (!Array.isArray(reply.json)) throw new Error(`${what}: expected an array, got ${reply.text}`);
    const page = reply.json as WirePlant[];
    if (page.length > search.limit) throw new Error(`${what}: ${page.length} plants on a page of ${search.limit}`);
    const next = nextPath(reply);
    if ((next !== undefined) !== (page.length === search.limit))
      throw new Error(`${what}: ${page.length} plants of ${search.limit} with Link ${String(reply.headers.link)}`);
    const last = page[page.length - 1];
    if (next !== undefined && last !== undefined) {
      const problems = linkProblems(next, search, last);
      if (problems.length > 0) throw new Error(`${what}: Link ${next}: ${problems.join('; ')}`);
    }
    const total = reply.headers['x-total-count'];
    const applied = reply.headers['preference-applied'];
    if (options.count === undefined) {
      if (total !== undefined || applied !== undefined)
        throw new Error(`${what}: counted without Prefer (X-Total-Count ${String(total)})`);
    } else {
      if (applied !== 'count=exact') throw new Error(`${what}: Preference-Applied ${String(applied)}`);
      if (typeof total !== 'string' || !/^(0|[1-9][0-9]*)$/.test(total))
        throw new Error(`${what}: X-Total-Count ${String(total)}`);
      if (options.count !== true && Number(total) !== options.count)
        throw new Error(`${what}: X-Total-Count ${total}, expected ${options.count}`);
    }
    plants.push(...page);
    replies.push(reply);
    paths.push(path);
    if (next !== undefined) await options.between?.(page);
    path = next;
  }
  return { plants, replies, paths };
};

/** Throws, with the query, both lists and where they first part, unless `got` equals `expected`. */
export const expectSameList = (got: readonly WirePlant[], expected: readonly WirePlant[], what: string): void => {
  const show = (p: WirePlant | undefined): string => (p === undefined ? 'nothing' : JSON.stringify(p));
  const length = Math.max(got.length, expected.length);
  for (let i = 0; i < length; i++) {
    if (JSON.stringify(got[i]) !== JSON.stringify(expected[i])) {
      throw new Error(
        `${what}: plant ${i} is ${show(got[i])}, expected ${show(expected[i])}\n` +
          `  got      ${JSON.stringify(got.map((p) => p.id))}\n  expected ${JSON.stringify(expected.map((p) => p.id))}`,
      );
    }
  }
};

/** Whether a name or tag keeps the contract's text rules (no control characters, not only whitespace). */
export const isValidText = (s: string, max: number): boolean =>
  // eslint-disable-next-line no-control-regex
  [...s].length >= 1 && [...s].length <= max && !/[\u0000-\u001f\u007f]/.test(s) && !/^\s*$/.test(s);

/**
 * Pieces of names where folding or code-point order matters: case pairs, final and medial sigma,
 * dotted capital I, compatibility forms NFKC rewrites (ligatures, fullwidth, halfwidth kana,
 * circled and superscript digits, mathematical letters, the Kelvin and Ohm signs, squared era
 * names), combining accents, scripts beyond Latin, astral code points and the private-use area
 * (below the astral planes in code-point order, above them in UTF-16 order), and characters that
 * mean something to LIKE, to a full-text query, to a URL or to a form.
 */
export const NAME_PIECES: readonly string[] = [
  'fern',
  'Fern',
  'FERN',
  'FernLeaf',
  'moss',
  'MOSS',
  'ivy',
  'Sta',
  'staff',
  'straße',
  'STRASSE',
  '\u1e9e',
  'İ',
  'i',
  'ı',
  'I',
  '\u01c5',
  '\u212a',
  '\u2126',
  'Σ',
  'σ',
  'ς',
  'ΣΊΣΥΦΟΣ',
  'ὈΔΥΣΣΕΎΣ',
  'Папоротник',
  'ПАПОРОТНИК',
  'Ёлка',
  '蕨',
  '苔',
  'シダ',
  'ｼﾀﾞ',
  '\u337b',
  'سرخس',
  '\ufefb',
  '🌿',
  '🌱',
  '🪴',
  '\u{1d405}\u{1d41e}\u{1d42b}\u{1d427}',
  '\u{20000}',
  '\ue000',
  '\ue0ff',
  '\uf8ff',
  '\ufffd',
  '\uff5e',
  'ﬀ',
  'ﬁ',
  'ﬂ',
  'Ｆｅｒｎ',
  'ｆｅｒｎ',
  '①',
  '②',
  '²',
  '₂',
  'e\u0301',
  'é',
  'É',
  'E\u0301',
  '%',
  '_',
  '\\',
  '%_',
  '+',
  '&',
  '=',
  '#',
  '?',
  '/',
  "'",
  '"',
  '""',
  '*',
  ':',
  '^',
  '(',
  ')',
  'NEAR',
  ' OR ',
  'AND',
  '0',
  '7',
];

const piece = fc.constantFrom(...NAME_PIECES);

/** Random graphemes of any script, kept to the text rules. */
const anyGraphemes = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 4 })
  .filter((s) => isValidText(s, 50) && [...s].length <= 20);

/** A plant name of 1–4 pieces (mostly from NAME_PIECES) joined by nothing, a space or a dash. */
export const plantName: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.constantFrom('', ' ', '-'), fc.oneof({ weight: 6, arbitrary: piece }, anyGraphemes)), {
    minLength: 1,
    maxLength: 4,
  })
  .map((parts) => parts.map(([sep, text], i) => (i === 0 ? text : sep + text)).join(''));

/** Tags: exact matching, so case and normalisation variants are different tags. */
export const TAGS: readonly string[] = ['green', 'Green', 'shade', 'x y', 'é', 'e\u0301', '🌿', '%_\\'];
export const plantTag: fc.Arbitrary<string | undefined> = fc.option(fc.constantFrom(...TAGS), {
  nil: undefined,
  freq: 3,
});

/**
 * How a list command picks its `q` once it knows the store: a slice of some plant's name (as
 * stored, or folded) by code points, a piece of NAME_PIECES, or random graphemes.
 */
export type QuerySpec =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'slice';
      readonly folded: boolean;
      readonly pick: number;
      readonly start: number;
      readonly length: number;
    }
  | { readonly kind: 'piece'; readonly text: string; readonly upper: boolean }
  | { readonly kind: 'random'; readonly text: string };

export const querySpec: fc.Arbitrary<QuerySpec> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('slice' as const),
      folded: fc.boolean(),
      pick: fc.nat(),
      start: fc.nat({ max: 12 }),
      length: fc.integer({ min: 1, max: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('piece' as const), text: piece, upper: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('random' as const), text: anyGraphemes }) },
);

/** The `q` a spec stands for over these names (undefined: no q). Always a valid q. */
export const resolveQuery = (spec: QuerySpec, names: readonly string[]): string | undefined => {
  const valid = (s: string): string => (isValidText(s, 100) ? s : 'fern');
  switch (spec.kind) {
    case 'none':
      return undefined;
    case 'piece':
      return valid(spec.upper ? spec.text.toUpperCase() : spec.text);
    case 'random':
      return valid(spec.text);
    case 'slice': {
      const name = names[spec.pick % Math.max(1, names.length)];
      if (name === undefined) return 'fern';
      const points = [...(spec.folded ? fold(name) : name)];
      const start = spec.start % points.length;
      return valid(points.slice(start, start + spec.length).join(''));
    }
  }
};
