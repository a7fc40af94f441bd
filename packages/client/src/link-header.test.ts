import { describe, expect, it } from 'vitest';
import { findLink, parseLinkHeader } from './link-header.js';

describe('parseLinkHeader', () => {
  it('parses the header the server sends', () => {
    expect(parseLinkHeader('</plants?limit=2&after=4>; rel="next"')).toEqual([
      { uri: '/plants?limit=2&after=4', rels: ['next'], params: { rel: 'next' } },
    ]);
  });

  it('parses several link-values, token and quoted values, and case-insensitive names', () => {
    const links = parseLinkHeader('<https://a.example/1>;rel=prev, <b> ; REL = "Next Last" ; title="x, y; z"');
    expect(links).toEqual([
      { uri: 'https://a.example/1', rels: ['prev'], params: { rel: 'prev' } },
      { uri: 'b', rels: ['next', 'last'], params: { rel: 'Next Last', title: 'x, y; z' } },
    ]);
  });

  it('keeps the first occurrence of a repeated parameter (RFC 8288 §3.3)', () => {
    expect(parseLinkHeader('<a>; rel=next; rel=prev')[0]?.rels).toEqual(['next']);
  });

  it('unescapes quoted-pairs', () => {
    expect(parseLinkHeader('<a>; title="say \\"hi\\""; rel=next')[0]?.params['title']).toBe('say "hi"');
  });

  it('keeps commas and semicolons inside the URI', () => {
    expect(parseLinkHeader('</p?a=1,2;3>; rel=next')[0]?.uri).toBe('/p?a=1,2;3');
  });

  it('skips malformed link-values and keeps the good ones', () => {
    expect(parseLinkHeader('garbage, </ok>; rel=next').map((l) => l.uri)).toEqual(['/ok']);
    expect(parseLinkHeader('</bad> junk; rel=next, </ok>; rel=next').map((l) => l.uri)).toEqual(['/ok']);
    expect(parseLinkHeader('</unterminated; rel=next')).toEqual([]);
    expect(parseLinkHeader('')).toEqual([]);
    expect(parseLinkHeader(' , ,')).toEqual([]);
  });

  it('accepts a parameter without a value', () => {
    expect(parseLinkHeader('</a>; crossorigin; rel=next')[0]).toEqual({
      uri: '/a',
      rels: ['next'],
      params: { crossorigin: '', rel: 'next' },
    });
  });
});

describe('findLink', () => {
  const base = 'http://127.0.0.1:3000/api/plants?limit=2';

  it('resolves the first rel=next against the response URL', () => {
    expect(findLink('</api/plants?limit=2&after=2>; rel="next"', 'next', base)?.href).toBe(
      'http://127.0.0.1:3000/api/plants?limit=2&after=2',
    );
    expect(findLink('<?after=9>; rel="prev", <?after=2>; rel="NEXT"', 'next', base)?.search).toBe('?after=2');
  });

  it('looks through repeated header lines', () => {
    expect(findLink(['</a>; rel=prev', '</b>; rel=next'], 'next', base)?.pathname).toBe('/b');
  });

  it('is undefined when there is no such relation or no header', () => {
    expect(findLink('</a>; rel=prev', 'next', base)).toBeUndefined();
    expect(findLink('</a>; rel=nextish', 'next', base)).toBeUndefined();
    expect(findLink(undefined, 'next', base)).toBeUndefined();
    expect(findLink('<http://[bad>; rel=next', 'next', base)).toBeUndefined();
  });
});
