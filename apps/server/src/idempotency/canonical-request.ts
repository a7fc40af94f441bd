import { CreatePlantRequest, withoutNulls } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';

/**
 * What makes two creates "the same request" for an idempotency key: the decoded body, so that
 * JSON values compare, not bytes (member order, whitespace, escapes and number spelling vanish
 * in parsing; the codec keeps only the members it declares). Written as the request's encoding
 * through `CreatePlantRequest`, its members sorted by name, so that it equals another exactly
 * when the requests are equal, and a member added to the codec takes part without a change here.
 * The store keeps it with the key, and rebuilds a replayed 201's plant from it (savedCreateDecoder
 * in adapters/store-rows.ts), so no hash is computed and nothing is stored twice.
 */
export const canonicalRequest = (request: CreatePlantRequest): string => {
  const encoded = Object.entries(CreatePlantRequest.encode(request));
  return JSON.stringify(Object.fromEntries(encoded.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
};

/**
 * The form releases before this one saved: the array `[id, name, tag]`, null for an absent
 * member. Read only, so that a key saved before an upgrade still replays
 * (docs/explanation/storage.md, "Idempotency keys inside the stores"); it can go once every such
 * key has expired, one idempotency TTL after the upgrade.
 */
const isEarlierForm = (u: unknown): u is readonly [unknown, unknown, unknown] => Array.isArray(u) && u.length === 3;

const parseJson = (text: string, c: t.Context): t.Validation<unknown> => {
  try {
    return t.success(JSON.parse(text));
  } catch {
    return t.failure(text, c, 'expected the canonical JSON of a create');
  }
};

/** A saved request's text, in today's form or the earlier one, as the request it was. */
export const SavedRequest = new t.Type<CreatePlantRequest, string, unknown>(
  'SavedRequest',
  CreatePlantRequest.is,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected the canonical JSON of a create');
    const parsed = parseJson(u, c);
    if (E.isLeft(parsed)) return parsed;
    if (!isEarlierForm(parsed.right)) return CreatePlantRequest.validate(parsed.right, c);
    const [id, name, tag] = parsed.right;
    return CreatePlantRequest.validate(withoutNulls({ id, name, tag }), c);
  },
  canonicalRequest,
);
