/** A short human description of a decoded-from-JSON value, for error messages. */
export const describeValue = (u: unknown): string => {
  if (u === null) return 'null';
  if (u === undefined) return 'nothing';
  if (Array.isArray(u)) return 'an array';
  switch (typeof u) {
    case 'string':
      return u.length > 40 ? `a string ${JSON.stringify(u.slice(0, 40))}…` : `a string ${JSON.stringify(u)}`;
    case 'number':
      return Number.isFinite(u) ? `${u}` : 'a number out of range';
    case 'boolean':
      return `${u}`;
    case 'object':
      return 'an object';
    default:
      return `a ${typeof u}`;
  }
};

/** Longest member or parameter name echoed in a message; longer names are cut, so input cannot inflate errors. */
export const MAX_ECHOED_NAME = 64;

/** `name` as it may appear in a message: at most MAX_ECHOED_NAME code units, then `…`. */
export const echoName = (name: string): string =>
  name.length > MAX_ECHOED_NAME ? `${name.slice(0, MAX_ECHOED_NAME)}…` : name;

/** At most this many unknown members or parameters are named one by one; the rest are counted. */
export const MAX_NAMED_UNKNOWN = 10;
