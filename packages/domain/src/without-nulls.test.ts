import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withoutNulls } from './without-nulls.js';

describe('withoutNulls', () => {
  it('leaves out exactly the null members, whatever their names, and keeps the others as they are', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.constant(null), fc.string(), fc.integer())), (row) => {
        expect(withoutNulls(row)).toEqual(Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null)));
      }),
    );
  });

  it('keeps a member named __proto__ as a member, not as the prototype', () => {
    const present = withoutNulls(JSON.parse('{"__proto__": 0, "tag": null}') as Record<string, unknown>);
    expect(Object.keys(present)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(present)).toBe(Object.prototype);
  });

  it('makes a fresh object and leaves the row alone', () => {
    const row = { id: 1, name: 'Fern', tag: null };
    const present = withoutNulls(row);
    expect(present).toEqual({ id: 1, name: 'Fern' });
    expect(Object.keys(present)).toEqual(['id', 'name']);
    expect(row).toEqual({ id: 1, name: 'Fern', tag: null });
  });
});
