import {
  BadRequestError,
  createPlantStoreClient,
  PlantStoreError,
  ValidationError,
  type Plant,
  type PlantSort,
} from '@plant-store/client';
import { compareCodePoints, fold, PageCursor } from '@plant-store/domain';
import { describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode } from './support/processes.js';
import { useLiveServer } from './support/store.js';

const live = useLiveServer();
const client = (options: Partial<Parameters<typeof createPlantStoreClient>[0]> = {}) =>
  createPlantStoreClient({ baseUrl: live.server.url, token: live.token, retry: { limit: 0 }, ...options });

/** Each test stages its plants under a tag of its own, so the tests of this file do not see each other's. */
const stage = async (tag: string, names: readonly string[]): Promise<Plant[]> => {
  const created: Plant[] = [];
  for (const name of names) created.push(await client().plants.create({ name, tag }));
  return created;
};

const collect = async (iterable: AsyncIterable<Plant>): Promise<Plant[]> => {
  const plants: Plant[] = [];
  for await (const plant of iterable) plants.push(plant);
  return plants;
};

/** The name order of the contract, computed here: folded names by code point, ties by id. */
const byName = (plants: readonly Plant[], direction: 1 | -1): Plant[] =>
  [...plants].sort((a, b) => direction * (compareCodePoints(fold(a.name), fold(b.name)) || a.id - b.id));

const rejection = async (promise: Promise<unknown>): Promise<PlantStoreError> => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PlantStoreError);
    return error as PlantStoreError;
  }
  throw new Error('expected the call to fail');
};

const get = (query: string, headers: Record<string, string> = {}) =>
  fetch(`${live.server.url}/plants?${query}`, { headers: { authorization: `Bearer ${live.token}`, ...headers } });

const MIXED = [
  'delta',
  'Alpha',
  'charlie',
  'Bravo',
  'alpha',
  'Écho',
  'echo',
  'foxtrot',
  '\u{1F33F} herb',
  '\uFFFD odd',
  'Ｇolf',
];

describe('searching with q against the real server', () => {
  it('folds both sides: q=fern finds "Boston Fern" and "FERNLEAF"; q=ﬀ finds "Staff"', async () => {
    const tag = 'search-fold';
    const [boston, , fernleaf, staff] = await stage(tag, ['Boston Fern', 'Monstera', 'FERNLEAF', 'Staff']);
    const plants = client().plants;
    expect((await plants.list({ q: 'fern', tag })).plants).toEqual([boston, fernleaf]);
    expect((await plants.list({ q: 'FERN', tag })).plants).toEqual([boston, fernleaf]);
    expect((await plants.list({ q: '\uFB00', tag })).plants).toEqual([staff]);
    expect((await plants.list({ q: 'rose', tag })).plants).toEqual([]);
  });

  it('treats %, _ and \\ as ordinary characters', async () => {
    const tag = 'search-like';
    const [percent, underscore, backslash] = await stage(tag, ['100% cactus', 'snake_plant', 'back\\slash', 'plain']);
    const plants = client().plants;
    expect((await plants.list({ q: '%', tag })).plants).toEqual([percent]);
    expect((await plants.list({ q: '_', tag })).plants).toEqual([underscore]);
    expect((await plants.list({ q: '\\', tag })).plants).toEqual([backslash]);
    expect((await plants.list({ q: 'e_p', tag })).plants).toEqual([underscore]);
  });
});

describe('sorting and paging against the real server', () => {
  it('all() follows the cursors of name-ordered pages to the end, in both directions', async () => {
    const tag = 'sorted-names';
    const created = await stage(tag, MIXED);
    await stage(tag, ['alpha']);
    const every = (await client().plants.list({ tag, limit: 100 })).plants;
    expect(every).toHaveLength(MIXED.length + 1);
    for (const limit of [1, 2, 5]) {
      expect(await collect(client().plants.all({ tag, sort: 'name', limit }))).toEqual(byName(every, 1));
      expect(await collect(client().plants.all({ tag, sort: '-name', limit }))).toEqual(byName(every, -1));
    }
    expect(created.length).toBe(MIXED.length);
  });

  it('list gives next with an opaque cursor for name orders and after for id orders; list(next) continues', async () => {
    const tag = 'sorted-pages';
    const created = await stage(tag, ['b', 'a', 'c', 'a']);
    const plants = client().plants;
    const first = await plants.list({ tag, sort: 'name', limit: 2 });
    expect(first.plants).toEqual([created[1], created[3]]);
    expect(first.next).toEqual({ limit: 2, sort: 'name', cursor: expect.any(String), tag });
    expect(PageCursor.is(first.next?.cursor)).toBe(true);
    const second = first.next === undefined ? undefined : await plants.list(first.next);
    expect(second?.plants).toEqual([created[0], created[2]]);

    const newest = await plants.list({ tag, sort: '-id', limit: 3 });
    expect(newest.plants).toEqual([created[3], created[2], created[1]]);
    expect(newest.next).toEqual({ limit: 3, sort: '-id', after: created[1]?.id, tag });
    expect(await collect(plants.all({ tag, sort: '-id', limit: 1 }))).toEqual([...created].reverse());
  });

  it('keeps q, tag and sort in the Link, form-encoded, with cursor for a name order', async () => {
    const tag = 'link shape & more';
    await stage(tag, ['fern one', 'fern two', 'fern three']);
    const response = await get(new URLSearchParams({ q: 'fern', tag, sort: '-name', limit: '1' }).toString());
    expect(response.status).toBe(200);
    const link = response.headers.get('link');
    const target = /^<([^>]*)>; rel="next"$/.exec(link ?? '')?.[1];
    expect(target).toMatch(/^\/plants\?/);
    const params = new URL(target as string, live.server.url).searchParams;
    expect([...params.keys()].sort()).toEqual(['cursor', 'limit', 'q', 'sort', 'tag']);
    expect(Object.fromEntries(params)).toMatchObject({ limit: '1', sort: '-name', q: 'fern', tag });
    expect(target).toContain('tag=link+shape+%26+more');
  });

  it('refuses invalid input before sending, and the server refuses it too', async () => {
    const checked = client().plants;
    const unchecked = client({ validate: false }).plants;
    const queries = [
      { q: '' },
      { q: 'x'.repeat(101) },
      { sort: 'size' as PlantSort },
      { cursor: 'abc' },
      { sort: '-id' as const, cursor: 'abc' },
      { sort: 'name' as const, after: 3 },
      { sort: 'name' as const, cursor: 'not/opaque' },
    ];
    for (const query of queries) {
      expect(await rejection(checked.list(query))).toBeInstanceOf(ValidationError);
      const refused = await rejection(unchecked.list(query));
      expect(refused).toBeInstanceOf(BadRequestError);
      expect(refused).not.toBeInstanceOf(ValidationError);
      expect(refused.status).toBe(400);
    }
  });

  it('a cursor is valid only with the sort, q and tag it was made with', async () => {
    const tag = 'cursor-bound';
    await stage(tag, ['x1', 'x2', 'x3']);
    const plants = client().plants;
    const first = await plants.list({ tag, sort: 'name', limit: 1 });
    const cursor = first.next?.cursor as string;
    expect((await plants.list({ tag, sort: 'name', limit: 1, cursor })).plants.map((p) => p.name)).toEqual(['x2']);
    for (const other of [
      { tag, sort: '-name' as const, cursor },
      { tag, sort: 'name' as const, q: 'x', cursor },
      { tag: 'another', sort: 'name' as const, cursor },
    ]) {
      const error = await rejection(plants.list(other));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.status).toBe(400);
    }
  });
});

describe('counting against the real server', () => {
  it('list(…, { count: true }) gives the total of the matches in the whole store, whatever the page', async () => {
    const tag = 'counted';
    await stage(tag, ['Fern a', 'Fern b', 'Cactus', 'fern c', 'Ivy']);
    const plants = client().plants;
    const page = await plants.list({ tag, limit: 2 }, { count: true });
    expect(page.plants).toHaveLength(2);
    expect(page.total).toBe(5);
    const ferns = await plants.list({ tag, q: 'FERN', sort: '-name', limit: 1 }, { count: true });
    expect(ferns.total).toBe(3);
    expect(ferns.plants.map((p) => p.name)).toEqual(['fern c']);
    const next = ferns.next === undefined ? undefined : await plants.list(ferns.next, { count: true });
    expect(next?.total).toBe(3);
    expect((await plants.list({ tag, q: 'rose' }, { count: true })).total).toBe(0);
  });

  it('without count the page is what list returned before, and the server sends no count', async () => {
    const tag = 'uncounted';
    await stage(tag, ['one', 'two']);
    const page = await client().plants.list({ tag, limit: 1 });
    expect(Object.keys(page)).toEqual(['plants', 'next']);
    const plain = await get(`tag=${tag}`);
    expect(plain.headers.get('x-total-count')).toBeNull();
    expect(plain.headers.get('preference-applied')).toBeNull();
    const counted = await get(`tag=${tag}`, { prefer: 'count=exact' });
    expect(counted.headers.get('x-total-count')).toBe('2');
    expect(counted.headers.get('preference-applied')).toBe('count=exact');
  });
});

describe('plant-store list against the real server', () => {
  const cli = (args: readonly string[]) =>
    runNode(paths.clientCli, args, { PLANT_STORE_URL: live.server.url, PLANT_STORE_TOKEN: live.token });

  it('searches, sorts by -name and counts: plant-store list --q TEXT --sort -name --count', async () => {
    const tag = 'cli-search';
    const [boston, , fernleaf] = await stage(tag, ['Boston Fern', 'Monstera', 'FERNLEAF', 'Staff']);
    const result = await cli(['list', '--q', 'fern', '--sort', '-name', '--count', '--tag', tag]);
    expect(result).toMatchObject({
      code: 0,
      stdout: `ID\tNAME\tTAG\n${fernleaf?.id}\tFERNLEAF\t${tag}\n${boston?.id}\tBoston Fern\t${tag}\n`,
      stderr: 'total: 2\n',
    });
    const json = await cli(['list', '--q', 'fern', '--sort', 'name', '--count', '--tag', tag, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ plants: [boston, fernleaf], total: 2 });
  });

  it('prints the command for the next name-ordered page, and that command prints it', async () => {
    const tag = 'cli-pages';
    await stage(tag, ['c', 'a', 'b']);
    const first = await cli(['list', '--sort', 'name', '--tag', tag, '--limit', '2']);
    expect(
      first.stdout
        .split('\n')
        .slice(1, 3)
        .map((line) => line.split('\t')[1]),
    ).toEqual(['a', 'b']);
    const more = /^more: plant-store (list .*)\n$/.exec(first.stderr)?.[1];
    expect(more).toMatch(/^list --limit 2 --sort name --cursor[ =]'?[A-Za-z0-9._~-]+'? --tag cli-pages$/);
    // The cursor is a shell word: quoted when it holds a character such as ~ that a shell would expand.
    const second = await cli((more as string).split(' ').map((word) => word.replace(/^(--cursor=)?'(.*)'$/, '$1$2')));
    expect(second).toMatchObject({ code: 0, stderr: '' });
    expect(second.stdout.split('\n')[1]?.split('\t')[1]).toBe('c');
  });
});
