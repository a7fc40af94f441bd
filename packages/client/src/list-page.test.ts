import { describe, expect, it } from 'vitest';
import { UnexpectedResponseError, ValidationError } from './client-error.js';
import { advanceProblem, listParams, nextPage, totalCount } from './list-page.js';
import type { Exchange } from './transport.js';

const exchange = (headers: Exchange['headers']): Exchange => ({
  status: 200,
  headers,
  body: Buffer.from('[]'),
  details: {},
  url: new URL('http://store.example/api/plants?limit=2'),
  replayed: false,
  etag: undefined,
});

describe('listParams', () => {
  it('writes the parameters in the order limit, sort, after, cursor, q, tag', () => {
    expect(Object.entries(listParams({ tag: 't', q: 'q', sort: '-id', after: 4, limit: 2 }, true))).toEqual([
      ['limit', '2'],
      ['sort', '-id'],
      ['after', '4'],
      ['q', 'q'],
      ['tag', 't'],
    ]);
    expect(listParams({ cursor: 'c', sort: 'name' }, true)).toEqual({ sort: 'name', cursor: 'c' });
  });

  it('names every failing field in one ValidationError, and checks the pairs only when each field is valid', () => {
    const thrown = (() => {
      try {
        listParams({ limit: 0, q: '', sort: 'name', after: 1 }, true);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).problems.map((line) => line.split(':')[0])).toEqual(['limit', 'q']);
    expect(() => listParams({ sort: 'name', after: 1 }, true)).toThrow(/^after: not with sort=name/);
  });

  it('sends anything as given without validate', () => {
    expect(listParams({ q: '', sort: 'up' as never, after: 1, cursor: 'x' }, false)).toEqual({
      sort: 'up',
      after: '1',
      cursor: 'x',
      q: '',
    });
  });
});

describe('nextPage', () => {
  it('resolves the link against the request and takes its parameters', () => {
    const link = '<plants?cursor=abc&sort=-name&limit=3>; rel="next"';
    expect(nextPage(exchange({ link }), { sort: '-name', limit: '2' })).toEqual({
      limit: 3,
      sort: '-name',
      cursor: 'abc',
    });
  });

  it('keeps the limit asked for when the link has none, and gives undefined without a next link', () => {
    expect(nextPage(exchange({ link: '</plants?after=9>; rel="next"' }), { limit: '2' })).toEqual({
      limit: 2,
      after: 9,
    });
    expect(nextPage(exchange({ link: '</plants?after=9>; rel="prev"' }), {})).toBeUndefined();
    expect(nextPage(exchange({}), {})).toBeUndefined();
  });

  it('refuses a link without after for an id order', () => {
    expect(() => nextPage(exchange({ link: '</plants?limit=2>; rel="next"' }), {})).toThrow(UnexpectedResponseError);
  });
});

describe('totalCount', () => {
  it('reads X-Total-Count when Preference-Applied lists count=exact', () => {
    expect(totalCount(exchange({ 'preference-applied': 'count=exact', 'x-total-count': '0' }))).toBe(0);
    expect(totalCount(exchange({ 'preference-applied': 'respond-async, count="exact"', 'x-total-count': '42' }))).toBe(
      42,
    );
  });

  it.each([
    [{ 'x-total-count': '3' }, /did not apply/],
    [{ 'preference-applied': 'count=planned', 'x-total-count': '3' }, /did not apply/],
    [{ 'preference-applied': 'count=exact' }, /no X-Total-Count/],
    [{ 'preference-applied': 'count=exact', 'x-total-count': '3, 3' }, /not a non-negative integer/],
    [{ 'preference-applied': 'count=exact', 'x-total-count': '+3' }, /not a non-negative integer/],
  ])('refuses %j', (headers, problem) => {
    expect(() => totalCount(exchange(headers))).toThrow(problem);
  });
});

describe('advanceProblem', () => {
  it('accepts a next page that moves on in its order', () => {
    expect(advanceProblem(undefined, { limit: 1, after: 3 })).toBeUndefined();
    expect(advanceProblem({ limit: 1, after: 3 }, { limit: 1, after: 5 })).toBeUndefined();
    expect(advanceProblem(undefined, { limit: 1, sort: '-id', after: 9 })).toBeUndefined();
    expect(advanceProblem({ limit: 1, sort: '-id', after: 9 }, { limit: 1, sort: '-id', after: 2 })).toBeUndefined();
    expect(advanceProblem(undefined, { limit: 1, sort: 'name', cursor: 'a' })).toBeUndefined();
    expect(advanceProblem({ limit: 1, sort: 'name', cursor: 'a' }, { limit: 1, sort: 'name', cursor: 'b' })).toBe(
      undefined,
    );
  });

  it('names a next page that stands still or goes back', () => {
    expect(advanceProblem(undefined, { limit: 1, after: 0 })).toBe('after=0 again');
    expect(advanceProblem({ limit: 1, after: 3 }, { limit: 1, after: 3 })).toBe('after=3 again');
    expect(advanceProblem({ limit: 1, after: 3 }, { limit: 1, after: 2 })).toBe('after=2 following after=3');
    expect(advanceProblem({ limit: 1, sort: '-id', after: 3 }, { limit: 1, sort: '-id', after: 4 })).toBe(
      'after=4 following after=3',
    );
    expect(advanceProblem({ limit: 1, sort: 'name', cursor: 'a' }, { limit: 1, sort: 'name', cursor: 'a' })).toBe(
      'the same cursor again',
    );
  });
});
