/**
 * A row's members with `null` taken for absence: a member that may be `null` becomes optional,
 * and one that is `null` is left out. Other members keep their types.
 */
export type WithoutNulls<T> = { readonly [K in keyof T as null extends T[K] ? never : K]: T[K] } & {
  readonly [K in keyof T as null extends T[K] ? K : never]?: Exclude<T[K], null>;
};

/**
 * A storage row (where an absent optional member is NULL) as a codec's input, where an absent
 * member is left out: every `null` member is dropped, whatever its name, so a field added to a
 * codec needs nothing here. A fresh object holding the row's own enumerable members.
 */
export const withoutNulls = <T extends object>(row: T): WithoutNulls<T> =>
  // fromEntries defines each member as the object's own, a `__proto__` too (an assignment would
  // set the prototype instead).
  Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null)) as WithoutNulls<T>;
