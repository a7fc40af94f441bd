import { CreatePlantRequest, withoutNulls } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';

/**
 * The members the earlier form holds, in its order: the JSON array `[id, name, tag]`, null for an
 * absent member. It is the form the previous release writes and the only one it reads, so this
 * release writes it too whenever it can hold the request (expand, then contract: a keyed retry
 * that lands on an instance of the previous release during a rolling upgrade still replays). A
 * request with a member it cannot hold — a field added to the codec later — is written in the
 * encoded form below. The earlier form is a frozen format, not a second spelling of the plant:
 * it goes once the previous release reads the encoded form (docs/explanation/storage.md,
 * "Idempotency keys inside the stores").
 */
const EARLIER_FORM = ['id', 'name', 'tag'] as const;
const inEarlierForm = (member: string): boolean => (EARLIER_FORM as readonly string[]).includes(member);

/**
 * What makes two creates "the same request" for an idempotency key: the decoded body, so that
 * JSON values compare, not bytes (member order, whitespace, escapes and number spelling vanish
 * in parsing; the codec keeps only the members it declares). Written from the request's encoding
 * through `CreatePlantRequest`: in the earlier form when it holds every member, else as the
 * encoded object, its members sorted by name. Either way it equals another exactly when the
 * requests are equal, and a member added to the codec takes part without a change here. The store
 * keeps it with the key, and rebuilds a replayed 201's plant from it (savedCreateDecoder in
 * adapters/store-rows.ts), so no hash is computed and nothing is stored twice.
 */
export const canonicalRequest = (request: CreatePlantRequest): string => {
  const encoded: Readonly<Record<string, unknown>> = CreatePlantRequest.encode(request);
  const members = Object.keys(encoded);
  if (members.every(inEarlierForm)) return JSON.stringify(EARLIER_FORM.map((member) => encoded[member] ?? null));
  return JSON.stringify(Object.fromEntries(members.sort().map((member) => [member, encoded[member]])));
};

/** A saved request in the earlier form (see EARLIER_FORM). */
const isEarlierForm = (u: unknown): u is readonly unknown[] => Array.isArray(u) && u.length === EARLIER_FORM.length;

const parseJson = (text: string, c: t.Context): t.Validation<unknown> => {
  try {
    return t.success(JSON.parse(text));
  } catch {
    return t.failure(text, c, 'expected the canonical JSON of a create');
  }
};

/** A saved request's text, in either form, as the request it was. */
export const SavedRequest = new t.Type<CreatePlantRequest, string, unknown>(
  'SavedRequest',
  CreatePlantRequest.is,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected the canonical JSON of a create');
    const parsed = parseJson(u, c);
    if (E.isLeft(parsed)) return parsed;
    if (!isEarlierForm(parsed.right)) return CreatePlantRequest.validate(parsed.right, c);
    const earlier = parsed.right;
    return CreatePlantRequest.validate(
      withoutNulls(Object.fromEntries(EARLIER_FORM.map((member, i) => [member, earlier[i]]))),
      c,
    );
  },
  canonicalRequest,
);
