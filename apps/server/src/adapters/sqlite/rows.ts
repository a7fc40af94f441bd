import { Plant, PlantId, plantOfRow, withoutNulls } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { StoreUnavailable } from '../../ports/plant-store.js';
import type { Scope } from '../../ports/token-store.js';
import {
  decodeEach,
  rowProblem,
  savedKeyDecoder,
  ScopeCodec,
  tokenRowDecoders,
  VersionFromNumber,
  versionedPlantDecoder,
} from '../store-rows.js';

/**
 * Codecs for what SQLite hands back. Every row goes through one of these before it leaves the
 * adapter: a row that does not decode (a corrupt or hand-edited file) becomes StoreUnavailable
 * naming the table and the fields, never a half-typed value. What both adapters do alike lives
 * in store-rows.ts.
 */

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null;

/**
 * A `plants` row (its plant columns, an absent optional member NULL) to a Plant: every NULL
 * becomes an absent member (never `null`), then the domain's Plant codec checks every field.
 */
const plantByCodec = (u: unknown): t.Validation<Plant> =>
  isRecord(u) ? Plant.decode(withoutNulls(u)) : t.failure(u, [], 'expected a row object');

/** A `plants` row to a Plant, or StoreUnavailable naming what does not decode. */
export const plantFromRow = (row: unknown): E.Either<StoreUnavailable, Plant> => {
  // Fast path: the same checks as plantByCodec, through the members' own type guards.
  const plant = isRecord(row) ? plantOfRow(row) : undefined;
  if (plant !== undefined) return E.right(plant);
  const result = plantByCodec(row);
  return E.isRight(result) ? result : E.left(rowProblem('plants', result.left));
};

/** Decodes every row of a page; the first bad row fails the page. */
export const plantsFromRows = decodeEach(plantFromRow);

/** A `plants` row with its `version` (an INTEGER) to a VersionedPlant. */
export const versionedPlantFromRow = versionedPlantDecoder(plantFromRow, VersionFromNumber);

/** `scopes` column: scope names separated by single spaces (possibly none). */
const ScopesFromColumn = new t.Type<readonly Scope[], string, unknown>(
  'ScopesFromColumn',
  (u): u is readonly Scope[] => Array.isArray(u) && u.every((s) => ScopeCodec.is(s)),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected space-separated scopes');
    const names = u === '' ? [] : u.split(' ');
    return names.every((s) => ScopeCodec.is(s))
      ? t.success(names as Scope[])
      : t.failure(u, c, `unknown scope in "${u}"`);
  },
  (scopes) => scopes.join(' '),
);

/** Encodes scopes for the `scopes` column. */
export const scopesToColumn = (scopes: readonly Scope[]): string => ScopesFromColumn.encode(scopes);

const Bytes = new t.Type<Uint8Array, Uint8Array, unknown>(
  'Bytes',
  (u): u is Uint8Array => u instanceof Uint8Array,
  (u, c) => (u instanceof Uint8Array ? t.success(u) : t.failure(u, c, 'expected a BLOB')),
  t.identity,
);

/** `created_at`, `expires_at`, `revoked_at`: epoch milliseconds. */
const DateFromMillis = new t.Type<Date, number, unknown>(
  'DateFromMillis',
  (u): u is Date => u instanceof Date,
  (u, c) =>
    typeof u === 'number' && Number.isSafeInteger(u)
      ? t.success(new Date(u))
      : t.failure(u, c, 'expected epoch milliseconds'),
  (date) => date.getTime(),
);
const DateOrNull = t.union([DateFromMillis, t.null]);

const TokenRow = t.type(
  {
    id: t.string,
    name: t.string,
    scopes: ScopesFromColumn,
    hash: Bytes,
    created_at: DateFromMillis,
    expires_at: DateOrNull,
    revoked_at: DateOrNull,
  },
  'TokenRow',
);

/** A `tokens` row to a TokenRecord, with its stored hash (`tokenFromRow`) or without it. */
export const { tokenFromRow, tokenRecordFromRow } = tokenRowDecoders(TokenRow);

/** An `idempotency_keys` row (plant_id and version INTEGERs) to the saved outcome. */
export const savedCreateFromRow = savedKeyDecoder(PlantId, VersionFromNumber);
