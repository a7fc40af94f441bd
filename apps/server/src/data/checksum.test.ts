import { describe, expect, it } from 'vitest';
import { TableDigest } from './checksum.js';

describe('TableDigest', () => {
  const digest = (rows: readonly object[][]): string => {
    const d = new TableDigest();
    for (const chunk of rows) d.add(chunk);
    return d.hex();
  };

  it('is the same whatever the members’ order and the chunking', () => {
    expect(digest([[{ id: 1, name: 'a' }], [{ id: 2, name: 'b' }]])).toBe(
      digest([
        [
          { name: 'a', id: 1 },
          { name: 'b', id: 2 },
        ],
      ]),
    );
  });

  it('differs for another value, another row order, or null for an absent tag', () => {
    const base = digest([
      [
        { id: 1, tag: null },
        { id: 2, tag: 'x' },
      ],
    ]);
    expect(
      digest([
        [
          { id: 1, tag: null },
          { id: 2, tag: 'y' },
        ],
      ]),
    ).not.toBe(base);
    expect(
      digest([
        [
          { id: 2, tag: 'x' },
          { id: 1, tag: null },
        ],
      ]),
    ).not.toBe(base);
    expect(digest([[{ id: 1 }, { id: 2, tag: 'x' }]])).not.toBe(base);
  });

  it('counts the rows', () => {
    const d = new TableDigest();
    d.add([{ a: 1 }, { a: 2 }]);
    d.add([{ a: 3 }]);
    expect(d.rows).toBe(3);
  });
});
