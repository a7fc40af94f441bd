import * as E from 'fp-ts/lib/Either.js';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  BadRequestError,
  createPlantStoreClient,
  UnexpectedResponseError,
  ValidationError,
  type Plant,
  type PlantSort,
  type PlantStoreClient,
  type PlantStoreClientOptions,
} from '../src/index.js';
import { collectPlants, raw, rejection, stagePlants, startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

let server: FakeServer;

const clientFor = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  createPlantStoreClient({ baseUrl: server.url, token: TOKEN, retry: 0, ...options });

const stage = (plants: Parameters<typeof stagePlants>[1]): void => stagePlants(server, plants);

const ids = (plants: readonly Plant[]): number[] => plants.map((p) => p.id);
const sentUrls = (): string[] => server.requests.map((r) => r.url);
const json = { 'content-type': 'application/json' };

const FERNS = [
  { id: 1, name: 'Boston Fern' },
  { id: 2, name: 'Monstera' },
  { id: 3, name: 'FERNLEAF' },
  { id: 4, name: 'Staff', tag: 'office' },
  { id: 5, name: 'fern', tag: 'office' },
  { id: 6, name: '100% Cactus_\\' },
];

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('plants.list with q and sort', () => {
  it('sends q form-encoded and gets the plants whose folded name contains it', async () => {
    stage(FERNS);
    const page = await clientFor().plants.list({ q: 'fern' });
    expect(page).toEqual({ plants: [FERNS[0], FERNS[2], FERNS[4]] });
    const ligature = await clientFor().plants.list({ q: '\ufb00' });
    expect(ids(ligature.plants)).toEqual([4]);
    const percent = await clientFor().plants.list({ q: '% cactus_\\' });
    expect(ids(percent.plants)).toEqual([6]);
    expect(sentUrls()).toEqual(['/plants?q=fern', '/plants?q=%EF%AC%80', '/plants?q=%25+cactus_%5C']);
  });

  it('sends sort and gets the plants in that order, ties broken by id in the same direction', async () => {
    stage([
      { id: 1, name: 'b' },
      { id: 2, name: 'A' },
      { id: 3, name: 'a' },
      { id: 4, name: 'C' },
    ]);
    const client = clientFor();
    expect(ids((await client.plants.list({ sort: 'name' })).plants)).toEqual([2, 3, 1, 4]);
    expect(ids((await client.plants.list({ sort: '-name' })).plants)).toEqual([4, 1, 3, 2]);
    expect(ids((await client.plants.list({ sort: '-id' })).plants)).toEqual([4, 3, 2, 1]);
    expect(ids((await client.plants.list({ sort: 'id' })).plants)).toEqual([1, 2, 3, 4]);
    expect(sentUrls()).toEqual(['/plants?sort=name', '/plants?sort=-name', '/plants?sort=-id', '/plants?sort=id']);
  });

  it('combines q, tag, sort and limit, and next keeps them with the cursor of a name order', async () => {
    stage(FERNS);
    const client = clientFor();
    const first = await client.plants.list({ q: 'f', tag: 'office', sort: '-name', limit: 1 });
    expect(first.plants).toEqual([FERNS[3]]);
    expect(first.next).toEqual({ limit: 1, sort: '-name', cursor: expect.any(String), q: 'f', tag: 'office' });
    expect(server.requests[0]?.url).toBe('/plants?limit=1&sort=-name&q=f&tag=office');
    const second = await client.plants.list(first.next);
    expect(second.plants).toEqual([FERNS[4]]);
    expect(server.requests[1]?.url).toBe(`/plants?limit=1&sort=-name&cursor=${first.next?.cursor}&q=f&tag=office`);
  });

  it('gives next with after, and sort only when it is -id, for the id orders', async () => {
    stage(FERNS);
    const client = clientFor();
    expect((await client.plants.list({ limit: 2, q: 'fern' })).next).toEqual({ limit: 2, after: 3, q: 'fern' });
    const newest = await client.plants.list({ limit: 2, sort: '-id' });
    expect(newest.next).toEqual({ limit: 2, sort: '-id', after: 5 });
    expect(ids((await client.plants.list(newest.next)).plants)).toEqual([4, 3]);
    expect(server.requests.at(-1)?.url).toBe('/plants?limit=2&sort=-id&after=5');
  });

  it('follows a Link that carries a cursor, whatever else it holds', async () => {
    server.enqueue(
      raw(200, '[{"id":9,"name":"Aloe"}]', {
        ...json,
        link: '</plants?cursor=c2Vjb25k.~_-&tag=a+b&sort=name&limit=1&q=%C3%A4>; rel="next"',
      }),
      raw(200, '[]', json),
    );
    const client = clientFor();
    const first = await client.plants.list({ sort: 'name', limit: 1, q: 'ä', tag: 'a b' });
    expect(first.next).toEqual({ limit: 1, sort: 'name', cursor: 'c2Vjb25k.~_-', q: 'ä', tag: 'a b' });
    await client.plants.list(first.next);
    expect(server.requests[1]?.url).toBe('/plants?limit=1&sort=name&cursor=c2Vjb25k.%7E_-&q=%C3%A4&tag=a+b');
  });

  it.each([
    ['drops q', '</plants?limit=1&sort=name&cursor=abc>; rel="next"', /does not keep the filter q="f"/],
    ['changes q', '</plants?limit=1&sort=name&cursor=abc&q=g>; rel="next"', /does not keep the filter q="f"/],
    [
      'changes the sort',
      '</plants?limit=1&sort=-name&cursor=abc&q=f>; rel="next"',
      /does not keep the order sort=name/,
    ],
    ['drops the sort', '</plants?limit=1&after=1&q=f>; rel="next"', /does not keep the order sort=name/],
    ['has no cursor', '</plants?limit=1&sort=name&q=f>; rel="next"', /has no cursor/],
    ['has after with a name sort', '</plants?limit=1&sort=name&after=1&q=f>; rel="next"', /after: not with sort=name/],
    ['has a malformed cursor', '</plants?limit=1&sort=name&cursor=a%2Fb&q=f>; rel="next"', /cursor: expected/],
    ['repeats q', '</plants?limit=1&sort=name&cursor=abc&q=f&q=f>; rel="next"', /q: expected a single value/],
    ['has an unknown parameter', '</plants?limit=1&sort=name&cursor=abc&q=f&page=2>; rel="next"', /unknown query/],
  ])('rejects a Link next that %s with UnexpectedResponseError', async (_, link, problem) => {
    server.enqueue(raw(200, '[{"id":1,"name":"fig"}]', { ...json, link }));
    const error = await rejection(clientFor().plants.list({ limit: 1, sort: 'name', q: 'f' }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.message).toMatch(problem);
  });

  it.each([
    ['an empty q', { q: '' }, [/^q: expected 1–100 characters, got 0$/]],
    ['a q of 101 characters', { q: 'x'.repeat(101) }, [/^q: expected 1–100 characters, got 101$/]],
    ['a blank q', { q: ' \t' }, [/^q: /]],
    ['a q with a control character', { q: 'a\nb' }, [/^q: expected no control characters/]],
    [
      'an unknown sort',
      { sort: 'name ' as PlantSort },
      [/^sort: expected one of id, -id, name, -name, got a string "name "$/],
    ],
    ['a malformed cursor', { sort: 'name', cursor: 'a/b' } as const, [/^cursor: /]],
    ['a cursor with an id order', { cursor: 'abc' }, [/^cursor: not with sort=id/]],
    ['a cursor with -id', { sort: '-id', cursor: 'abc' } as const, [/^cursor: not with sort=-id/]],
    ['after with a name order', { sort: '-name', after: 3 } as const, [/^after: not with sort=-name/]],
    ['a bad q and a bad sort at once', { q: '', sort: 'up' as PlantSort }, [/^sort: /, /^q: /]],
  ])('refuses %s with ValidationError, naming every failing field, and sends nothing', async (_, query, problems) => {
    const error = await rejection(clientFor().plants.list(query));
    expect(error).toBeInstanceOf(ValidationError);
    const lines = (error as ValidationError).problems;
    expect(lines).toHaveLength(problems.length);
    problems.forEach((problem, i) => expect(lines[i]).toMatch(problem));
    expect(server.requests).toHaveLength(0);
  });

  it('with validate: false leaves q, sort and cursor to the server', async () => {
    const client = clientFor({ validate: false });
    for (const query of [{ q: '' }, { sort: 'random' as PlantSort }, { cursor: 'abc' }]) {
      const error = await rejection(client.plants.list(query));
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error).not.toBeInstanceOf(ValidationError);
    }
    expect(server.requests).toHaveLength(3);
  });
});

describe('plants.list with count', () => {
  it('sends Prefer: count=exact and gives the total of the matches beside the page', async () => {
    stage(FERNS);
    const page = await clientFor().plants.list({ q: 'fern', limit: 1 }, { count: true });
    expect(page).toEqual({ plants: [FERNS[0]], next: { limit: 1, after: 1, q: 'fern' }, total: 3 });
    expect(server.requests[0]?.headers['prefer']).toBe('count=exact');
    const tagged = await clientFor().plants.list({ tag: 'office', sort: 'name' }, { count: true });
    expect(tagged.total).toBe(2);
    const none = await clientFor().plants.list({ q: 'rose' }, { count: true });
    expect(none).toEqual({ plants: [], total: 0 });
  });

  it('without count sends no Prefer and returns the page exactly as before', async () => {
    stage(FERNS);
    for (const options of [undefined, {}, { count: false }]) {
      const page = await clientFor().plants.list({ limit: 2 }, options);
      expect(page).toEqual({ plants: [FERNS[0], FERNS[1]], next: { limit: 2, after: 2 } });
      expect(Object.keys(page)).toEqual(['plants', 'next']);
    }
    expect(server.requests.every((r) => r.headers['prefer'] === undefined)).toBe(true);
  });

  it('fails clearly when the server did not apply the preference', async () => {
    server.enqueue(raw(200, '[]', { ...json, 'x-total-count': '0' }));
    const error = await rejection(clientFor().plants.list({}, { count: true }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.message).toMatch(/did not apply Prefer: count=exact/);
  });

  it('reads a Preference-Applied that lists other preferences too', async () => {
    server.enqueue(
      raw(200, '[]', { ...json, 'x-total-count': '7', 'preference-applied': 'return=minimal, COUNT="exact"' }),
    );
    expect(await clientFor().plants.list({}, { count: true })).toEqual({ plants: [], total: 7 });
  });

  it.each([
    ['missing', undefined, /no X-Total-Count/],
    ['negative', '-1', /X-Total-Count header "-1" is not a non-negative integer/],
    ['a fraction', '1.5', /not a non-negative integer/],
    ['not a number', 'many', /not a non-negative integer/],
    ['empty', '', /not a non-negative integer/],
    ['beyond 2^53−1', '9007199254740993', /not a non-negative integer/],
  ])('rejects an X-Total-Count that is %s with UnexpectedResponseError', async (_, value, problem) => {
    const headers: Record<string, string> = { ...json, 'preference-applied': 'count=exact' };
    if (value !== undefined) headers['x-total-count'] = value;
    server.enqueue(raw(200, '[]', headers));
    const error = await rejection(clientFor().plants.list({}, { count: true }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.message).toMatch(problem);
  });

  it('is offered by the fp-ts flavour too', async () => {
    stage(FERNS);
    expect(await clientFor().fp.plants.list({ q: 'FERN', limit: 10 }, { count: true })()).toEqual(
      E.right({ plants: [FERNS[0], FERNS[2], FERNS[4]], total: 3 }),
    );
  });
});

describe('plants.all with q and sort', () => {
  it('follows the name-ordered pages to the end, each with the cursor of the Link before', async () => {
    const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'alpha', 'echo', 'Écho', 'foxtrot'];
    stage(names.map((name, i) => ({ id: i + 1, name })));
    const client = clientFor();
    const byName = await collectPlants(client.plants.all({ sort: 'name', limit: 3 }));
    expect(byName.map((p) => p.name)).toEqual([
      'Alpha',
      'alpha',
      'Bravo',
      'charlie',
      'delta',
      'echo',
      'foxtrot',
      'Écho',
    ]);
    const urls = sentUrls();
    expect(urls).toHaveLength(3);
    expect(urls[0]).toBe('/plants?limit=3&sort=name');
    expect(urls.slice(1).every((url) => /^\/plants\?limit=3&sort=name&cursor=[A-Za-z0-9_-]+$/.test(url))).toBe(true);
    const reversed = await collectPlants(client.plants.all({ sort: '-name', limit: 2, q: 'a' }));
    expect(reversed.map((p) => p.name)).toEqual(['delta', 'charlie', 'Bravo', 'alpha', 'Alpha']);
  });

  it('pages the newest first with -id', async () => {
    stage([1, 2, 3, 4, 5].map((id) => ({ id, name: `p${id}` })));
    expect(ids(await collectPlants(clientFor().plants.all({ sort: '-id', limit: 2 })))).toEqual([5, 4, 3, 2, 1]);
    expect(sentUrls()).toEqual([
      '/plants?limit=2&sort=-id',
      '/plants?limit=2&sort=-id&after=4',
      '/plants?limit=2&sort=-id&after=2',
    ]);
  });

  it('stops with UnexpectedResponseError when a Link gives the same cursor again', async () => {
    const link = '</plants?limit=1&sort=name&cursor=same>; rel="next"';
    const page = '[{"id":1,"name":"a"}]';
    server.enqueue(
      raw(200, page, { ...json, link }),
      raw(200, page, { ...json, link }),
      raw(200, page, { ...json, link }),
    );
    const error = await rejection(collectPlants(clientFor().plants.all({ sort: 'name', limit: 1 })));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.message).toMatch(/does not advance \(the same cursor again\)/);
  });

  it('stops with UnexpectedResponseError when a -id Link goes back up', async () => {
    const page = '[{"id":1,"name":"a"}]';
    server.enqueue(
      raw(200, page, { ...json, link: '</plants?limit=1&sort=-id&after=5>; rel="next"' }),
      raw(200, page, { ...json, link: '</plants?limit=1&sort=-id&after=6>; rel="next"' }),
    );
    const error = await rejection(collectPlants(clientFor().plants.all({ sort: '-id', limit: 1 })));
    expect(error.message).toMatch(/does not advance \(after=6 following after=5\)/);
  });

  it('refuses an invalid q or sort before sending anything', async () => {
    await expect(collectPlants(clientFor().plants.all({ q: '' }))).rejects.toBeInstanceOf(ValidationError);
    await expect(collectPlants(clientFor().plants.all({ sort: 'size' as PlantSort }))).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('the types of list', () => {
  it('give next the shape of the order, and total only when counted', () => {
    const plants = clientFor().plants;
    // Never called: tsc checks these lines, and each @ts-expect-error must meet an error.
    const typed = async (sort: PlantSort, count: boolean) => {
      const byId = await plants.list({ limit: 1 });
      expectTypeOf(byId.next?.after).toEqualTypeOf<number | undefined>();
      // @ts-expect-error a page that was not counted has no total
      void byId.total;
      const byName = await plants.list({ sort: '-name' });
      expectTypeOf(byName.next?.cursor).toEqualTypeOf<string | undefined>();
      expectTypeOf(byName.next?.sort).toEqualTypeOf<'-name' | undefined>();
      // @ts-expect-error a name order continues with cursor, not after
      void byName.next?.after;
      const following = byName.next === undefined ? undefined : await plants.list(byName.next);
      expectTypeOf(following?.next?.cursor).toEqualTypeOf<string | undefined>();
      expectTypeOf((await plants.list({}, { count: true })).total).toEqualTypeOf<number>();
      expectTypeOf((await plants.list({ sort: 'name' }, { count: true })).next?.cursor).toEqualTypeOf<
        string | undefined
      >();
      expectTypeOf((await plants.list({ q: 'x' }, { count })).total).toEqualTypeOf<number | undefined>();
      expectTypeOf((await plants.list({ sort })).next?.limit).toEqualTypeOf<number | undefined>();
      // @ts-expect-error sort is one of the four orders
      await plants.list({ sort: 'size' });
    };
    expect(typed).toBeTypeOf('function');
  });
});
