/**
 * A copy of `value` that also carries `metadata` (`replayed`, later `etag` …) as non-enumerable,
 * read-only own properties. They are typed and readable (`plant.replayed`), but `Object.keys`,
 * spreading, `JSON.stringify` and deep equality (`toEqual`, `assert.deepStrictEqual`) do not see
 * them, so a result that gains metadata still equals what it equalled before. A metadata name that
 * `value` already has would hide that member: a defect, so a `TypeError`.
 */
export const withMetadata = <A extends object, M extends Readonly<Record<string, unknown>>>(
  value: A,
  metadata: M,
): A & Readonly<M> => {
  const descriptors: PropertyDescriptorMap = {};
  for (const [key, item] of Object.entries(metadata)) {
    if (Object.hasOwn(value, key))
      throw new TypeError(`metadata ${JSON.stringify(key)} would hide a member of the value`);
    descriptors[key] = { value: item, enumerable: false, writable: false, configurable: false };
  }
  return Object.defineProperties({ ...value }, descriptors) as A & Readonly<M>;
};
