import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describeValue, MAX_NAMED_UNKNOWN } from './describe-value.js';

type Struct<R extends t.Props, O extends t.Props> = { readonly [K in keyof R]: t.TypeOf<R[K]> } & {
  readonly [K in keyof O]?: t.TypeOf<O[K]>;
};
type StructOutput<R extends t.Props, O extends t.Props> = { [K in keyof R]: t.OutputOf<R[K]> } & {
  [K in keyof O]?: t.OutputOf<O[K]>;
};

/** A JSON object: not null, not an array. */
export const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/**
 * The codec `struct` returns: an io-ts type that also exposes its member codecs, as io-ts's
 * `InterfaceType` exposes `props`, so that code can walk the declaration (a test's arbitrary is
 * derived from it, docs/CONTRIBUTING.md). Reading them changes nothing of what the codec does.
 */
export class StructType<R extends t.Props, O extends t.Props> extends t.Type<
  Struct<R, O>,
  StructOutput<R, O>,
  unknown
> {
  readonly _tag = 'StructType' as const;
  constructor(
    name: string,
    is: StructType<R, O>['is'],
    validate: StructType<R, O>['validate'],
    encode: StructType<R, O>['encode'],
    /** The members every value has, by name. */
    readonly required: R,
    /** The members a value may leave out, by name. */
    readonly optional: O,
  ) {
    super(name, is, validate, encode);
  }
}

/**
 * A JSON object codec with required and optional members. Unknown members are rejected by name
 * (`unknown: 'reject'`, for what clients send us) or dropped (`'strip'`, for what we read back, so
 * that a newer server may add members). The decoded value is a fresh object holding only the known
 * members: `__proto__` or `constructor` keys can never reach the prototype chain.
 */
export const struct = <R extends t.Props, O extends t.Props>(
  name: string,
  required: R,
  optional: O,
  unknown: 'reject' | 'strip',
): StructType<R, O> => {
  const known = [...Object.keys(required), ...Object.keys(optional)];
  // The members in the order a value is written, each with its encoder (undefined: io-ts's
  // identity, as for every member of Plant), listed once and not per value: a page of plants
  // encodes one per row.
  const encoders = [...Object.entries(required), ...Object.entries(optional)].map(
    ([key, codec]) => [key, codec.encode === t.identity ? undefined : codec.encode] as const,
  );
  const allowed = `allowed: ${known.join(', ')}`;
  const members = (o: Record<string, unknown>, props: t.Props, isRequired: boolean) =>
    Object.keys(props).filter((key) => isRequired || (hasOwn(o, key) && o[key] !== undefined));

  const type: StructType<R, O> = new StructType<R, O>(
    name,
    (u): u is Struct<R, O> => E.isRight(type.validate(u, t.getDefaultContext(type))),
    (u, c) => {
      if (!isObject(u)) {
        return t.failure(u, c, `expected a JSON object, got ${describeValue(u)}`);
      }
      const input = u as Record<string, unknown>;
      const errors: t.ValidationError[] = [];
      const output: Record<string, unknown> = {};
      if (unknown === 'reject') {
        const strangers = Object.keys(input).filter((k) => !known.includes(k));
        for (const key of strangers.slice(0, MAX_NAMED_UNKNOWN)) {
          const context = t.appendContext(c, key, t.unknown, input[key]);
          errors.push({ value: input[key], context, message: `unknown member (${allowed})` });
        }
        if (strangers.length > MAX_NAMED_UNKNOWN) {
          errors.push({
            value: input,
            context: c,
            message: `and ${strangers.length - MAX_NAMED_UNKNOWN} more unknown members`,
          });
        }
      }
      const check = (props: t.Props, isRequired: boolean) => {
        for (const key of members(input, props, isRequired)) {
          const codec = props[key] as t.Mixed;
          const context = t.appendContext(c, key, codec, input[key]);
          if (!hasOwn(input, key)) {
            errors.push({ value: undefined, context, message: 'required' });
            continue;
          }
          const result = codec.validate(input[key], context);
          if (E.isLeft(result)) errors.push(...result.left);
          else output[key] = result.right;
        }
      };
      check(required, true);
      check(optional, false);
      return errors.length > 0 ? t.failures(errors) : t.success(output as Struct<R, O>);
    },
    (value) => {
      const output: Record<string, unknown> = {};
      const record = value as Record<string, unknown>;
      for (const [key, encode] of encoders) {
        const member = record[key];
        if (member !== undefined) output[key] = encode === undefined ? member : encode(member);
      }
      return output as StructOutput<R, O>;
    },
    required,
    optional,
  );
  return type;
};
