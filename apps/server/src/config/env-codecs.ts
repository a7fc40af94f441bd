import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';

/**
 * The codecs environment variables are decoded with: each reads a string and names, in `expected`,
 * what the variable should hold (the one-line configuration error quotes it after "expects").
 */

/**
 * A codec from an environment string, named `expected`: what the one-line error says the variable
 * should be. `encode` writes a value back (default String).
 */
export const fromString = <A>(
  expected: string,
  parse: (s: string) => A | undefined,
  encode: (a: A) => string = String,
): t.Type<A, string, unknown> =>
  new t.Type<A, string, unknown>(
    expected,
    (u): u is A => u !== undefined,
    (u, c) => {
      const parsed = typeof u === 'string' ? parse(u) : undefined;
      return parsed === undefined ? t.failure(u, c, expected) : t.success(parsed);
    },
    encode,
  );

/** A decimal integer from `min` to `max`, without sign, leading zeros or fraction. */
export const integer = (min: number, max: number): t.Type<number, string, unknown> =>
  fromString(`an integer from ${min} to ${max}`, (s) => {
    if (!/^(?:0|[1-9][0-9]{0,15})$/.test(s)) return undefined;
    const n = Number(s);
    return n >= min && n <= max ? n : undefined;
  });

/** One of `values`, optionally compared without case (the value decoded is the one listed). */
export const oneOf = <const K extends string>(
  values: readonly K[],
  caseInsensitive = false,
): t.Type<K, string, unknown> =>
  fromString(`one of ${values.join(', ')}`, (s) =>
    values.find((v) => (caseInsensitive ? v.toLowerCase() === s.toLowerCase() : v === s)),
  );

export const boolean = fromString('true or false', (s) => (s === 'true' ? true : s === 'false' ? false : undefined));

/** A TCP port; 0 lets the system choose one. */
export const port = integer(0, 65535);

/** Where a listener binds: a host name or an IP address. */
export const hostName = fromString('a host name or IP address without spaces', (s) =>
  /^[^\s/]+$/.test(s) ? s : undefined,
);

/** Any text but blanks; `what` names it in the error ("a non-empty issuer"). */
export const nonEmpty = (what: string): t.Type<string, string, unknown> =>
  fromString(`a non-empty ${what}`, (s) => (s.trim() === '' ? undefined : s));

/** `s` as a URL when it is one. */
export const parseUrl = (s: string): URL | undefined => {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
};

/** The trimmed items of a comma-separated list (an empty item stays, for the item check to refuse). */
export const commaSeparated = (s: string): string[] => s.split(',').map((item) => item.trim());

/** What `decodeVariables` makes of a set of codecs: each variable's value, when set and valid. */
export type DecodedVariables<C extends Record<string, t.Decoder<unknown, unknown>>> = {
  [K in keyof C]?: C[K] extends t.Decoder<unknown, infer A> ? A : never;
};

/**
 * Decodes every variable `codecs` names that `env` sets (an empty value counts as unset); each
 * invalid one adds `NAME expects <what its codec expects>` to `problems`. Every name is looked up,
 * set or not (the configuration test finds the variables the server reads that way).
 */
export const decodeVariables = <C extends Record<string, t.Decoder<unknown, unknown>>>(
  codecs: C,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): DecodedVariables<C> => {
  const decoded: Record<string, unknown> = {};
  for (const [name, codec] of Object.entries(codecs)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const result = codec.decode(raw);
    if (E.isRight(result)) decoded[name] = result.right;
    else problems.push(`${name} expects ${codec.name}`);
  }
  return decoded as DecodedVariables<C>;
};
