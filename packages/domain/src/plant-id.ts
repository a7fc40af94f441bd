import * as t from 'io-ts';
import { describeValue } from './describe-value.js';

/** The largest id: 2^53−1, the largest integer a JSON number carries exactly in JavaScript. */
export const MAX_PLANT_ID = Number.MAX_SAFE_INTEGER;

const idRange = `from 1 to ${MAX_PLANT_ID}`;

export interface PlantIdBrand {
  readonly PlantId: unique symbol;
}

const isPlantId = (u: unknown): u is t.Branded<number, PlantIdBrand> =>
  typeof u === 'number' && Number.isSafeInteger(u) && u >= 1;

/** A plant's id: a safe integer 1 … 2^53−1, as a JSON number. */
export const PlantId = new t.Type<t.Branded<number, PlantIdBrand>, number, unknown>(
  'PlantId',
  isPlantId,
  (u, c) => (isPlantId(u) ? t.success(u) : t.failure(u, c, `expected an integer ${idRange}, got ${describeValue(u)}`)),
  t.identity,
);
export type PlantId = t.TypeOf<typeof PlantId>;

const canonicalDecimal = /^(?:0|[1-9][0-9]{0,15})$/;

/** Parses canonical decimal digits (no sign, no leading zero, no spaces) within [min, MAX_PLANT_ID]. */
export const parseDecimal = (u: unknown, min: number): number | undefined => {
  if (typeof u !== 'string' || !canonicalDecimal.test(u)) return undefined;
  const n = Number(u);
  return n >= min && n <= MAX_PLANT_ID ? n : undefined;
};

/** The `{id}` path segment: decimal digits, no sign, no leading zero, 1 … 2^53−1. */
export const PlantIdFromPath = new t.Type<PlantId, string, unknown>(
  'PlantIdFromPath',
  PlantId.is,
  (u, c) => {
    const n = parseDecimal(u, 1);
    return n === undefined
      ? t.failure(u, c, `expected decimal digits without sign or leading zero, ${idRange}, got ${describeValue(u)}`)
      : t.success(n as PlantId);
  },
  String,
);

export interface ListCursorBrand {
  readonly ListCursor: unique symbol;
}

/** Where a list page starts: 0 (from the beginning) or the last id of the previous page. */
export const ListCursor = t.brand(
  t.Int,
  (n): n is t.Branded<t.Int, ListCursorBrand> => n >= 0 && n <= MAX_PLANT_ID,
  'ListCursor',
);
export type ListCursor = t.TypeOf<typeof ListCursor>;

/** `after` as it arrives in a query string: "0" or canonical decimal digits up to 2^53−1. */
export const ListCursorFromString = new t.Type<ListCursor, string, unknown>(
  'ListCursorFromString',
  ListCursor.is,
  (u, c) => {
    const n = parseDecimal(u, 0);
    return n === undefined
      ? t.failure(
          u,
          c,
          `expected decimal digits without sign or leading zero, from 0 to ${MAX_PLANT_ID}, got ${describeValue(u)}`,
        )
      : t.success(n as ListCursor);
  },
  String,
);
