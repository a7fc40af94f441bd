import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateToken, generateTokenId, hashesEqual, hashToken } from './opaque-token.js';
import { parseDuration } from './duration.js';

describe('generateToken', () => {
  it('makes pst_ + 43 base64url characters, different every time', () => {
    const tokens = Array.from({ length: 100 }, generateToken);
    for (const token of tokens) expect(token).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(100);
  });

  it('makes public ids of tok_ + 12 hex characters', () => {
    expect(generateTokenId()).toMatch(/^tok_[0-9a-f]{12}$/);
  });
});

describe('hashToken', () => {
  it('is the SHA-256 of the token string', () => {
    expect(hashToken('pst_abc').toString('hex')).toBe(createHash('sha256').update('pst_abc').digest('hex'));
    expect(hashToken('pst_abc')).toHaveLength(32);
  });
});

describe('hashesEqual', () => {
  it('compares equal-length hashes and refuses different lengths', () => {
    expect(hashesEqual(hashToken('a'), hashToken('a'))).toBe(true);
    expect(hashesEqual(hashToken('a'), hashToken('b'))).toBe(false);
    expect(hashesEqual(hashToken('a'), hashToken('a').subarray(0, 31))).toBe(false);
  });
});

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['12h', 43_200_000],
    ['30d', 2_592_000_000],
    ['2w', 1_209_600_000],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '30', 'd', '0d', '-1d', '1.5h', '30 d', '30D', '1y'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});
