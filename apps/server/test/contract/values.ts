import { IdempotencyKey, PlantId, PlantName, PlantTag, type Plant } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type { Either } from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { expect } from 'vitest';

/** What the contract suites share: typed test values, and reading an Either in an assertion. */

/** The codec's value for `value`, or a TypeError: a test's own value must be valid. */
export const decodeOrThrow =
  <A>(codec: t.Type<A, unknown, unknown>) =>
  (value: unknown): A => {
    const result = codec.decode(value);
    if (E.isLeft(result)) throw new TypeError(`test value ${JSON.stringify(value)} is not a valid ${codec.name}`);
    return result.right;
  };
export const plantId = decodeOrThrow(PlantId as t.Type<PlantId, unknown, unknown>);
export const plantName = decodeOrThrow(PlantName as t.Type<PlantName, unknown, unknown>);
export const plantTag = decodeOrThrow(PlantTag as t.Type<PlantTag, unknown, unknown>);
export const idempotencyKey = decodeOrThrow(IdempotencyKey as t.Type<IdempotencyKey, unknown, unknown>);

/** The Right of an Either, or a failed assertion showing the Left (and its cause's message). */
export const rightOf = <E, A>(result: Either<E, A>): A => {
  if (E.isLeft(result)) {
    const cause = (result.left as { cause?: unknown }).cause;
    expect.fail(
      `expected Right, got Left ${JSON.stringify(result.left)}${cause instanceof Error ? `: ${cause.message}` : ''}`,
    );
  }
  return result.right;
};

/** A store result without the version: the plant alone, for tests about what was stored. */
export const plainPlant = <E>(result: Either<E, { readonly plant: Plant }>): Either<E, Plant> =>
  E.isLeft(result) ? result : { _tag: 'Right', right: result.right.plant };

/** A read's result without where it stands in the change log: the plant and its version. */
export const versioned = <E, A extends { readonly changeSeq: number }>(
  result: Either<E, A>,
): Either<E, Omit<A, 'changeSeq'>> => {
  if (E.isLeft(result)) return result;
  const { changeSeq: _at, ...rest } = result.right;
  return { _tag: 'Right', right: rest };
};
