import { DATA_TABLES, type DataReader, type DataRows, type DataTable, type PlantRow } from '../ports/store-data.js';

/**
 * Reading the data commands' store-neutral rows (ports/store-data.ts), which the SQLite and
 * PostgreSQL adapters share. Each adapter selects every table's columns under the migrations'
 * names, times as epoch milliseconds and a token's hash as lower-case hex, and hands over how it
 * stores what differs: a list (SQLite: space-separated text; PostgreSQL: JSON text) and a flag.
 */

export type Row = Record<string, unknown>;

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** How one store holds what the two hold differently. */
export interface StoredForms {
  /** A list column (token scopes, an endpoint's events) that is not NULL. */
  readonly list: (v: unknown) => string[];
  readonly flag: (v: unknown) => boolean;
}

/** For each table, a selected row to its store-neutral row. */
export type RowReaders = { readonly [T in DataTable]: (row: Row) => DataRows[T] };

export const rowReaders = ({ list, flag }: StoredForms): RowReaders => ({
  plants: (r): PlantRow => ({
    id: num(r['id']),
    name: String(r['name']),
    tag: strOrNull(r['tag']),
    version: num(r['version']),
  }),
  tokens: (r) => ({
    id: String(r['id']),
    name: String(r['name']),
    scopes: list(r['scopes']),
    hash: String(r['hash']),
    createdAt: num(r['created_at']),
    expiresAt: numOrNull(r['expires_at']),
    revokedAt: numOrNull(r['revoked_at']),
  }),
  idempotency_keys: (r) => ({
    owner: String(r['owner']),
    key: String(r['key']),
    request: String(r['request']),
    status: num(r['status']),
    plantId: num(r['plant_id']),
    expiresAt: num(r['expires_at']),
    version: num(r['version']),
  }),
  webhook_endpoints: (r) => ({
    id: String(r['id']),
    url: String(r['url']),
    events: r['events'] === null || r['events'] === undefined ? null : list(r['events']),
    secret: String(r['secret']),
    previousSecret: strOrNull(r['previous_secret']),
    rotatedAt: numOrNull(r['rotated_at']),
    enabled: flag(r['enabled']),
    disabledReason: strOrNull(r['disabled_reason']),
    createdAt: num(r['created_at']),
  }),
  webhook_deliveries: (r) => ({
    id: num(r['id']),
    eventId: String(r['event_id']),
    eventType: String(r['event_type']),
    body: String(r['body']),
    endpointId: String(r['endpoint_id']),
    status: String(r['status']),
    attempts: num(r['attempts']),
    totalAttempts: num(r['total_attempts']),
    nextAttemptAt: num(r['next_attempt_at']),
    heldBy: strOrNull(r['held_by']),
    lastStatus: numOrNull(r['last_status']),
    lastError: strOrNull(r['last_error']),
    createdAt: num(r['created_at']),
    endedAt: numOrNull(r['ended_at']),
    traceParent: strOrNull(r['trace_parent']),
    traceState: strOrNull(r['trace_state']),
  }),
  webhook_attempts: (r) => ({
    deliveryId: num(r['delivery_id']),
    n: num(r['n']),
    startedAt: num(r['started_at']),
    durationMs: num(r['duration_ms']),
    status: numOrNull(r['status']),
    error: strOrNull(r['error']),
  }),
  plant_changes: (r) => ({
    seq: num(r['seq']),
    type: String(r['type']),
    plantId: num(r['plant_id']),
    name: strOrNull(r['name']),
    tag: strOrNull(r['tag']),
    version: numOrNull(r['version']),
    at: num(r['at']),
  }),
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
