import { formatErrors } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  DATA_TABLES,
  type DataReader,
  type DataRows,
  type DataTable,
  type IdState,
  type ImportOutcome,
  type ImportPlant,
  type PlantColumns,
  samePlant,
  storedPlant,
} from '../ports/store-data.js';
import { PLANT_COLUMNS, PLANT_FIELDS } from './plant-columns.js';

/**
 * Reading the data commands' store-neutral rows (ports/store-data.ts), which the SQLite and
 * PostgreSQL adapters share. Each adapter selects every table's columns under the migrations'
 * names, numbers as JS numbers (times as epoch milliseconds), a token's hash as lower-case hex,
 * and hands over the codecs of what the two store differently: a list (SQLite: space-separated
 * text; PostgreSQL: a JSON array as text) and a flag (SQLite: 0 or 1; PostgreSQL: a boolean).
 *
 * Rows are decoded, not coerced: `Number(null)` is 0 and `String(null)` is "null", and a value
 * coerced so would travel into the target and into both checksums alike, where no comparison can
 * catch it. A row that does not decode stops the command with an error naming the table and the
 * columns.
 */

export type Row = Record<string, unknown>;

/** `codec`, or NULL: a union whose type guard makes no closure per call, as t.union's does. */
export const orNull = <C extends t.Mixed>(codec: C): t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null, unknown> =>
  new t.Type(
    `${codec.name} | null`,
    (u): u is t.TypeOf<C> | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : codec.encode(a)),
  );

const Num = t.number;
const NumOrNull = orNull(t.number);
const Text = t.string;
const TextOrNull = orNull(t.string);

/**
 * A decoder of rows: `props` are the selected columns' codecs, `toRow` names the decoded columns
 * as the caller wants them. Throws a TypeError naming `what` and the columns that do not decode.
 */
export const rowDecoder = <P extends t.Props, R>(
  what: string,
  props: P,
  toRow: (columns: t.TypeOf<t.TypeC<P>>) => R,
): ((row: unknown) => R) => {
  const columns = t.type(props, what);
  return (row) => {
    // The type guards alone first, with no Either per column (a copy reads millions of rows): a row
    // whose columns are already what the codecs give passes here, which is every row of a table
    // without a list or a flag.
    if (columns.is(row)) return toRow(row);
    const decoded = columns.decode(row);
    if (E.isRight(decoded)) return toRow(decoded.right);
    throw new TypeError(`a row of ${what} does not decode: ${formatErrors(decoded.left).join('; ')}`);
  };
};

/** Each plant column's codec as selected (plant-columns.ts): NOT NULL for a required member. */
const PLANT_COLUMN_CODECS: t.Props = Object.fromEntries(
  PLANT_COLUMNS.map(({ field, kind, required }) => [
    field,
    kind === 'text' ? (required ? Text : TextOrNull) : required ? Num : NumOrNull,
  ]),
);

/** The same in the change log, where a delete leaves every plant column NULL. */
const CHANGE_COLUMN_CODECS: t.Props = Object.fromEntries(
  PLANT_COLUMNS.map(({ field, kind }) => [field, kind === 'text' ? TextOrNull : NumOrNull]),
);

/** A decoded row's plant columns, every one of them (plant-columns.ts), under the members' names. */
const plantColumnsOfRow = (row: Readonly<Record<string, unknown>>): PlantColumns => {
  const columns: Record<string, unknown> = {};
  for (const field of PLANT_FIELDS) columns[field] = row[field];
  // Each was decoded by its column's codec just above.
  return columns as PlantColumns;
};

/** `SELECT count(*) AS n` (selected as a number) to the count. */
export const countOf = rowDecoder('a count', { n: Num }, ({ n }) => n);

/** The allocation state (`high_water`, `gap_cursor`, `revision`, `last_seq`, `forgotten_through`, `untagged_through`). */
export const idStateFromRow = rowDecoder(
  'the id state',
  { high_water: Num, gap_cursor: Num, revision: Num, last_seq: Num, forgotten_through: Num, untagged_through: Num },
  (r): IdState => ({
    highWater: r.high_water,
    gapCursor: r.gap_cursor,
    revision: r.revision,
    changeSeq: r.last_seq,
    changesForgottenThrough: r.forgotten_through,
    changesUntaggedThrough: r.untagged_through,
  }),
);

/** How one store holds what the two hold differently: codecs from the column as selected. */
export interface StoredForms {
  /** A list column (token scopes, an endpoint's events) that is not NULL. */
  readonly list: t.Type<readonly string[], unknown>;
  readonly flag: t.Type<boolean, unknown>;
}

/** For each table, a selected row to its store-neutral row. */
export type RowReaders = { readonly [T in DataTable]: (row: unknown) => DataRows[T] };

export const rowReaders = ({ list, flag }: StoredForms): RowReaders => ({
  plants: rowDecoder('plants', { id: Num, ...PLANT_COLUMN_CODECS, version: Num }, (r) => ({
    id: r.id,
    ...plantColumnsOfRow(r),
    version: r.version,
  })),
  tokens: rowDecoder(
    'tokens',
    {
      id: Text,
      name: Text,
      scopes: list,
      hash: Text,
      created_at: Num,
      expires_at: NumOrNull,
      revoked_at: NumOrNull,
    },
    (r) => ({
      id: r.id,
      name: r.name,
      scopes: r.scopes,
      hash: r.hash,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      revokedAt: r.revoked_at,
    }),
  ),
  idempotency_keys: rowDecoder(
    'idempotency_keys',
    {
      owner: Text,
      key: Text,
      request: Text,
      status: Num,
      plant_id: Num,
      expires_at: Num,
      version: Num,
      change_seq: NumOrNull,
    },
    (r) => ({
      owner: r.owner,
      key: r.key,
      request: r.request,
      status: r.status,
      plantId: r.plant_id,
      expiresAt: r.expires_at,
      version: r.version,
      changeSeq: r.change_seq,
    }),
  ),
  webhook_endpoints: rowDecoder(
    'webhook_endpoints',
    {
      id: Text,
      url: Text,
      events: orNull(list),
      secret: Text,
      previous_secret: TextOrNull,
      rotated_at: NumOrNull,
      enabled: flag,
      disabled_reason: TextOrNull,
      created_at: Num,
    },
    (r) => ({
      id: r.id,
      url: r.url,
      events: r.events,
      secret: r.secret,
      previousSecret: r.previous_secret,
      rotatedAt: r.rotated_at,
      enabled: r.enabled,
      disabledReason: r.disabled_reason,
      createdAt: r.created_at,
    }),
  ),
  webhook_deliveries: rowDecoder(
    'webhook_deliveries',
    {
      id: Num,
      event_id: Text,
      event_type: Text,
      body: Text,
      endpoint_id: Text,
      status: Text,
      attempts: Num,
      total_attempts: Num,
      next_attempt_at: Num,
      held_by: TextOrNull,
      last_status: NumOrNull,
      last_error: TextOrNull,
      created_at: Num,
      ended_at: NumOrNull,
      trace_parent: TextOrNull,
      trace_state: TextOrNull,
    },
    (r) => ({
      id: r.id,
      eventId: r.event_id,
      eventType: r.event_type,
      body: r.body,
      endpointId: r.endpoint_id,
      status: r.status,
      attempts: r.attempts,
      totalAttempts: r.total_attempts,
      nextAttemptAt: r.next_attempt_at,
      heldBy: r.held_by,
      lastStatus: r.last_status,
      lastError: r.last_error,
      createdAt: r.created_at,
      endedAt: r.ended_at,
      traceParent: r.trace_parent,
      traceState: r.trace_state,
    }),
  ),
  webhook_attempts: rowDecoder(
    'webhook_attempts',
    { delivery_id: Num, n: Num, started_at: Num, duration_ms: Num, status: NumOrNull, error: TextOrNull },
    (r) => ({
      deliveryId: r.delivery_id,
      n: r.n,
      startedAt: r.started_at,
      durationMs: r.duration_ms,
      status: r.status,
      error: r.error,
    }),
  ),
  plant_changes: rowDecoder(
    'plant_changes',
    { seq: Num, type: Text, plant_id: Num, ...CHANGE_COLUMN_CODECS, left_tag: TextOrNull, version: NumOrNull, at: Num },
    (r) => ({
      seq: r.seq,
      type: r.type,
      plantId: r.plant_id,
      leftTag: r.left_tag,
      ...plantColumnsOfRow(r),
      version: r.version,
      at: r.at,
    }),
  ),
});

/** What makes a store not empty, for DataStore.fill: a row anywhere, or an id or a version ever handed out. */
export const holdsAnything = async (read: DataReader): Promise<string | undefined> => {
  for (const table of DATA_TABLES) {
    const n = await read.count(table, 0);
    if (n > 0) return `${n} row(s) in ${table}`;
  }
  const ids = await read.ids();
  if (ids.highWater > 0 || ids.revision > 0 || ids.changeSeq > 0)
    return 'ids, versions or change numbers already handed out';
  return undefined;
};

/** What importing `plant` found under its id: nothing, or `found` (that row's plant columns, with its version). */
export const importOutcomeOf = (
  plant: ImportPlant,
  found: (Row & { readonly version: number | null }) | undefined,
): ImportOutcome => {
  if (found === undefined) return 'created';
  const stored = storedPlant({ ...found, id: plant.id });
  if (samePlant(stored, plant)) return 'present';
  if (found.version === null) throw new TypeError(`plant ${plant.id} is stored without a version`);
  return { conflict: { plant: stored, version: found.version } };
};
