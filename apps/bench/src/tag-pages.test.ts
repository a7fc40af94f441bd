import { describe, expect, it } from 'vitest';
import {
  expectedTagPage,
  lastCursor,
  MIN_TAGGED_SIZE,
  PAGE_TAG,
  TAG_EVERY,
  TAG_PAGE_LIMIT,
  tagOf,
  tagPagePrefix,
  tagSql,
} from './tag-pages.js';

describe('tagOf', () => {
  it('puts the page tag on one plant in TAG_EVERY and other tags on the rest', () => {
    const tags = Array.from({ length: 1000 }, (_, i) => tagOf(i + 1));
    expect(tags.filter((t) => t === PAGE_TAG)).toHaveLength(1000 / TAG_EVERY);
    expect(new Set(tags).size).toBe(TAG_EVERY);
    expect([tagOf(10), tagOf(11), tagOf(19)]).toEqual([PAGE_TAG, 'tag-1', 'tag-9']);
  });

  it('is what tagSql writes into the stores', () => {
    expect(tagSql('x')).toBe(`'tag-' || (x % ${TAG_EVERY})`);
  });
});

describe('expectedTagPage', () => {
  it('lists the ids carrying the tag after the cursor, in order, up to the limit', () => {
    expect(expectedTagPage(10_000, 0, 3)).toEqual([10, 20, 30]);
    expect(expectedTagPage(10_000, 15, 3)).toEqual([20, 30, 40]);
    expect(expectedTagPage(10_000, 20, 2)).toEqual([30, 40]);
    expect(expectedTagPage(35, 0)).toEqual([10, 20, 30]);
    expect(expectedTagPage(10_000, 0)).toHaveLength(TAG_PAGE_LIMIT);
  });
});

describe('lastCursor', () => {
  it('is the last cursor after which a full page follows', () => {
    for (const size of [MIN_TAGGED_SIZE, 10_000, 10_005, 1_000_000]) {
      expect(expectedTagPage(size, lastCursor(size))).toHaveLength(TAG_PAGE_LIMIT);
      expect(expectedTagPage(size, lastCursor(size) + TAG_EVERY).length).toBeLessThan(TAG_PAGE_LIMIT);
    }
    expect(lastCursor(1_000_000)).toBe(999_000);
  });
});

describe('tagPagePrefix', () => {
  it('asks for a full page of the tag, percent-encoded, up to the cursor', () => {
    expect(`${tagPagePrefix(PAGE_TAG)}42`).toBe('/plants?tag=tag-0&limit=100&after=42');
    expect(tagPagePrefix('a b/é')).toBe('/plants?tag=a%20b%2F%C3%A9&limit=100&after=');
  });
});
