import * as t from 'io-ts';
import { describeValue } from './describe-value.js';

/** The longest key, counted inside the quotes when the key is sent as an RFC 8941 string. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The characters of a key: a deliberate subset of the printable ASCII that
 * draft-ietf-httpapi-idempotency-key-header allows, wide enough for UUIDs, ULIDs and base64.
 */
export const IDEMPOTENCY_KEY_PATTERN = `^[A-Za-z0-9._:~+/=-]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`;
const keyPattern = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export interface IdempotencyKeyBrand {
  readonly IdempotencyKey: unique symbol;
}

const isKey = (u: unknown): u is t.Branded<string, IdempotencyKeyBrand> => typeof u === 'string' && keyPattern.test(u);

/** An `Idempotency-Key`: 1–255 characters from `[A-Za-z0-9._:~+/=-]`. */
export const IdempotencyKey = new t.Type<t.Branded<string, IdempotencyKeyBrand>, string, unknown>(
  'IdempotencyKey',
  isKey,
  (u, c) =>
    isKey(u)
      ? t.success(u)
      : t.failure(
          u,
          c,
          `expected 1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters from A–Z a–z 0–9 . _ : ~ + / = -, got ${describeValue(u)}`,
        ),
  (key) => key,
);
export type IdempotencyKey = t.TypeOf<typeof IdempotencyKey>;

/**
 * The key that one `Idempotency-Key` field line carries: the key bare (`k`) or as an RFC 8941
 * string holding only key characters (`"k"`); both mean the same key. Anything else (escapes,
 * parameters, a list, an empty value) → undefined.
 */
export const parseIdempotencyKeyField = (value: string): IdempotencyKey | undefined => {
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  const key = quoted ? value.slice(1, -1) : value;
  return isKey(key) ? key : undefined;
};
