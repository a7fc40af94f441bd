import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fold } from '@plant-store/domain';
import Database from 'better-sqlite3';
import {
  TargetNotEmpty,
  type DataReader,
  type DataRows,
  type DataStore,
  type DataTable,
  type DataWriter,
  type IdState,
  type ImportOutcome,
  type ImportPlant,
} from '../../ports/store-data.js';
import { migrateSqlite } from './migrations.js';
import { PLANT_FIELDS, plantColumnList, plantValues } from '../plant-columns.js';
import * as t from 'io-ts';
import { countOf, holdsAnything, idStateFromRow, importOutcomeOf, rowReaders, type Row } from '../data-rows.js';
import { backupSqlite, type BackupOptions, type BackupReport } from './backup.js';

/** Rows per read: large enough to amortise the statement, small enough to keep memory flat. */
const CHUNK = 5000;

/** A list column: space-separated text ('' for none). */
const SpaceSeparated = new t.Type<readonly string[], string, unknown>(
  'SpaceSeparated',
  t.readonlyArray(t.string).is,
  (u, c) =>
    typeof u === 'string' ? t.success(u === '' ? [] : u.split(' ')) : t.failure(u, c, 'expected a list as text'),
  (list) => list.join(' '),
);

/** A flag column: 0 or 1. */
const ZeroOrOne = new t.Type<boolean, number, unknown>(
  'ZeroOrOne',
  t.boolean.is,
  (u, c) => (u === 0 || u === 1 ? t.success(u === 1) : t.failure(u, c, 'expected 0 or 1')),
  (flag) => (flag ? 1 : 0),
);

const READ = rowReaders({ list: SpaceSeparated, flag: ZeroOrOne });

/**
 * Each table as the data commands see it: how to read a chunk after a key (key order), and how to
 * write a store-neutral row (data-rows.ts reads them). Columns are those of the migrations.
 */
interface TableMap<T extends DataTable> {
  /** SELECT … ORDER BY the key LIMIT ?, the first chunk. */
  readonly first: string;
  /** The same after the last row's key. */
  readonly after: string;
  readonly keyOf: (row: Row) => unknown[];
  readonly insert: string;
  readonly toRow: (row: DataRows[T]) => unknown[];
  /** Only rows that still count (the keys' expiry); a WHERE clause with `@now`. */
  readonly live?: string;
}

const tableMap = <T extends DataTable>(
  table: T,
  key: readonly string[],
  columns: string,
  map: Omit<TableMap<T>, 'first' | 'after' | 'keyOf'>,
): TableMap<T> => {
  const where = map.live === undefined ? '' : map.live;
  const order = key.join(', ');
  const tuple = key.length === 1 ? key[0] : `(${order})`;
  const marks = key.length === 1 ? '?' : `(${key.map(() => '?').join(', ')})`;
  return {
    ...map,
    first: `SELECT ${columns} FROM ${table} ${where === '' ? '' : `WHERE ${where}`} ORDER BY ${order} LIMIT ?`,
    after: `SELECT ${columns} FROM ${table} WHERE ${tuple} > ${marks} ${where === '' ? '' : `AND ${where}`} ORDER BY ${order} LIMIT ?`,
    keyOf: (row) => key.map((k) => row[k]),
  };
};

/** One `?` per plant column. */
const marks = PLANT_FIELDS.map(() => '?').join(', ');

/** The name column, which the folded name is made of (a plants row's name is text: data-rows.ts decoded it). */
const textOf = (value: unknown): string => {
  if (typeof value !== 'string') throw new TypeError('a plant without a name as text');
  return value;
};

const TABLES: { readonly [T in DataTable]: TableMap<T> } = {
  // Every plant column (plant-columns.ts), copied and checksummed as it is.
  plants: tableMap('plants', ['id'], `id, ${plantColumnList()}, version`, {
    insert: `INSERT INTO plants (id, ${plantColumnList()}, version, name_folded) VALUES (?, ${marks}, ?, ?)`,
    toRow: (p) => [p.id, ...PLANT_FIELDS.map((f) => p[f]), p.version, fold(textOf(p.name))],
  }),
  tokens: tableMap('tokens', ['id'], 'id, name, scopes, lower(hex(hash)) AS hash, created_at, expires_at, revoked_at', {
    insert:
      'INSERT INTO tokens (id, name, scopes, hash, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    toRow: (t) => [t.id, t.name, t.scopes.join(' '), Buffer.from(t.hash, 'hex'), t.createdAt, t.expiresAt, t.revokedAt],
  }),
  idempotency_keys: tableMap(
    'idempotency_keys',
    ['owner', 'key'],
    'owner, key, request, status, plant_id, expires_at, version, change_seq',
    {
      live: 'expires_at > @now',
      insert: `INSERT INTO idempotency_keys (owner, key, request, status, plant_id, expires_at, version, change_seq)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      toRow: (k) => [k.owner, k.key, k.request, k.status, k.plantId, k.expiresAt, k.version, k.changeSeq],
    },
  ),
  webhook_endpoints: tableMap(
    'webhook_endpoints',
    ['id'],
    'id, url, events, secret, previous_secret, rotated_at, enabled, disabled_reason, created_at',
    {
      insert: `INSERT INTO webhook_endpoints (id, url, events, secret, previous_secret, rotated_at, enabled, disabled_reason, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      toRow: (e) => [
        e.id,
        e.url,
        e.events === null ? null : e.events.join(' '),
        e.secret,
        e.previousSecret,
        e.rotatedAt,
        e.enabled ? 1 : 0,
        e.disabledReason,
        e.createdAt,
      ],
    },
  ),
  webhook_deliveries: tableMap(
    'webhook_deliveries',
    ['id'],
    `id, event_id, event_type, body, endpoint_id, status, attempts, total_attempts, next_attempt_at, held_by,
     last_status, last_error, created_at, ended_at, trace_parent, trace_state`,
    {
      insert: `INSERT INTO webhook_deliveries (id, event_id, event_type, body, endpoint_id, status, attempts, total_attempts,
                 next_attempt_at, held_by, last_status, last_error, created_at, ended_at, trace_parent, trace_state)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      toRow: (d) => [
        d.id,
        d.eventId,
        d.eventType,
        d.body,
        d.endpointId,
        d.status,
        d.attempts,
        d.totalAttempts,
        d.nextAttemptAt,
        d.heldBy,
        d.lastStatus,
        d.lastError,
        d.createdAt,
        d.endedAt,
        d.traceParent,
        d.traceState,
      ],
    },
  ),
  webhook_attempts: tableMap(
    'webhook_attempts',
    ['delivery_id', 'n'],
    'delivery_id, n, started_at, duration_ms, status, error',
    {
      insert:
        'INSERT INTO webhook_attempts (delivery_id, n, started_at, duration_ms, status, error) VALUES (?, ?, ?, ?, ?, ?)',
      toRow: (a) => [a.deliveryId, a.n, a.startedAt, a.durationMs, a.status, a.error],
    },
  ),
  plant_changes: tableMap(
    'plant_changes',
    ['seq'],
    `seq, type, plant_id, ${plantColumnList()}, left_tag, version, at`,
    {
      insert: `INSERT INTO plant_changes (seq, type, plant_id, ${plantColumnList()}, left_tag, version, at) VALUES (?, ?, ?, ${marks}, ?, ?, ?)`,
      toRow: (c) => [c.seq, c.type, c.plantId, ...PLANT_FIELDS.map((f) => c[f]), c.leftTag, c.version, c.at],
    },
  ),
};

const reader = (db: Database.Database): DataReader => ({
  async *rows<T extends DataTable>(table: T, now: number): AsyncIterable<readonly DataRows[T][]> {
    const map = TABLES[table] as TableMap<T>;
    const first = db.prepare(map.first);
    const after = db.prepare(map.after);
    const named = map.live === undefined ? {} : { now };
    let rows = first.all(named, CHUNK) as Row[];
    while (rows.length > 0) {
      yield rows.map(READ[table] as (row: unknown) => DataRows[T]);
      if (rows.length < CHUNK) return;
      const last = rows[rows.length - 1] as Row;
      rows = after.all(named, ...map.keyOf(last), CHUNK) as Row[];
    }
  },
  count: (table, now) => {
    const live = TABLES[table].live;
    const statement = db.prepare(`SELECT count(*) AS n FROM ${table}${live === undefined ? '' : ` WHERE ${live}`}`);
    return Promise.resolve(countOf(live === undefined ? statement.get() : statement.get({ now })));
  },
  ids: () => {
    const row = db
      .prepare(
        `SELECT max(high_water, coalesce((SELECT max(id) FROM plants), 0)) AS high_water, gap_cursor,
                max(revision, coalesce((SELECT max(version) FROM plants), 0)) AS revision,
                s.last_seq, s.forgotten_through, s.untagged_through
           FROM plant_ids, plant_change_state s WHERE plant_ids.singleton = 1`,
      )
      .get();
    return Promise.resolve(idStateFromRow(row));
  },
});

export interface SqliteDataOptions {
  readonly file: string;
  /** Create the file (and its folders) when missing; otherwise a missing file is an error. */
  readonly create: boolean;
  readonly busyTimeoutMs?: number;
}

/**
 * A SQLite file opened for the data commands: its own connection (WAL, FULL: each commit is on
 * disk before it returns, and a server on the same file sees it), the migrations applied like at
 * a server's start.
 */
export const openSqliteData = (
  options: SqliteDataOptions,
): DataStore & {
  backup(target: string, options: BackupOptions): Promise<BackupReport>;
} => {
  const path = resolve(options.file);
  if (options.create) mkdirSync(dirname(path), { recursive: true });
  else if (!existsSync(path)) throw new Error(`no store at ${path}`);
  const db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`${path} cannot use WAL mode (journal_mode is ${String(mode)})`);
    db.pragma('synchronous = FULL');
    migrateSqlite(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const read = reader(db);

  /** `run` inside BEGIN … COMMIT (ROLLBACK when it throws), across awaits: nothing else uses `db`. */
  const transaction = async <A>(begin: string, run: () => Promise<A>): Promise<A> => {
    db.exec(begin);
    try {
      const result = await run();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  };

  const existing = db.prepare<[number], Row & { version: number }>(
    `SELECT ${plantColumnList()}, version FROM plants WHERE id = ?`,
  );
  const insertPlant = db.prepare(TABLES.plants.insert);
  const idsRow = db.prepare<[], { high_water: number; revision: number }>(
    'SELECT high_water, revision FROM plant_ids WHERE singleton = 1',
  );
  const saveIds = db.prepare<[number, number]>('UPDATE plant_ids SET high_water = ?, revision = ? WHERE singleton = 1');

  return {
    kind: 'sqlite',
    where: path,
    snapshot: (run) => transaction('BEGIN DEFERRED', () => run(read)),
    fill: (run) =>
      transaction('BEGIN IMMEDIATE', async () => {
        const held = await holdsAnything(read);
        if (held !== undefined) throw new TargetNotEmpty(`the target ${path} is not empty: ${held}`);
        const writer: DataWriter = {
          ...read,
          insert: (table, rows) => {
            const map = TABLES[table] as TableMap<typeof table>;
            const statement = db.prepare(map.insert);
            for (const row of rows) statement.run(...map.toRow(row as never));
            return Promise.resolve();
          },
          setIds: (state: IdState) => {
            db.prepare('UPDATE plant_ids SET high_water = ?, gap_cursor = ?, revision = ? WHERE singleton = 1').run(
              state.highWater,
              state.gapCursor,
              state.revision,
            );
            db.prepare('UPDATE plant_change_state SET last_seq = ?, forgotten_through = ?, untagged_through = ?').run(
              state.changeSeq,
              state.changesForgottenThrough,
              state.changesUntaggedThrough,
            );
            return Promise.resolve();
          },
        };
        // The search index is built once at the end rather than row by row through its trigger
        // (1M plants: about 8 s instead of about 20). The change log comes with the copy, numbers
        // and all: the copy's own inserts are not changes. So the triggers that write the index
        // or the log on an insert are dropped for the copy and come back in the same transaction,
        // each as this store's schema holds it (read back, never made from a constant: a later
        // migration's trigger stays that migration's).
        const triggers = db
          .prepare(
            `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'plants'
               AND (name = 'plants_search_insert' OR sql LIKE '%INSERT INTO plant_changes%') ORDER BY name`,
          )
          .all() as { name: string; sql: string }[];
        for (const trigger of triggers) db.exec(`DROP TRIGGER ${trigger.name}`);
        const result = await run(writer);
        for (const trigger of triggers) db.exec(trigger.sql);
        if (triggers.some((trigger) => trigger.name === 'plants_search_insert')) {
          db.exec("INSERT INTO plants_search (plants_search) VALUES ('rebuild')");
          // The rebuild indexed every plant, the pending ones too: the two stay disjoint.
          db.exec('DELETE FROM plants_search_pending');
        }
        return result;
      }),
    importPlants: (plants: readonly ImportPlant[]) =>
      transaction('BEGIN IMMEDIATE', () => {
        const ids = idsRow.get();
        if (ids === undefined) throw new Error('plant_ids holds no row');
        // Versions past the end of any block a running server reserved: it reads plant_ids
        // again after this commit (another connection's), and counts on from here.
        let revision = ids.revision;
        let highWater = ids.high_water;
        const outcomes = plants.map((plant): ImportOutcome => {
          const found = importOutcomeOf(plant, existing.get(plant.id));
          if (found !== 'created') return found;
          revision += 1;
          insertPlant.run(plant.id, ...plantValues(plant), revision, fold(plant.name));
          highWater = Math.max(highWater, plant.id);
          return 'created';
        });
        saveIds.run(highWater, revision);
        return Promise.resolve(outcomes);
      }),
    backup: (target, backupOptions) => backupSqlite(db, path, target, backupOptions),
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
};
