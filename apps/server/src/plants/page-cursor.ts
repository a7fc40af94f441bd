import {
  fold,
  invalidPlant,
  isNameSort,
  PlantId,
  PlantName,
  PlantSort,
  type InvalidPlant,
  type PageCursor,
} from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { createHash } from 'node:crypto';
import type { NamePlace } from '../ports/plant-store.js';

/**
 * The `cursor` of a name-ordered page: where the previous page ended (its last plant's name and
 * id) and what it was made for. The name, not the folded name, travels: a name is at most 200
 * code points, so the token stays under 2,048 characters, while NFKC can make a folded name many
 * times longer; folding it again gives back the same place. The sort, q and tag the cursor was
 * made with travel as a digest, so that a cursor reused with another query is refused rather
 * than silently starting somewhere else. Base64url of JSON: only unreserved characters.
 */
interface CursorBody {
  readonly v: 1;
  readonly s: 'name' | '-name';
  readonly n: string;
  readonly i: number;
  readonly b: string;
}

/** The parts of a list query a cursor is bound to. */
interface CursorScope {
  readonly sort: PlantSort;
  readonly q?: string | undefined;
  readonly tag?: string | undefined;
}

/** What a cursor is bound to: its sort, q and tag, digested (not a secret, only a fingerprint). */
const bindingOf = ({ sort, q, tag }: CursorScope): string =>
  createHash('sha256')
    .update(JSON.stringify([sort, q ?? null, tag ?? null]))
    .digest('base64url')
    .slice(0, 16);

/** The cursor of the page after one that ended at `last`, for a name-ordered query. */
export const encodePageCursor = (
  query: CursorScope & { sort: 'name' | '-name' },
  last: { id: PlantId; name: string },
): string => {
  const body: CursorBody = { v: 1, s: query.sort, n: last.name, i: last.id, b: bindingOf(query) };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
};

const malformed = (): InvalidPlant =>
  invalidPlant(['cursor: not a cursor this server wrote (pass the one from the previous page’s Link unchanged)']);

const parse = (cursor: string): CursorBody | undefined => {
  const bytes = Buffer.from(cursor, 'base64url');
  // Buffer skips characters outside the alphabet; only a canonical token is one we wrote.
  if (bytes.toString('base64url') !== cursor) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { v, s, n, i, b } = body as Record<string, unknown>;
  return v === 1 && PlantSort.is(s) && isNameSort(s) && PlantName.is(n) && PlantId.is(i) && typeof b === 'string'
    ? { v, s, n, i, b }
    : undefined;
};

/**
 * The place a name-ordered page starts after, from the query's cursor: undefined without one; a
 * 400 for a cursor we did not write or one made for another sort, q or tag.
 */
export const decodePageCursor = (
  query: CursorScope & { cursor?: PageCursor },
): E.Either<InvalidPlant, NamePlace | undefined> => {
  if (query.cursor === undefined) return E.right(undefined);
  const body = parse(query.cursor);
  if (body === undefined) return E.left(malformed());
  if (body.s !== query.sort || body.b !== bindingOf(query)) {
    return E.left(
      invalidPlant([
        'cursor: made for another sort, q or tag (a cursor continues only the query whose Link gave it; start again without it)',
      ]),
    );
  }
  return E.right({ folded: fold(body.n), id: body.i as PlantId });
};
