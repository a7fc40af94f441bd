import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseStoreLocation, StoreLocationFromUrl } from './store-location.js';

describe('parseStoreLocation', () => {
  it.each([
    ['sqlite:./data/plant-store.db', { kind: 'sqlite', file: './data/plant-store.db' }],
    ['sqlite:data.db', { kind: 'sqlite', file: 'data.db' }],
    ['sqlite:///var/lib/plants.db', { kind: 'sqlite', file: '/var/lib/plants.db' }],
    ['sqlite://relative/plants.db', { kind: 'sqlite', file: 'relative/plants.db' }],
    ['sqlite::memory:', { kind: 'sqlite', file: ':memory:' }],
    ['SQLITE::memory:', { kind: 'sqlite', file: ':memory:' }],
    ['file:///tmp/plants.db', { kind: 'sqlite', file: '/tmp/plants.db' }],
    ['./data/plant-store.db', { kind: 'sqlite', file: './data/plant-store.db' }],
    ['/abs/plants.db', { kind: 'sqlite', file: '/abs/plants.db' }],
    ['  plants.db  ', { kind: 'sqlite', file: 'plants.db' }],
    ['postgres://u:p@127.0.0.1:5432/test', { kind: 'postgres', url: 'postgres://u:p@127.0.0.1:5432/test' }],
    ['postgresql://127.0.0.1/test', { kind: 'postgres', url: 'postgresql://127.0.0.1/test' }],
  ])('reads %s', (url, expected) => {
    expect(parseStoreLocation(url)).toEqual(expected);
  });

  it.each([
    '',
    '   ',
    'sqlite:',
    'sqlite://',
    'mysql://localhost/db',
    'http://example.com/db',
    'file://host/plants.db',
  ])('refuses %j', (url) => {
    expect(parseStoreLocation(url)).toBeUndefined();
  });
});

describe('StoreLocationFromUrl', () => {
  it('decodes a DATABASE_URL into its location', () => {
    expect(StoreLocationFromUrl.decode('sqlite::memory:')).toEqual(E.right({ kind: 'sqlite', file: ':memory:' }));
    expect(StoreLocationFromUrl.decode('postgres://db/x')).toEqual(
      E.right({ kind: 'postgres', url: 'postgres://db/x' }),
    );
  });

  it('fails with what DATABASE_URL expects', () => {
    const decoded = StoreLocationFromUrl.decode('mysql://x');
    expect(E.isLeft(decoded)).toBe(true);
    expect(StoreLocationFromUrl.name).toBe('sqlite:<file>, sqlite::memory:, a file path or postgres://…');
  });

  it('encodes back to a URL that decodes to the same location', () => {
    for (const url of ['sqlite:./data/plant-store.db', 'sqlite::memory:', '/abs/plants.db', 'postgres://u@db:5432/x']) {
      const decoded = StoreLocationFromUrl.decode(url);
      if (E.isLeft(decoded)) throw new Error(`${url} did not decode`);
      expect(StoreLocationFromUrl.decode(StoreLocationFromUrl.encode(decoded.right))).toEqual(decoded);
    }
  });
});
