import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cursorOf,
  expectedList,
  expectSameList,
  firstPath,
  nextPath,
  walk,
  wirePlant,
  type Search,
  type Sort,
  type WirePlant,
} from './search-support.js';
import { bearer, createPlant, expectError, request, startTestServer, type TestServer } from './support.js';

/*
 * docs/reference/api.md, searching, sorting and counting GET /plants: each rule through a
 * listening server, with literal examples (the expected ids are written out, not computed), on
 * both stores (the `postgres` project runs this file again).
 */

const FIXTURES: readonly WirePlant[] = [
  wirePlant(1, 'Boston Fern', 'green'),
  wirePlant(2, 'FERNLEAF', undefined),
  wirePlant(3, 'Staff', 'green'),
  wirePlant(4, 'Ｍｏｎｓｔｅｒａ', undefined),
  wirePlant(5, '100% natural', undefined),
  wirePlant(6, '100 natural', undefined),
  // LIKE's wildcards and escape: each must match only itself.
  wirePlant(7, 'a%b', 'like'),
  wirePlant(8, 'axxb', 'like'),
  wirePlant(9, 'a_b', 'like'),
  wirePlant(10, 'acb', 'like'),
  wirePlant(11, 'a\\b', 'like'),
  wirePlant(12, 'ab', 'like'),
  wirePlant(13, 'ΣΊΣΥΦΟΣ', undefined),
  wirePlant(14, 'İstanbul lily', undefined),
  wirePlant(15, 'Cafe\u0301 plant', undefined),
  wirePlant(16, 'x①', undefined),
  wirePlant(17, 'ﬁcus', undefined),
  wirePlant(18, 'Ficus elastica', 'green'),
  // Code-point order: U+E000 sorts below U+FFFD and both below U+1F33F, unlike UTF-16 order.
  wirePlant(21, 'banana', 'order'),
  wirePlant(22, 'Apple', 'order'),
  wirePlant(23, 'apple', 'order'),
  wirePlant(24, '\ue000 pua', 'order'),
  wirePlant(25, '🌿 herb', 'order'),
  wirePlant(26, '\ufffd', 'order'),
  wirePlant(27, 'ｂａｎａｎａ', 'order'),
  // Full-text query syntax, which must be text like any other.
  wirePlant(19, 'say "hi" NEAR(x y) a* OR b', undefined),
  wirePlant(20, 'col:umn ^start -not', undefined),
  wirePlant(28, 'a+b & c=d', 'form'),
  wirePlant(29, 'A+B & C=D too', 'form'),
];

const fixturesOf = (...ids: number[]): WirePlant[] => FIXTURES.filter((p) => ids.includes(p.id));

let fixtures: TestServer;
let scratch: TestServer;
let withCors: TestServer;
const ALLOWED = 'http://allowed.example:8080';

beforeAll(async () => {
  [fixtures, scratch, withCors] = await Promise.all([
    startTestServer(),
    startTestServer(),
    startTestServer({ corsOrigins: [ALLOWED] }),
  ]);
  for (const plant of FIXTURES) {
    const reply = await createPlant(fixtures, plant);
    if (reply.status !== 201) throw new Error(`set-up: ${reply.status} ${reply.text}`);
  }
  for (const plant of FIXTURES.slice(0, 3)) await createPlant(withCors, plant);
});
afterAll(async () => {
  await Promise.all([fixtures?.close(), scratch?.close(), withCors?.close()]);
});

const get = (server: TestServer, path: string, headers: Record<string, string> = {}) =>
  request(server, path, { headers: { ...bearer(server.tokens.read), ...headers } });

/** The ids every page of `search` shows, the Link followed to the end. */
const idsOf = async (search: Search, server: TestServer = fixtures): Promise<number[]> =>
  (await walk(server, search)).plants.map((p) => p.id);

describe('GET /plants?q=', () => {
  it.each<[string, number[]]>([
    ['fern', [1, 2]],
    ['FERN', [1, 2]],
    ['ｆｅｒｎ', [1, 2]],
    ['ﬀ', [3]],
    ['ff', [3]],
    ['monstera', [4]],
    ['ＭＯＮＳ', [4]],
    ['σίσυφος', [13]],
    ['ς', [13]],
    ['Σ', [13]],
    ['İstanbul', [14]],
    ['café', [15]],
    ['1', [5, 6, 16]],
    ['①', [5, 6, 16]],
    ['fi', [17, 18]],
    ['ﬁcus', [17, 18]],
    ['FICUS E', [18]],
  ])('q=%s finds the plants whose folded name contains the folded text: %j', async (q, ids) => {
    expect(await idsOf({ q, limit: 100 })).toEqual(ids);
  });

  it('reads q form-urlencoded, + as a space, and combines it with after in id order', async () => {
    expect((await get(fixtures, '/plants?q=boston+FERN')).json).toEqual(fixturesOf(1));
    expect((await get(fixtures, '/plants?q=a%2Bb')).json).toEqual(fixturesOf(28, 29));
    expect((await get(fixtures, '/plants?q=fern&after=1')).json).toEqual(fixturesOf(2));
    expect((await get(fixtures, '/plants?q=fern&sort=-id&after=2')).json).toEqual(fixturesOf(1));
    expect((await get(fixtures, '/plants?q=fern&sort=-id&after=1')).json).toEqual([]);
  });

  it('folds the name and q alike and nothing more: no dotless-i rule, no accent stripping', async () => {
    // fold("İstanbul") is "i\u0307stanbul": the dot stays between the i and the s.
    expect(await idsOf({ q: 'istanbul', limit: 100 })).toEqual([]);
    expect(await idsOf({ q: 'cafe', limit: 100 })).toEqual([]);
    expect(await idsOf({ q: 'staf', limit: 100 })).toEqual([3]);
  });

  it.each<[string, number[]]>([
    ['%', [5, 7]],
    ['a%b', [7]],
    ['_', [9]],
    ['a_b', [9]],
    ['\\', [11]],
    ['a\\b', [11]],
    ['0%', [5]],
    ['%_', []],
  ])('treats %% _ and \\ as ordinary characters: q=%s finds %j', async (q, ids) => {
    expect(await idsOf({ q, limit: 100 })).toEqual(ids);
  });

  it.each<[string, number[]]>([
    ['"hi"', [19]],
    ['"', [19]],
    ['hi" near', [19]],
    ['near(x', [19]],
    ['a* or', [19]],
    [' or ', [19]],
    ['col:umn', [20]],
    ['^start', [20]],
    [' -not', [20]],
    ['*', [19]],
    ['"hi', [19]],
    ['near', [19]],
  ])('treats full-text query syntax as text: q=%s finds %j', async (q, ids) => {
    for (const sort of ['id', 'name'] as const) expect(await idsOf({ q, sort, limit: 100 }), sort).toEqual(ids);
    await walk(fixtures, { q, limit: 1 }, { count: ids.length });
  });

  it('answers q of one and two characters', async () => {
    expect(await idsOf({ q: 'ﬀ', limit: 100 })).toEqual([3]);
    expect(await idsOf({ q: 'ab', limit: 100 })).toEqual([12]);
    expect(await idsOf({ q: 'B', limit: 100 })).toEqual([1, 7, 8, 9, 10, 11, 12, 14, 19, 21, 25, 27, 28, 29]);
    expect(await idsOf({ q: '🌿', limit: 100 })).toEqual([25]);
  });

  it('accepts q of 100 characters, and refuses 101', async () => {
    expect((await get(fixtures, firstPath({ q: '🌿'.repeat(100), limit: 5 }))).json).toEqual([]);
    expectError(await get(fixtures, firstPath({ q: 'x'.repeat(101), limit: 5 })), 400, /(^|; )q: /);
  });

  it('combines q with tag, sort and limit, and carries them (form-urlencoded) into the Link', async () => {
    expect(await idsOf({ q: 'f', tag: 'green', limit: 1 })).toEqual([1, 3, 18]);
    expect(await idsOf({ q: 'f', tag: 'green', sort: '-name', limit: 2 })).toEqual([3, 18, 1]);
    expect(await idsOf({ q: 'f', tag: 'green', sort: '-id', limit: 2 })).toEqual([18, 3, 1]);
    const form = await walk(fixtures, { q: '+b & c=', tag: 'form', sort: 'name', limit: 1 });
    expect(form.plants.map((p) => p.id)).toEqual([28, 29]);
  });

  it('keeps every plant of the fixtures for a q in each of them, in every order (against the model)', async () => {
    for (const sort of ['id', '-id', 'name', '-name'] as const) {
      for (const q of ['a', 'fern', 'ﬁ', 'Σ', '\ue000', '\\']) {
        const search = { q, sort, limit: 3 };
        expectSameList((await walk(fixtures, search)).plants, expectedList(FIXTURES, search), JSON.stringify(search));
      }
    }
  });
});

describe('GET /plants?sort=', () => {
  it.each<[Sort | undefined, number[]]>([
    [undefined, [21, 22, 23, 24, 25, 26, 27]],
    ['id', [21, 22, 23, 24, 25, 26, 27]],
    ['-id', [27, 26, 25, 24, 23, 22, 21]],
    ['name', [22, 23, 21, 27, 24, 26, 25]],
    ['-name', [25, 26, 24, 27, 21, 23, 22]],
  ])('sort=%s orders by code point of the folded name, ties by id in the same direction', async (sort, ids) => {
    for (const limit of [1, 2, 3, 7, 8])
      expect(await idsOf({ tag: 'order', sort, limit }), `limit ${limit}`).toEqual(ids);
  });

  it('starts -id at the newest with after=0 or none, and continues below after=ID', async () => {
    const first = await get(fixtures, '/plants?sort=-id&after=0&limit=2&tag=order');
    expect((first.json as WirePlant[]).map((p) => p.id)).toEqual([27, 26]);
    const below = await get(fixtures, '/plants?sort=-id&after=24&limit=10&tag=order');
    expect((below.json as WirePlant[]).map((p) => p.id)).toEqual([23, 22, 21]);
    expect(below.headers.link).toBeUndefined();
    const whole = await get(fixtures, '/plants?sort=-id&limit=2');
    expect((whole.json as WirePlant[]).map((p) => p.id)).toEqual([29, 28]);
  });

  it('writes no sort into the Link of the default order, even when asked for by name', async () => {
    const reply = await get(fixtures, '/plants?sort=id&limit=2&tag=order');
    expect(reply.headers.link).toBeDefined();
    expect(new URLSearchParams(String(nextPath(reply)).split('?')[1]).get('sort')).toBeNull();
  });

  it('gives a Link on a full last page and none on the empty page after it', async () => {
    const pages = await walk(fixtures, { tag: 'order', sort: 'name', limit: 7 });
    expect(pages.replies.map((r) => (r.json as unknown[]).length)).toEqual([7, 0]);
  });
});

describe('the 400s of GET /plants', () => {
  const refusals: Array<[string, string, string]> = [
    ['q repeated', 'q', '/plants?q=a&q=a'],
    ['q empty', 'q', '/plants?q='],
    ['q without =', 'q', '/plants?q'],
    ['q only whitespace', 'q', '/plants?q=+%E3%80%80'],
    ['q with a control character', 'q', '/plants?q=a%00'],
    ['q with DEL', 'q', '/plants?q=a%7F'],
    ['q with invalid percent-encoding', 'q', '/plants?q=a%E'],
    ['q not UTF-8', 'q', '/plants?q=%FF'],
    ['q of 101 characters', 'q', `/plants?q=${encodeURIComponent('é'.repeat(101))}`],
    ['sort repeated', 'sort', '/plants?sort=id&sort=id'],
    ['sort empty', 'sort', '/plants?sort='],
    ['cursor repeated', 'cursor', '/plants?sort=name&cursor=abc&cursor=abc'],
    ['cursor empty', 'cursor', '/plants?sort=name&cursor='],
    ['cursor of other characters', 'cursor', '/plants?sort=name&cursor=a%2Fb'],
    ['cursor too long', 'cursor', `/plants?sort=name&cursor=${'a'.repeat(2049)}`],
    ['cursor not made by the server', 'cursor', '/plants?sort=name&cursor=abc'],
    ['cursor not made by the server (another)', 'cursor', '/plants?sort=-name&cursor=~~~~.____'],
    ['cursor with the default order', 'cursor', '/plants?cursor=abc'],
    ['cursor with sort=id', 'cursor', '/plants?sort=id&cursor=abc'],
    ['cursor with sort=-id', 'cursor', '/plants?sort=-id&cursor=abc'],
    ['after with sort=name', 'after', '/plants?sort=name&after=3'],
    ['after with sort=-name', 'after', '/plants?sort=-name&after=3'],
    ['tag empty', 'tag', '/plants?q=a&tag='],
  ];
  it.each(refusals)('%s → 400 naming %s', async (_what, parameter, path) => {
    expectError(await get(fixtures, path), 400, new RegExp(`(^|; )${parameter}: `));
  });

  it.each(['Name', 'NAME', 'desc', 'asc', '+id', '%2Bname', 'name,id', 'id%20', '--id', 'tag'])(
    'sort=%s → 400 naming the parameter and the four orders',
    async (sort) => {
      const reply = await get(fixtures, `/plants?sort=${sort}`);
      expectError(reply, 400, /(^|; )sort: /);
      const message = (reply.json as { message: string }).message;
      for (const value of ['id', '-id', 'name', '-name']) expect(message).toContain(value);
    },
  );

  it('refuses a cursor with another sort, q or tag than the one it was made with; another limit is fine', async () => {
    const made = { q: 'f', tag: 'green', sort: 'name' as const, limit: 1 };
    const cursor = cursorOf(await get(fixtures, firstPath(made)));
    const reuse = (search: Search) => get(fixtures, firstPath(search, { cursor }));
    expect((await reuse({ ...made, limit: 5 })).status).toBe(200);
    for (const other of [
      { ...made, sort: '-name' as const },
      { ...made, q: 'fi' },
      { ...made, q: undefined },
      { ...made, tag: 'Green' },
      { ...made, tag: undefined },
      { ...made, q: undefined, tag: undefined },
    ]) {
      expectError(await reuse(other), 400, /(^|; )cursor: /);
    }
    expectError(await reuse({ ...made, sort: 'id' }), 400, /(^|; )cursor: /);
    const descending = cursorOf(await get(fixtures, firstPath({ ...made, sort: '-name' })));
    expectError(await get(fixtures, firstPath(made, { cursor: descending })), 400, /(^|; )cursor: /);
  });

  it('refuses a cursor with a character added that no cursor of the server has', async () => {
    const cursor = cursorOf(await get(fixtures, firstPath({ sort: 'name', limit: 2 })));
    for (const bad of [`${cursor}~`, `~${cursor}`]) {
      expectError(await get(fixtures, firstPath({ sort: 'name', limit: 2 }, { cursor: bad })), 400, /(^|; )cursor: /);
    }
  });
});

describe('Prefer: count=exact', () => {
  it('adds X-Total-Count (the matches in the whole store) and Preference-Applied to every page', async () => {
    for (const [search, total] of [
      [{ limit: 2 }, FIXTURES.length],
      [{ limit: 2, sort: '-name' }, FIXTURES.length],
      [{ limit: 1, tag: 'green' }, 3],
      [{ limit: 1, q: 'fern' }, 2],
      [{ limit: 1, q: 'f', tag: 'green', sort: 'name' }, 3],
      [{ limit: 5, q: 'no such plant' }, 0],
      [{ limit: 1, tag: 'none of these' }, 0],
    ] as Array<[Search, number]>) {
      await walk(fixtures, search, { count: total });
    }
  });

  it('counts nothing without it, and ignores other preferences', async () => {
    const plain = await get(fixtures, '/plants?limit=3&q=a');
    expect(plain.headers['x-total-count']).toBeUndefined();
    expect(plain.headers['preference-applied']).toBeUndefined();
    for (const prefer of ['count=planned', 'count=estimated', 'return=minimal', 'respond-async', 'count', 'wait=5']) {
      const reply = await get(fixtures, '/plants?limit=3&q=a', { prefer });
      expect({ status: reply.status, text: reply.text }, prefer).toEqual({ status: 200, text: plain.text });
      expect(reply.headers['x-total-count'], prefer).toBeUndefined();
      expect(reply.headers['preference-applied'], prefer).toBeUndefined();
    }
  });

  it('applies count=exact among other preferences', async () => {
    const reply = await get(fixtures, '/plants?limit=3&tag=green', { prefer: 'return=minimal, count=exact' });
    expect(reply.status).toBe(200);
    expect(reply.headers['x-total-count']).toBe('3');
    expect(reply.headers['preference-applied']).toBe('count=exact');
  });

  it.each<[string, string | string[]]>([
    ['a name in capitals', 'COUNT=exact'],
    ['a quoted value', 'count="exact"'],
    ['spaces around =', 'count = exact'],
    ['a parameter', 'count=exact; x=y'],
    ['a second Prefer field', ['return=minimal', 'count=exact']],
  ])('reads the RFC 7240 syntax: %s', async (_what, prefer) => {
    const reply = await request(fixtures, '/plants?limit=1&tag=green', {
      headers: { ...bearer(fixtures.tokens.read), prefer },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers['x-total-count']).toBe('3');
    expect(reply.headers['preference-applied']).toBe('count=exact');
  });

  it('is exposed to an allowed origin when CORS is on', async () => {
    const reply = await get(withCors, '/plants?limit=1', { origin: ALLOWED, prefer: 'count=exact' });
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(reply.headers['x-total-count']).toBe('3');
    const exposed = String(reply.headers['access-control-expose-headers'])
      .split(',')
      .map((h) => h.trim().toLowerCase());
    expect(exposed).toEqual(expect.arrayContaining(['x-total-count', 'preference-applied', 'link']));
  });

  it('may be sent by a script on an allowed origin: the preflight allows Prefer', async () => {
    const preflight = await request(withCors, '/plants?limit=1', {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization, prefer',
      },
    });
    expect(preflight.status).toBe(204);
    const allowed = String(preflight.headers['access-control-allow-headers'])
      .split(',')
      .map((h) => h.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'prefer']));
  });
});

describe('keyset paging', () => {
  let run = 0;
  /** Plants of a tag of their own on the scratch server, named so that name order differs from id order. */
  const seed = async (names: readonly string[]): Promise<{ tag: string; plants: WirePlant[] }> => {
    const tag = `paging ${(run += 1)}`;
    const plants: WirePlant[] = [];
    for (const name of names) {
      const reply = await createPlant(scratch, { name, tag });
      expect(reply.status).toBe(201);
      plants.push(wirePlant(Number(String(reply.headers.location).split('/').pop()), name, tag));
    }
    return { tag, plants };
  };
  const names = ['delta', 'Alpha', 'charlie', 'ECHO', 'bravo', 'alpha', 'Foxtrot', 'golf'];

  it.each<Sort>(['id', '-id', 'name', '-name'])(
    'sort=%s goes on correctly after the plant of the cursor is deleted',
    async (sort) => {
      const { tag, plants } = await seed(names);
      const deleted = new Set<number>();
      const search = { tag, sort, limit: 3 };
      const seen = await walk(scratch, search, {
        between: async (page) => {
          const last = page[page.length - 1] as WirePlant;
          const reply = await request(scratch, `/plants/${last.id}`, {
            method: 'DELETE',
            headers: bearer(scratch.tokens.all),
          });
          expect(reply.status).toBe(204);
          deleted.add(last.id);
        },
      });
      // Pages end at the 3rd and 6th plant of the order, each deleted after its page was read.
      expectSameList(seen.plants, expectedList(plants, search), `${sort}, deleting each page's last plant`);
      expect(deleted.size).toBe(2);
      expectSameList(
        (await walk(scratch, search)).plants,
        expectedList(
          plants.filter((p) => !deleted.has(p.id)),
          search,
        ),
        `${sort} afterwards`,
      );
    },
  );

  it('stores, orders, finds and pages past the longest names, those NFKC makes longest included', async () => {
    // Compatibility characters that NFKC turns into many: the folded name is many times the name.
    const expanding = ['\ufdfa', '\ufdfb', '\u3300', '\u3316', '\u33ff', '\u{1d160}', '\u2474', '\u2493', '\u32c0'];
    let state = 7;
    const mixed = Array.from({ length: 200 }, () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return expanding[state % expanding.length];
    }).join('');
    const { tag, plants } = await seed([
      mixed,
      '\ufdfa'.repeat(200),
      '🌿'.repeat(200),
      '"'.repeat(200),
      '\\'.repeat(200),
      '\u{10fffd}'.repeat(200),
      `${'z'.repeat(199)}\u{1f33f}`,
      `${'z'.repeat(199)}\ue000`,
    ]);
    for (const sort of ['name', '-name'] as const) {
      const search = { tag, sort, limit: 1 };
      expectSameList((await walk(scratch, search)).plants, expectedList(plants, search), JSON.stringify(search));
    }
    for (const q of [
      '\ufdfa',
      '\ufdfa'.repeat(100),
      [...mixed].slice(50, 150).join(''),
      '"'.repeat(3),
      'z\ue000',
      'z\u{1f33f}',
    ]) {
      const search = { tag, q, sort: 'name' as const, limit: 1 };
      const expected = expectedList(plants, search);
      expect(expected.length, q).toBeGreaterThan(0);
      expectSameList((await walk(scratch, search, { count: expected.length })).plants, expected, `q ${q}`);
    }
  });

  it.each<Sort>(['name', '-name'])(
    'sort=%s pages through plants of one folded name by id, across pages',
    async (sort) => {
      const { tag, plants } = await seed(['Same', 'same', 'ＳＡＭＥ', 'SAME', 'ſame', 'same']);
      for (const limit of [1, 2, 4]) {
        const search = { tag, sort, limit };
        expectSameList((await walk(scratch, search)).plants, expectedList(plants, search), JSON.stringify(search));
      }
    },
  );
});
