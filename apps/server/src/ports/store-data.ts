import { formatErrors, Plant, plantOfRow, withoutNulls } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';

/**
 * A store's content as plain rows, the same for SQLite and PostgreSQL: what export, import,
 * migrate and their checksums read and write (the data commands, data/). Times are milliseconds
 * since the epoch, a token's hash is lower-case hex, lists are arrays; nothing derived (the folded
 * name, the search index, the counts) is part of it: a store rebuilds those from the rows.
 */

/** A member of Plant stored as a column of its own (every member but the id: adapters/plant-columns.ts). */
export type PlantField = Exclude<keyof Plant, 'id'>;

/** A stored value of a plant column (NULL: an absent optional member). */
export type ColumnValue = string | number | null;

/** A plant's columns besides its id, under the members' names: every member of Plant, NULL when absent. */
export type PlantColumns = { readonly [F in PlantField]: ColumnValue };

/** A plant with the version its ETag is made of. */
export type PlantRow = { readonly id: number; readonly version: number } & PlantColumns;

export interface TokenRow {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly string[];
  /** SHA-256 of the secret, lower-case hex (the secret itself is never stored). */
  readonly hash: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
}

/** A keyed create's saved outcome (only unexpired ones are carried). */
export interface IdempotencyKeyRow {
  readonly owner: string;
  readonly key: string;
  readonly request: string;
  readonly status: number;
  readonly plantId: number;
  readonly expiresAt: number;
  readonly version: number;
  /** The change number of the create a 201 saved (its X-Change-Seq); null for a 409 or a key saved before migration 10. */
  readonly changeSeq: number | null;
}

export interface EndpointRow {
  readonly id: string;
  readonly url: string;
  /** The subscribed event types; null: every type. */
  readonly events: readonly string[] | null;
  readonly secret: string;
  readonly previousSecret: string | null;
  readonly rotatedAt: number | null;
  readonly enabled: boolean;
  readonly disabledReason: string | null;
  readonly createdAt: number;
}

export interface DeliveryRow {
  readonly id: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly body: string;
  readonly endpointId: string;
  readonly status: string;
  readonly attempts: number;
  readonly totalAttempts: number;
  readonly nextAttemptAt: number;
  readonly heldBy: string | null;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly endedAt: number | null;
  /** The W3C trace context saved with the event (tracing was on for its change). */
  readonly traceParent: string | null;
  readonly traceState: string | null;
}

export interface AttemptRow {
  readonly deliveryId: number;
  readonly n: number;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: string | null;
}

/**
 * A change of the change log: the plant's columns after it (every one NULL for a delete), the tag
 * it took the plant away from (migration 11), its version.
 */
export type ChangeRow = {
  readonly seq: number;
  readonly type: string;
  readonly plantId: number;
  readonly leftTag: string | null;
  readonly version: number | null;
  /** Commit time. */
  readonly at: number;
} & PlantColumns;

/** Every table the data commands carry, by name, in the order a target is filled. */
export interface DataRows {
  readonly plants: PlantRow;
  readonly tokens: TokenRow;
  readonly idempotency_keys: IdempotencyKeyRow;
  readonly webhook_endpoints: EndpointRow;
  readonly webhook_deliveries: DeliveryRow;
  readonly webhook_attempts: AttemptRow;
  readonly plant_changes: ChangeRow;
}
export type DataTable = keyof DataRows;
export const DATA_TABLES: readonly DataTable[] = [
  'plants',
  'tokens',
  'idempotency_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'plant_changes',
];

/** The allocation state that makes ids and versions never repeat. */
export interface IdState {
  /** The largest plant id ever stored (deleted ones included). */
  readonly highWater: number;
  /** Where the search for a free id starts once ids past 2^53−1 are exhausted. */
  readonly gapCursor: number;
  /** No version at or below it will be given again. */
  readonly revision: number;
  /** The change log's newest number (kept when changes are forgotten): the next change is numbered above it. */
  readonly changeSeq: number;
  /** The newest change number forgotten by the retention (a reader behind it gets 410). */
  readonly changesForgottenThrough: number;
  /** The newest change number whose left tag the log does not know (a reader of one tag behind it gets 410). */
  readonly changesUntaggedThrough: number;
}

/** Reads of one consistent snapshot. */
export interface DataReader {
  /** Rows of `table` in key order, in chunks; idempotency keys only when they expire after `now`. */
  rows<T extends DataTable>(table: T, now: number): AsyncIterable<readonly DataRows[T][]>;
  count(table: DataTable, now: number): Promise<number>;
  ids(): Promise<IdState>;
}

/** Writes into an empty store, inside the transaction `DataStore.fill` opened. */
export interface DataWriter extends DataReader {
  insert<T extends DataTable>(table: T, rows: readonly DataRows[T][]): Promise<void>;
  setIds(state: IdState): Promise<void>;
}

/** What importing one plant found: a conflict is the plant stored under its id, with its version. */
export type ImportOutcome =
  'created' | 'present' | { readonly conflict: { readonly plant: Plant; readonly version: number } };

/** A plant to import: kept with its id; its version is the store's next. */
export type ImportPlant = Plant;

/** Why a store cannot be filled: it holds something already. */
export class TargetNotEmpty extends Error {}

/** One store, opened for the data commands (a connection of its own, not a server's). */
export interface DataStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is, without a password (for messages). */
  readonly where: string;
  /** Runs `read` in one read-only snapshot. */
  snapshot<A>(read: (reader: DataReader) => Promise<A>): Promise<A>;
  /**
   * Runs `write` in one transaction on a store that must be empty (no row in any table, ids and
   * versions never used); commits when it resolves, rolls back when it throws. Rejects with
   * TargetNotEmpty, before writing anything, when the store holds anything.
   */
  fill<A>(write: (writer: DataWriter) => Promise<A>): Promise<A>;
  /**
   * Adds plants in one transaction, kept ids, next versions, no webhook events: a plant whose id
   * is stored as the same plant is left as it is ('present'), a different one is left
   * too and reported; the outcomes are in the order of `plants`.
   */
  importPlants(plants: readonly ImportPlant[]): Promise<readonly ImportOutcome[]>;
  close(): Promise<void>;
}

/** Whether two plants are the same: their encodings through Plant, which hold every member, are equal. */
export const samePlant = (a: Plant, b: Plant): boolean =>
  JSON.stringify(Plant.encode(a)) === JSON.stringify(Plant.encode(b));

/**
 * A stored `plants` row (its plant columns, NULL for an absent member) as a Plant; a row that is
 * not one stops the command with an error naming its id and what is wrong.
 */
export const storedPlant = (row: object): Plant => {
  const columns: Readonly<Record<string, unknown>> = { ...row };
  const plant = plantOfRow(columns);
  if (plant !== undefined) return plant;
  const decoded = Plant.decode(withoutNulls(columns));
  const problems = E.isLeft(decoded) ? formatErrors(decoded.left).join('; ') : 'not a plant';
  throw new TypeError(`plant ${String(columns['id'])} is stored as something that is not a plant: ${problems}`);
};
