import { Plant, PlantIdFromPath, plantOfRow, withoutNulls } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import type { StoreUnavailable } from '../../ports/plant-store.js';
import type { PostgresStoreLogger } from './gate.js';
import { PLANT_FIELDS } from '../plant-columns.js';
import type { Scope } from '../../ports/token-store.js';
import type { SavedCreate } from '../../idempotency/replay.js';
import {
  decodeEach,
  rowProblem,
  savedKeyDecoder,
  ScopeCodec,
  tokenRowDecoders,
  VersionFromText,
  versionedPlantDecoder,
} from '../store-rows.js';

/**
 * Codecs for what the `postgres` driver hands back. Every row goes through one of these before
 * it leaves the adapter; a row that does not decode becomes StoreUnavailable naming the table and
 * the fields, never a half-typed value.
 *
 * Trap: PostgreSQL's `int8` arrives as a string (the driver cannot know it fits a JS number).
 * The id column is `int8` with a CHECK keeping it within 1 … 2^53−1, so the string is parsed
 * with the domain's canonical-decimal codec and the row then decoded with `Plant`, so an id
 * always leaves as a JSON number. What both adapters do alike lives in store-rows.ts.
 */

/** The id column of a `plants` row; the other plant columns go to Plant, NULLs left out. */
const PlantRow = t.type({ id: PlantIdFromPath }, 'PlantRow');

/** An id as int8 text in canonical form: no sign, no leading zero, at most 16 digits. */
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;

/** A `plants` row to a Plant through the codecs alone (what the fast path below must agree with). */
export const plantFromRowByCodecs = (row: unknown): E.Either<StoreUnavailable, Plant> =>
  pipe(
    PlantRow.decode(row),
    E.chain((r) => Plant.decode(withoutNulls(r))),
    E.mapLeft((errors) => rowProblem('plants', errors)),
  );

/** A `plants` row to a Plant; a NULL column becomes an absent member (never `null`). */
export const plantFromRow = (row: unknown): E.Either<StoreUnavailable, Plant> => {
  // Fast path: the same checks as the codecs, through the members' own type guards.
  if (typeof row === 'object' && row !== null) {
    const columns = row as Readonly<Record<string, unknown>>;
    const text = columns['id'];
    const plant = typeof text === 'string' && CANONICAL_ID.test(text) ? plantOfRow(columns, Number(text)) : undefined;
    if (plant !== undefined) return E.right(plant);
  }
  return plantFromRowByCodecs(row);
};

/** Decodes every row of a page; the first bad row fails the page. */
export const plantsFromRows = decodeEach(plantFromRow);

/** A `plants` row with its `version` (int8, selected as text) to a VersionedPlant. */
export const versionedPlantFromRow = versionedPlantDecoder(plantFromRow, VersionFromText);

const Scopes = t.readonlyArray(ScopeCodec);

/** `scopes` is jsonb, selected as `scopes::text` (the driver then leaves JSON parsing to us). */
const ScopesFromJsonText = new t.Type<readonly Scope[], string, unknown>(
  'ScopesFromJsonText',
  Scopes.is,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected jsonb text');
    let parsed: unknown;
    try {
      parsed = JSON.parse(u);
    } catch {
      return t.failure(u, c, 'expected a JSON array of scopes');
    }
    return Scopes.is(parsed) ? t.success(parsed) : t.failure(u, c, `expected a JSON array of known scopes, got ${u}`);
  },
  (scopes) => JSON.stringify(scopes),
);

const Bytes = new t.Type<Uint8Array, Uint8Array, unknown>(
  'Bytes',
  (u): u is Uint8Array => u instanceof Uint8Array,
  // A copy as a plain Uint8Array: the driver's Buffer may be a view into a shared pool.
  (u, c) => (u instanceof Uint8Array ? t.success(Uint8Array.from(u)) : t.failure(u, c, 'expected bytea')),
  t.identity,
);

const DateValue = new t.Type<Date, Date, unknown>(
  'Timestamptz',
  (u): u is Date => u instanceof Date,
  (u, c) =>
    u instanceof Date && !Number.isNaN(u.getTime()) ? t.success(u) : t.failure(u, c, 'expected a timestamptz'),
  t.identity,
);
const DateOrNull = t.union([DateValue, t.null]);

const TokenRow = t.type(
  {
    id: t.string,
    name: t.string,
    scopes: ScopesFromJsonText,
    hash: Bytes,
    created_at: DateValue,
    expires_at: DateOrNull,
    revoked_at: DateOrNull,
  },
  'TokenRow',
);

/** A `tokens` row to a TokenRecord, with its stored hash (`tokenFromRow`) or without it. */
export const { tokenFromRow, tokenRecordFromRow } = tokenRowDecoders(TokenRow);

/**
 * A saved idempotency key as plant_store_write returns it (`saved_request`, `saved_status`,
 * `saved_id` and `saved_version` as int8 text) to the saved outcome.
 */
export const savedCreateFromRow = (row: unknown): E.Either<StoreUnavailable, SavedCreate> => {
  const r = (typeof row === 'object' && row !== null ? row : {}) as Record<string, unknown>;
  return decodeSaved({
    request: r['saved_request'],
    status: r['saved_status'],
    plant_id: r['saved_id'],
    version: r['saved_version'],
    change_seq: r['saved_change_seq'],
  });
};
const decodeSaved = savedKeyDecoder(PlantIdFromPath, VersionFromText);

/** Logs a row that did not decode (a defect, not an outage) and passes the Either on. */
export const logDecodeFailure =
  (logger: PostgresStoreLogger | undefined, what: string) =>
  <A>(result: E.Either<StoreUnavailable, A>): E.Either<StoreUnavailable, A> => {
    if (E.isLeft(result)) {
      const { cause } = result.left;
      logger?.error(
        { err: { message: cause instanceof Error ? cause.message : String(cause) }, operation: what },
        'PostgreSQL row does not decode',
      );
    }
    return result;
  };

const TextOrNull = t.union([t.string, t.null]);
/** A change number as float8 (exact up to 2^53), or NULL. */
const ChangeSeq = t.union([t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 0, 'ChangeSeq'), t.null]);
const ColumnOrAbsent = t.union([t.string, t.number, t.null, t.undefined]);
/** What a write statement returns for each write of its segment, in order (see write-statements.ts). */
export const SegmentRow = t.type(
  {
    i: t.Int,
    id: TextOrNull,
    done: t.boolean,
    found: t.boolean,
    version: t.union([VersionFromText, t.null]),
    saved_status: t.union([t.number, t.null]),
    // The write's change number (float8): NULL when it did nothing.
    change_seq: ChangeSeq,
    // An update's plant after it, a column per member (plant-columns.ts); absent for other writes.
    ...Object.fromEntries(PLANT_FIELDS.map((f) => [f, ColumnOrAbsent])),
  },
  'SegmentRow',
);
export type SegmentRow = t.TypeOf<typeof SegmentRow>;
export const SegmentRows = t.readonlyArray(SegmentRow, 'SegmentRows');

/** What the id gap statement returns: the id it found free (NULL: none), and the id, version and change number it stored. */
export const GapRow = t.type(
  {
    candidate: t.union([t.string, t.null]),
    id: t.union([PlantIdFromPath, t.null]),
    version: t.union([VersionFromText, t.null]),
    change_seq: ChangeSeq,
  },
  'GapRow',
);
