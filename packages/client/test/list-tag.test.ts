import { PlantTag } from '@plant-store/domain';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  createPlantStoreClient,
  UnexpectedResponseError,
  ValidationError,
  type PlantStoreClient,
  type PlantStoreClientOptions,
} from '../src/index.js';
import { collectPlants, raw, rejection, stagePlants, startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

let server: FakeServer;

const clientFor = (options: Partial<PlantStoreClientOptions> = {}): PlantStoreClient =>
  createPlantStoreClient({ baseUrl: server.url, token: TOKEN, retry: 0, ...options });

const stage = (plants: Parameters<typeof stagePlants>[1]): void => stagePlants(server, plants);

/** The `tag` each recorded request carried, as the server decodes its query string. */
const tagsSent = (): (string | null)[] =>
  server.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('tag'));

beforeEach(async () => {
  server = await startFakeServer();
});

afterEach(async () => {
  await server.close();
});

describe('plants.list with tag', () => {
  it('keeps only plants with exactly that tag, the tag written as URLSearchParams does', async () => {
    stage([
      { id: 1, name: 'a', tag: 'a b+c&d%' },
      { id: 2, name: 'b', tag: 'A B+C&D%' },
      { id: 3, name: 'c' },
      { id: 4, name: 'd', tag: 'a b+c&d%' },
    ]);
    const page = await clientFor().plants.list({ tag: 'a b+c&d%' });
    expect(page).toEqual({
      plants: [
        { id: 1, name: 'a', tag: 'a b+c&d%' },
        { id: 4, name: 'd', tag: 'a b+c&d%' },
      ],
    });
    expect(server.requests[0]?.url).toBe('/plants?tag=a+b%2Bc%26d%25');
  });

  it('carries the tag into next, read from the Link', async () => {
    stage([1, 2, 3, 4].map((id) => ({ id, name: `p${id}`, tag: 'grün' })));
    const first = await clientFor().plants.list({ limit: 2, tag: 'grün' });
    expect(first.next).toEqual({ limit: 2, after: 2, tag: 'grün' });
    const second = await clientFor().plants.list(first.next);
    expect(second.plants.map((p) => p.id)).toEqual([3, 4]);
    expect(server.requests[1]?.url).toBe('/plants?limit=2&after=2&tag=gr%C3%BCn');
  });

  it.each([
    ['empty', '', /^tag: expected 1–100 characters, got 0$/],
    ['too long', 'x'.repeat(101), /^tag: expected 1–100 characters, got 101$/],
    ['blank', '   ', /^tag: /],
    ['a control character', 'a\u0007b', /^tag: expected no control characters/],
  ])('rejects a tag that is %s with ValidationError and sends nothing', async (_, tag, problem) => {
    const error = await rejection(clientFor().plants.list({ tag }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(problem);
    expect(server.requests).toHaveLength(0);
  });

  it('with validate: false leaves the tag to the server', async () => {
    const error = await rejection(clientFor({ validate: false }).plants.list({ tag: '' }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
  });

  it.each([
    ['drops the tag', '</plants?limit=1&after=1>; rel="next"', /does not keep the filter tag="a"/],
    ['changes the tag', '</plants?limit=1&after=1&tag=b>; rel="next"', /does not keep the filter tag="a"/],
  ])('rejects a Link next that %s with UnexpectedResponseError', async (_, link, problem) => {
    server.enqueue(raw(200, '[{"id":1,"name":"x","tag":"a"}]', { 'content-type': 'application/json', link }));
    const error = await rejection(clientFor().plants.list({ limit: 1, tag: 'a' }));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.message).toMatch(problem);
  });

  it('rejects a Link next that adds a tag the query did not have', async () => {
    server.enqueue(
      raw(200, '[{"id":1,"name":"x"}]', {
        'content-type': 'application/json',
        link: '</plants?limit=1&after=1&tag=b>; rel="next"',
      }),
    );
    expect((await rejection(clientFor().plants.list({ limit: 1 }))).message).toMatch(/does not keep the filter no tag/);
  });

  it('reads a Link whose tag is percent-encoded instead of +', async () => {
    server.enqueue(
      raw(200, '[{"id":1,"name":"x","tag":"a b"}]', {
        'content-type': 'application/json',
        link: '</plants?limit=1&after=1&tag=a%20b>; rel="next"',
      }),
    );
    expect((await clientFor().plants.list({ limit: 1, tag: 'a b' })).next).toEqual({ limit: 1, after: 1, tag: 'a b' });
  });
});

describe('plants.all with tag', () => {
  it('follows the Link pages of the filtered list to the end', async () => {
    stage([1, 2, 3, 4, 5, 6, 7].map((id) => ({ id, name: `p${id}`, ...(id % 2 === 1 ? { tag: 'odd & old' } : {}) })));
    const ids = (await collectPlants(clientFor().plants.all({ limit: 2, tag: 'odd & old' }))).map((p) => p.id);
    expect(ids).toEqual([1, 3, 5, 7]);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/plants?limit=2&tag=odd+%26+old',
      '/plants?limit=2&after=3&tag=odd+%26+old',
      '/plants?limit=2&after=7&tag=odd+%26+old',
    ]);
  });

  const special = fc.constantFrom(
    ' ',
    '+',
    '&',
    '%',
    '=',
    '#',
    '?',
    '/',
    ';',
    ',',
    '<',
    '>',
    '"',
    "'",
    '%2B',
    '%zz',
    'é',
    'ß',
    '中',
    '🌿',
    '\u00a0',
  );
  const anyCodePoint = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });
  const validTag = fc
    .string({ unit: fc.oneof(special, anyCodePoint), minLength: 1, maxLength: 12 })
    .filter((tag) => PlantTag.is(tag));

  it('round-trips any valid tag through the query and the Link of every page', async () => {
    const client = clientFor();
    await fc.assert(
      fc.asyncProperty(validTag, fc.integer({ min: 1, max: 3 }), async (tag, limit) => {
        const other = tag.toUpperCase() === tag ? `${tag}x` : tag.toUpperCase();
        stage([
          { id: 1, name: 'a', tag },
          { id: 2, name: 'b', tag: other },
          { id: 3, name: 'c' },
          { id: 4, name: 'd', tag },
          { id: 5, name: 'e', tag: ` ${tag}` },
          { id: 6, name: 'f', tag },
        ]);
        server.requests.length = 0;
        const ids = (await collectPlants(client.plants.all({ limit, tag }))).map((p) => p.id);
        expect(ids).toEqual([1, 4, 6]);
        expect(tagsSent().every((sent) => sent === tag)).toBe(true);
        expect(server.requests).toHaveLength(Math.floor(3 / limit) + 1);
      }),
      { numRuns: 60 },
    );
  });
});
