import { formatErrors, idTaken, Plant, PlantId, plantOfRow, PlantTag } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { canonicalRequest, SavedRequest } from '../idempotency/canonical-request.js';
import type { SavedCreate } from '../idempotency/replay.js';
import { isBatchText } from '../idempotency/batch-request.js';
import {
  storeUnavailable,
  type PlantVersion,
  type StoreUnavailable,
  type VersionedPlant,
} from '../ports/plant-store.js';
import { SCOPES, type Scope, type TokenRecord } from '../ports/token-store.js';
import type { Change, ChangesAbove } from '../ports/change-log.js';

/**
 * Row decoding that the SQLite and PostgreSQL adapters share. Each adapter keeps the codecs for
 * its own column types (SQLite: epoch milliseconds and space-separated scopes; PostgreSQL: int8
 * as text, timestamptz and jsonb) and hands them here; turning a decoded row into a record, and
 * a row that does not decode into StoreUnavailable, happens once, in this file.
 */

/** StoreUnavailable for a row of `table` that does not decode, naming the failing fields. */
export const rowProblem = (table: string, errors: t.Errors): StoreUnavailable =>
  storeUnavailable(new TypeError(`a row of ${table} does not decode: ${formatErrors(errors).join('; ')}`));

/** Decodes every row of a page with `decode`; the first bad row fails the page. */
export const decodeEach =
  <A>(decode: (row: unknown) => E.Either<StoreUnavailable, A>) =>
  (rows: readonly unknown[]): E.Either<StoreUnavailable, readonly A[]> => {
    const decoded: A[] = [];
    for (const row of rows) {
      const one = decode(row);
      if (E.isLeft(one)) return one;
      decoded.push(one.right);
    }
    return E.right(decoded);
  };

/** One scope name, as stored. */
export const ScopeCodec = t.keyof(Object.fromEntries(SCOPES.map((s) => [s, null])) as Record<Scope, null>, 'Scope');

/** A `tokens` row once its adapter's codec has decoded the columns. */
export interface TokenColumns {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly hash: Uint8Array;
  readonly created_at: Date;
  readonly expires_at: Date | null;
  readonly revoked_at: Date | null;
}

export interface TokenRowDecoders {
  /** A `tokens` row to a TokenRecord with its stored hash. */
  readonly tokenFromRow: (row: unknown) => E.Either<StoreUnavailable, TokenRecord & { readonly hash: Uint8Array }>;
  /** A `tokens` row to a TokenRecord without the hash (for listings). */
  readonly tokenRecordFromRow: (row: unknown) => E.Either<StoreUnavailable, TokenRecord>;
}

/** The token decoders for an adapter whose `tokens` rows `columns` decodes. */
export const tokenRowDecoders = (columns: t.Decoder<unknown, TokenColumns>): TokenRowDecoders => {
  const tokenFromRow: TokenRowDecoders['tokenFromRow'] = (row) =>
    pipe(
      columns.decode(row),
      E.map((r) => ({
        id: r.id,
        name: r.name,
        scopes: r.scopes,
        hash: r.hash,
        createdAt: r.created_at,
        expiresAt: r.expires_at,
        revokedAt: r.revoked_at,
      })),
      E.mapLeft((errors) => rowProblem('tokens', errors)),
    );
  const tokenRecordFromRow: TokenRowDecoders['tokenRecordFromRow'] = (row) =>
    pipe(
      tokenFromRow(row),
      E.map(({ hash: _hash, ...record }) => record),
    );
  return { tokenFromRow, tokenRecordFromRow };
};

const isVersion = (u: unknown): u is PlantVersion => typeof u === 'number' && Number.isSafeInteger(u) && u >= 0;

/** int8 text (PostgreSQL) in canonical decimal digits, 0 … 2^53−1, as a number. */
const naturalFromText = (name: string, expected: string) =>
  new t.Type<number, string, unknown>(
    name,
    isVersion,
    (u, c) =>
      typeof u === 'string' && /^(?:0|[1-9][0-9]{0,15})$/.test(u) && isVersion(Number(u))
        ? t.success(Number(u))
        : t.failure(u, c, expected),
    String,
  );

const countDecoder =
  (row: t.Decoder<unknown, { readonly n: number }>) =>
  (u: unknown): E.Either<StoreUnavailable, number> =>
    pipe(
      row.decode(u),
      E.map((r) => r.n),
      E.mapLeft((errors) =>
        storeUnavailable(new TypeError(`a count does not decode: ${formatErrors(errors).join('; ')}`)),
      ),
    );

/** `SELECT count(*) AS n` (PostgreSQL: `count(*)::int4`, so it arrives as a number) to a number. */
export const countFromRow = countDecoder(t.type({ n: t.Int }, 'CountRow'));

/** `SELECT count(*)::text AS n` (PostgreSQL, a count that may pass int4) to a number. */
export const countFromTextRow = countDecoder(
  t.type({ n: naturalFromText('CountFromText', 'expected a count from 0 to 2^53-1 as int8 text') }, 'CountRow'),
);

/** A `version` column stored as an integer (SQLite): 0 … 2^53−1. */
export const VersionFromNumber = new t.Type<PlantVersion, number, unknown>(
  'PlantVersion',
  isVersion,
  (u, c) => (isVersion(u) ? t.success(u) : t.failure(u, c, 'expected a version from 0 to 2^53-1')),
  (v) => v,
);

/** A `version` column as int8 text (PostgreSQL): canonical decimal digits, 0 … 2^53−1. */
export const VersionFromText: t.Type<PlantVersion, string, unknown> = naturalFromText(
  'PlantVersionFromText',
  'expected a version from 0 to 2^53-1 as int8 text',
);

/** A plant row, decoded by its adapter's `plantFromRow`, with its `version` column. */
export const versionedPlantDecoder =
  (plantFromRow: (row: unknown) => E.Either<StoreUnavailable, Plant>, version: t.Decoder<unknown, PlantVersion>) =>
  (row: unknown): E.Either<StoreUnavailable, VersionedPlant> => {
    const plant = plantFromRow(row);
    // Fast path: a version that is already what the codec gives (an INTEGER column).
    const raw = (row as { readonly version?: unknown }).version;
    if (E.isRight(plant) && isVersion(raw)) return E.right({ plant: plant.right, version: raw });
    return pipe(
      plant,
      E.chain((plant) =>
        pipe(
          version.decode((row as { readonly version?: unknown }).version),
          E.map((v) => ({ plant, version: v })),
          E.mapLeft((errors) => rowProblem('plants', errors)),
        ),
      ),
    );
  };

const SavedColumns = t.type(
  { request: t.string, status: t.union([t.literal(201), t.literal(409)]) },
  'IdempotencyKeyRow',
);

/** A change number as either store hands it back (a number; PostgreSQL selects float8), or NULL: none saved. */
const ChangeSeqOrNull = new t.Type<number | null, number | null, unknown>(
  'ChangeSeqOrNull',
  (u): u is number | null => u === null || isVersion(u),
  (u, c) =>
    u === null || u === undefined
      ? t.success(null)
      : isVersion(u)
        ? t.success(u)
        : t.failure(u, c, 'expected a change number'),
  (n) => n,
);

/**
 * The decoder of `idempotency_keys` rows for an adapter whose `plant_id` and `version` columns
 * `plantId` and `version` decode (SQLite: numbers; PostgreSQL: int8 as text). A 201 row becomes
 * the plant it created, its members those of the saved request (see SavedRequest) with the row's
 * id, checked by the domain's Plant codec, with the version it was created with and the change
 * number of its create (`change_seq`: absent when NULL, a key saved before migration 10); a 409
 * row the IdTaken of its id. Either carries its request in today's canonical form.
 */
export const savedCreateDecoder =
  (plantId: t.Decoder<unknown, PlantId>, version: t.Decoder<unknown, PlantVersion>) =>
  (row: unknown): E.Either<StoreUnavailable, SavedCreate> =>
    pipe(
      SavedColumns.decode(row),
      E.chain(({ request, status }) =>
        pipe(
          plantId.decode((row as { readonly plant_id?: unknown }).plant_id),
          E.chain((id): t.Validation<SavedCreate> =>
            pipe(
              SavedRequest.decode(request),
              E.chain((saved) => {
                // Compared in today's form, so that a key saved in the earlier one still replays.
                const canonical = canonicalRequest(saved);
                if (status === 409) return E.right({ request: canonical, result: E.left(idTaken(id)) });
                return pipe(
                  Plant.decode({ ...saved, id }),
                  E.chain((plant) =>
                    pipe(
                      version.decode((row as { readonly version?: unknown }).version),
                      E.chain((v) =>
                        pipe(
                          ChangeSeqOrNull.decode((row as { readonly change_seq?: unknown }).change_seq),
                          E.map((changeSeq) => ({
                            request: canonical,
                            result: E.right({ plant, version: v, ...(changeSeq === null ? {} : { changeSeq }) }),
                          })),
                        ),
                      ),
                    ),
                  ),
                );
              }),
            ),
          ),
        ),
      ),
      E.mapLeft((errors) => rowProblem('idempotency_keys', errors)),
    );

/**
 * savedCreateDecoder for every row a key can hold: a row an array of creates saved
 * (POST /plants/batch, idempotency/batch-request.ts) carries its array's request, which equals
 * no single create's, so a create with that key is answered IdempotencyKeyReused (422).
 */
export const savedKeyDecoder = (plantId: t.Decoder<unknown, PlantId>, version: t.Decoder<unknown, PlantVersion>) => {
  const single = savedCreateDecoder(plantId, version);
  return (row: unknown): E.Either<StoreUnavailable, SavedCreate> => {
    const { request, plant_id: id } = (row ?? {}) as { readonly request?: unknown; readonly plant_id?: unknown };
    if (typeof request !== 'string' || !isBatchText(request)) return single(row);
    return pipe(
      plantId.decode(id),
      E.map((first): SavedCreate => ({ request, result: E.left(idTaken(first)) })),
      E.mapLeft((errors) => rowProblem('idempotency_keys', errors)),
    );
  };
};

const CHANGE_TYPES = new Set(['plant.created', 'plant.updated', 'plant.deleted']);
const isCount = (u: unknown): u is number => typeof u === 'number' && Number.isSafeInteger(u) && u >= 0;

/** A change as a row of `plant_changes` (seq, plant_id, version and at as numbers: PostgreSQL selects them as float8). */
const ChangeRow = new t.Type<Change, unknown, unknown>(
  'ChangeRow',
  (u): u is Change => typeof u === 'object' && u !== null,
  (u, c) => {
    if (typeof u !== 'object' || u === null) return t.failure(u, c, 'expected a row object');
    const row = u as Record<string, unknown>;
    const { seq, type, plant_id: id, version, at } = row;
    if (!isCount(seq) || seq < 1) return t.failure(seq, c, 'expected seq to be a positive integer');
    if (typeof type !== 'string' || !CHANGE_TYPES.has(type)) return t.failure(type, c, 'expected a change type');
    if (!PlantId.is(id)) return t.failure(id, c, 'expected plant_id to be a plant id');
    if (!isCount(at)) return t.failure(at, c, 'expected at to be milliseconds since the epoch');
    const leftTag = row['left_tag'] ?? undefined;
    if (leftTag !== undefined && !PlantTag.is(leftTag)) return t.failure(leftTag, c, 'expected left_tag to be a tag');
    const left = leftTag === undefined ? {} : { leftTag };
    if (type === 'plant.deleted') return t.success({ seq, type, at, id, ...left });
    // The plant after the change: the row's plant columns, with its plant_id as the id.
    const plant = plantOfRow(row, id);
    if (plant === undefined) return t.failure(u, c, 'expected the plant after the change');
    if (!isVersion(version)) return t.failure(version, c, 'expected a version from 0 to 2^53-1');
    return t.success({ ...plant, seq, type: type as 'plant.created' | 'plant.updated', at, version, ...left });
  },
  (change) => change,
);

/** A `plant_changes` row to a Change, or StoreUnavailable naming what does not decode. */
export const changeFromRow = (row: unknown): E.Either<StoreUnavailable, Change> =>
  pipe(
    ChangeRow.decode(row),
    E.mapLeft((errors) => rowProblem('plant_changes', errors)),
  );

/**
 * The change log's state (migration 8): the newest number given, and the newest forgotten; from
 * migration 11, the newest number whose left tag the log does not know (0: none).
 */
export interface ChangeState {
  readonly lastSeq: number;
  readonly forgottenThrough: number;
  readonly untaggedThrough: number;
}

const isSeq = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/**
 * The state row as either store selects it: `last_seq`, and `forgotten_through` and
 * `untagged_through` where the read needs them (0 where it does not select them); StoreUnavailable
 * when the row is missing or malformed.
 */
export const changeStateFromRow = (row: unknown): E.Either<StoreUnavailable, ChangeState> => {
  const {
    last_seq: lastSeq,
    forgotten_through: forgottenThrough = 0,
    untagged_through: untaggedThrough = 0,
  } = (row ?? {}) as Record<string, unknown>;
  return isSeq(lastSeq) && isSeq(forgottenThrough) && isSeq(untaggedThrough)
    ? E.right({ lastSeq, forgottenThrough, untaggedThrough })
    : E.left(storeUnavailable(new TypeError('plant_change_state holds no valid row')));
};

/** The change rows above a number, read with the log's state, to what the log holds above it. */
export const changesAbove = (
  since: number,
  state: ChangeState,
  rows: readonly unknown[],
  expiredBefore: number,
): E.Either<StoreUnavailable, ChangesAbove> => {
  if (since > state.lastSeq) return E.right({ kind: 'ahead', newest: state.lastSeq });
  if (since < state.forgottenThrough) return E.right({ kind: 'expired' });
  const changes = decodeEach(changeFromRow)(rows);
  if (E.isLeft(changes)) return changes;
  const first = changes.right[0];
  if (first !== undefined && first.at < expiredBefore) return E.right({ kind: 'expired' });
  return E.right({ kind: 'changes', changes: changes.right, newest: state.lastSeq });
};

/**
 * The rows of a feed of one tag above a number, read with the log's state and the commit time of
 * the first change above it (of any tag; undefined: none), to what the log holds for that tag:
 * judged by position like `changesAbove`, and expired too below the newest change whose left tag
 * the log does not know.
 */
export const changesAboveTagged = (
  since: number,
  state: ChangeState,
  firstAt: unknown,
  rows: readonly unknown[],
  expiredBefore: number,
): E.Either<StoreUnavailable, ChangesAbove> => {
  if (since > state.lastSeq) return E.right({ kind: 'ahead', newest: state.lastSeq });
  if (since < state.forgottenThrough || since < state.untaggedThrough) return E.right({ kind: 'expired' });
  if (firstAt !== undefined && firstAt !== null) {
    if (!isSeq(firstAt)) return E.left(storeUnavailable(new TypeError('plant_changes holds an invalid at')));
    if (firstAt < expiredBefore) return E.right({ kind: 'expired' });
  }
  const changes = decodeEach(changeFromRow)(rows);
  if (E.isLeft(changes)) return changes;
  return E.right({ kind: 'changes', changes: changes.right, newest: state.lastSeq });
};
