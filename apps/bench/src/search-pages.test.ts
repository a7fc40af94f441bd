import { compareCodePoints, fold } from '@plant-store/domain';
import { describe, expect, it } from 'vitest';
import {
  descPath,
  expectedDescPage,
  expectedNamePage,
  expectedSearchPage,
  foldedNameOf,
  matchesSearch,
  middle,
  NAME_WORDS,
  nameOf,
  nameOrder,
  namePath,
  SEARCH_PAGE_LIMIT,
  SEARCH_SPAN,
  SEARCH_TEXT,
  searchPath,
  taggedCount,
} from './search-pages.js';
import { MIN_TAGGED_SIZE } from './tag-pages.js';

describe('nameOf and foldedNameOf', () => {
  it('fold the way the domain folds, for every word', () => {
    for (let id = 1; id <= 3 * NAME_WORDS.length; id++) expect(foldedNameOf(id)).toBe(fold(nameOf(id)));
    expect(nameOf(13)).toBe('Ｎｅｐｅｎｔｈｅｓ 13');
    expect(foldedNameOf(13)).toBe('nepenthes 13');
    expect(foldedNameOf(12)).toBe('monstera 12');
  });

  it('put the search text in one word only', () => {
    expect(SEARCH_TEXT.length).toBeGreaterThanOrEqual(3);
    expect(NAME_WORDS.filter((w) => fold(w).includes(SEARCH_TEXT))).toEqual(['Boston Fern']);
    const ids = Array.from({ length: 1600 }, (_, i) => i + 1);
    expect(ids.filter(matchesSearch)).toEqual(ids.filter((id) => foldedNameOf(id).includes(SEARCH_TEXT)));
    expect(ids.filter(matchesSearch)).toHaveLength(1600 / NAME_WORDS.length);
  });
});

describe('nameOrder', () => {
  it('orders the ids by folded name (code points), then id', () => {
    const size = 500;
    const naive = Array.from({ length: size }, (_, i) => i + 1).sort(
      (a, b) => compareCodePoints(fold(nameOf(a)), fold(nameOf(b))) || a - b,
    );
    expect(Array.from(nameOrder(size))).toEqual(naive);
    // Folding, not the names, makes the order: 'MONSTERA' sorts among the m's.
    const first = Array.from(nameOrder(size)).map(foldedNameOf);
    expect(first[0]).toBe('aloe vera 112');
    expect(first.findIndex((n) => n.startsWith('monstera'))).toBeGreaterThan(
      first.findIndex((n) => n.startsWith('lavender')),
    );
  });

  it('gives each direction its pages from a position', () => {
    const order = Array.from(nameOrder(MIN_TAGGED_SIZE));
    expect(expectedNamePage(MIN_TAGGED_SIZE, 'name', 10, 3)).toEqual(order.slice(10, 13));
    expect(expectedNamePage(MIN_TAGGED_SIZE, '-name', 0, 2)).toEqual([order.at(-1), order.at(-2)]);
    expect(expectedNamePage(MIN_TAGGED_SIZE, 'name', MIN_TAGGED_SIZE - 1)).toEqual([order.at(-1)]);
  });
});

describe('the id pages', () => {
  it('go down from the cursor with -id', () => {
    expect(expectedDescPage(500, 3)).toEqual([499, 498, 497]);
    expect(expectedDescPage(3)).toEqual([2, 1]);
  });

  it('hold the matches after the cursor with q, full across the middle of any tagged store', () => {
    expect(expectedSearchPage(10_000, 0, 3)).toEqual([1, 17, 33]);
    expect(expectedSearchPage(10_000, 17, 2)).toEqual([33, 49]);
    for (const size of [MIN_TAGGED_SIZE, 10_000, 1_000_000]) {
      const { from, to } = middle(size, SEARCH_SPAN);
      expect(from).toBeLessThanOrEqual(to);
      for (const after of [from, to]) expect(expectedSearchPage(size, after)).toHaveLength(SEARCH_PAGE_LIMIT);
    }
    expect(middle(1_000_000, SEARCH_SPAN)).toEqual({ from: 250_000, to: 750_000 });
  });
});

describe('the request paths', () => {
  it('ask for a full page of each order', () => {
    expect(descPath(42)).toBe('/plants?sort=-id&limit=100&after=42');
    expect(searchPath(42)).toBe('/plants?q=fern&limit=100&after=42');
    expect(namePath('-name', undefined, 1000)).toBe('/plants?sort=-name&limit=1000');
    expect(namePath('name', 'abc_-~.')).toBe('/plants?sort=name&limit=100&cursor=abc_-~.');
    expect(taggedCount(1_000_005)).toBe(100_000);
  });
});
