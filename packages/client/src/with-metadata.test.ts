import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withMetadata } from './with-metadata.js';

describe('withMetadata', () => {
  it('adds readable, read-only members that keys, spreading, JSON and deep equality do not see', () => {
    const plant = withMetadata({ id: 1, name: 'Fern' }, { replayed: true, etag: '"abc"' });
    expect(plant.replayed).toBe(true);
    expect(plant.etag).toBe('"abc"');
    expect(plant).toStrictEqual({ id: 1, name: 'Fern' });
    expect(Object.keys(plant)).toEqual(['id', 'name']);
    expect({ ...plant }).toStrictEqual({ id: 1, name: 'Fern' });
    expect(JSON.stringify(plant)).toBe('{"id":1,"name":"Fern"}');
    expect(() => {
      (plant as { replayed: boolean }).replayed = false;
    }).toThrow(TypeError);
  });

  it('leaves the given value alone', () => {
    const value = { id: 1 };
    withMetadata(value, { replayed: false });
    expect(Object.getOwnPropertyNames(value)).toEqual(['id']);
  });

  it('refuses a name the value already has', () => {
    expect(() => withMetadata({ id: 1, replayed: true }, { replayed: false })).toThrow(TypeError);
  });

  it('keeps every enumerable member as it was', () => {
    const key = fc.string().filter((name) => name !== 'replayed');
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue(), { noNullPrototype: true }), fc.boolean(), (value, replayed) => {
        const decorated = withMetadata(value, { replayed });
        expect(decorated).toStrictEqual(value);
        expect(JSON.stringify(decorated)).toBe(JSON.stringify(value));
        expect(Object.getOwnPropertyDescriptor(decorated, 'replayed')).toMatchObject({
          value: replayed,
          enumerable: false,
        });
      }),
    );
  });
});
