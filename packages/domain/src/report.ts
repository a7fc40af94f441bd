import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type * as t from 'io-ts';
import { describeValue, echoName } from './describe-value.js';
import { invalidPlant, type InvalidPlant } from './plant-error.js';

const pathOf = (context: t.Context, root: string | undefined): string => {
  let path = '';
  for (const { key } of context) {
    if (key === '') continue;
    const name = echoName(key);
    path += /^\d+$/.test(key) ? `[${key}]` : path === '' ? name : `.${name}`;
  }
  return path === '' ? (root ?? '') : root === undefined ? path : `${root}.${path}`;
};

/**
 * Turns io-ts's errors into one readable line each, `field: what was expected, got what`.
 * Our codecs attach their own messages; anything else falls back to the type's name.
 */
export const formatErrors = (errors: t.Errors, root?: string): readonly string[] => {
  const lines = errors.map((error) => {
    const path = pathOf(error.context, root);
    const last = error.context[error.context.length - 1];
    const text = error.message ?? `expected ${last?.type.name ?? 'a valid value'}, got ${describeValue(error.value)}`;
    return path === '' ? text : `${path}: ${text}`;
  });
  return [...new Set(lines)];
};

/** Decodes `input` with `codec`; a failure becomes `InvalidPlant` carrying readable messages. */
export const decodeWith =
  <A, O>(codec: t.Type<A, O, unknown>, root?: string) =>
  (input: unknown): E.Either<InvalidPlant, A> =>
    pipe(
      codec.decode(input),
      E.mapLeft((errors) => invalidPlant(formatErrors(errors, root))),
    );
