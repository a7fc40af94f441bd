import { once } from 'node:events';
import { fold } from '@plant-store/domain';
import postgres from 'postgres';
import { StoreSockets } from './sockets.js';
import { readConnectionUrl } from './tls.js';
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
  type PlantRow,
} from '../../ports/store-data.js';
import * as t from 'io-ts';
import {
  countOf,
  holdsAnything,
  idStateFromRow,
  importOutcomeOf,
  orNull,
  rowDecoder,
  rowReaders,
  type Row,
} from '../data-rows.js';
import { migratePostgres } from './migrations.js';
import {
  PLANT_COLUMNS,
  PLANT_FIELDS,
  plantColumnList,
  plantColumnsOf,
  postgresType,
  type ColumnValue,
} from '../plant-columns.js';

/** Rows per read and per INSERT of the small tables. */
const CHUNK = 5000;

type Sql = postgres.Sql | postgres.TransactionSql;

/** Milliseconds since the epoch, as a JS number (timestamptz keeps microseconds: floored). */
const ms = (column: string): string => `floor(extract(epoch FROM ${column}) * 1000)::float8 AS ${column}`;
const Strings = t.readonlyArray(t.string);

/** A list column, selected as JSON text (`::text` of jsonb, or `array_to_json` of an array). */
const JsonList = new t.Type<readonly string[], string, unknown>(
  'JsonList',
  Strings.is,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected a list as JSON text');
    let parsed: unknown;
    try {
      parsed = JSON.parse(u);
    } catch {
      return t.failure(u, c, 'expected a list as JSON text');
    }
    return Strings.is(parsed) ? t.success(parsed) : t.failure(u, c, 'expected a JSON array of strings');
  },
  (list) => JSON.stringify(list),
);

/** Flags are booleans. */
const READ = rowReaders({ list: JsonList, flag: t.boolean });

/** What importing a plant found under its id: nothing (NULLs), or the stored plant. */
const foundFromRow = rowDecoder('plants', { version: orNull(t.number) }, (r) => r as Row & { version: number | null });

interface TableMap {
  /** Key columns with their types, for keyset reads. */
  readonly key: readonly (readonly [string, string])[];
  readonly columns: string;
  /** Only rows that still count; `$now` is the cut-off, in ms. */
  readonly live?: string;
  /**
   * INSERT … SELECT from `x`, the chunk as `json_to_recordset($1)` with these column types, in
   * the store-neutral row's member names.
   */
  readonly insert?: { readonly into: string; readonly select: string; readonly record: string };
}

/** Every plant column (plant-columns.ts) as selected (a whole number as float8, a JS number) and as a record's definitions. */
const selected = PLANT_COLUMNS.map((c) => (c.kind === 'text' ? c.field : `${c.field}::float8 AS ${c.field}`)).join(
  ', ',
);
const record = PLANT_COLUMNS.map((c) => `${c.field} ${postgresType(c.kind)}`).join(', ');

const TABLES: { readonly [T in DataTable]: TableMap } = {
  plants: {
    key: [['id', 'int8']],
    // Every plant column (plant-columns.ts), copied and checksummed as it is.
    columns: `id::float8 AS id, ${selected}, version::float8 AS version`,
  },
  tokens: {
    key: [['id', 'text']],
    columns: `id, name, scopes::text AS scopes, encode(hash, 'hex') AS hash, ${ms('created_at')}, ${ms('expires_at')},
              ${ms('revoked_at')}`,
    insert: {
      into: 'tokens (id, name, scopes, hash, created_at, expires_at, revoked_at)',
      select: `x.id, x.name, x.scopes, decode(x.hash, 'hex'), to_timestamp(x."createdAt" / 1000.0),
               to_timestamp(x."expiresAt" / 1000.0), to_timestamp(x."revokedAt" / 1000.0)`,
      record: `id text, name text, scopes jsonb, hash text, "createdAt" float8, "expiresAt" float8, "revokedAt" float8`,
    },
  },
  idempotency_keys: {
    key: [
      ['owner', 'text'],
      ['key', 'text'],
    ],
    columns: `owner, key, request, status::int4 AS status, plant_id::float8 AS plant_id, ${ms('expires_at')},
              version::float8 AS version, change_seq::float8 AS change_seq`,
    live: 'expires_at > to_timestamp($now / 1000.0)',
    insert: {
      into: 'idempotency_keys (owner, key, request, status, plant_id, expires_at, version, change_seq)',
      select: `x.owner, x.key, x.request, x.status, x."plantId", to_timestamp(x."expiresAt" / 1000.0), x.version,
               x."changeSeq"`,
      record: `owner text, key text, request text, status int2, "plantId" int8, "expiresAt" float8, version int8,
               "changeSeq" int8`,
    },
  },
  webhook_endpoints: {
    key: [['id', 'text']],
    columns: `id, url, array_to_json(events)::text AS events, secret, previous_secret, ${ms('rotated_at')}, enabled,
              disabled_reason, ${ms('created_at')}`,
    insert: {
      into: 'webhook_endpoints (id, url, events, secret, previous_secret, rotated_at, enabled, disabled_reason, created_at)',
      select: `x.id, x.url,
               CASE WHEN x.events IS NULL THEN NULL ELSE ARRAY(SELECT json_array_elements_text(x.events)) END,
               x.secret, x."previousSecret", to_timestamp(x."rotatedAt" / 1000.0), x.enabled, x."disabledReason",
               to_timestamp(x."createdAt" / 1000.0)`,
      record: `id text, url text, events json, secret text, "previousSecret" text, "rotatedAt" float8, enabled boolean,
               "disabledReason" text, "createdAt" float8`,
    },
  },
  webhook_deliveries: {
    key: [['id', 'int8']],
    columns: `id::float8 AS id, event_id, event_type, body, endpoint_id, status, attempts, total_attempts,
              ${ms('next_attempt_at')}, held_by, last_status, last_error, ${ms('created_at')}, ${ms('ended_at')},
              trace_parent, trace_state`,
    insert: {
      into: `webhook_deliveries (id, event_id, event_type, body, endpoint_id, status, attempts, total_attempts,
               next_attempt_at, held_by, last_status, last_error, created_at, ended_at, trace_parent, trace_state)
             OVERRIDING SYSTEM VALUE`,
      select: `x.id, x."eventId", x."eventType", x.body, x."endpointId", x.status, x.attempts, x."totalAttempts",
               to_timestamp(x."nextAttemptAt" / 1000.0), x."heldBy", x."lastStatus", x."lastError",
               to_timestamp(x."createdAt" / 1000.0), to_timestamp(x."endedAt" / 1000.0), x."traceParent", x."traceState"`,
      record: `id int8, "eventId" text, "eventType" text, body text, "endpointId" text, status text, attempts int4,
               "totalAttempts" int4, "nextAttemptAt" float8, "heldBy" text, "lastStatus" int4, "lastError" text,
               "createdAt" float8, "endedAt" float8, "traceParent" text, "traceState" text`,
    },
  },
  webhook_attempts: {
    key: [
      ['delivery_id', 'int8'],
      ['n', 'int4'],
    ],
    columns: `delivery_id::float8 AS delivery_id, n, ${ms('started_at')}, duration_ms, status, error`,
    insert: {
      into: 'webhook_attempts (delivery_id, n, started_at, duration_ms, status, error)',
      select: `x."deliveryId", x.n, to_timestamp(x."startedAt" / 1000.0), x."durationMs", x.status, x.error`,
      record: `"deliveryId" int8, n int4, "startedAt" float8, "durationMs" int4, status int4, error text`,
    },
  },
  plant_changes: {
    key: [['seq', 'int8']],
    columns: `seq::float8 AS seq, type, plant_id::float8 AS plant_id, ${selected}, left_tag, version::float8 AS version,
              at::float8 AS at`,
    insert: {
      into: `plant_changes (seq, type, plant_id, ${plantColumnList()}, left_tag, version, at)`,
      select: `x.seq, x.type, x."plantId", ${plantColumnList('x')}, x."leftTag", x.version, x.at`,
      record: `seq int8, type text, "plantId" int8, ${record}, "leftTag" text, version int8, at int8`,
    },
  },
};

/** `text` as a field of COPY's text format (backslash escapes; `\N` is NULL). */
const copyField = (value: ColumnValue): string =>
  value === null
    ? '\\N'
    : typeof value === 'number'
      ? String(value)
      : value.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));

const reader = (sql: Sql): DataReader => ({
  async *rows<T extends DataTable>(table: T, now: number): AsyncIterable<readonly DataRows[T][]> {
    const map = TABLES[table];
    const live = map.live;
    const order = map.key.map(([k]) => k).join(', ');
    let after: unknown[] | undefined;
    for (;;) {
      const params: unknown[] = [];
      const conditions: string[] = [];
      if (live !== undefined) {
        params.push(now);
        conditions.push(live.replace('$now', `$${params.length}::float8`));
      }
      if (after !== undefined) {
        const marks = map.key.map(([, type], i) => {
          params.push(after?.[i]);
          return `$${params.length}::${type}`;
        });
        conditions.push(`(${order}) > (${marks.join(', ')})`);
      }
      const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
      const rows = (await sql.unsafe(
        `SELECT ${map.columns} FROM ${table} ${where} ORDER BY ${order} LIMIT ${CHUNK}`,
        params as postgres.ParameterOrJSON<never>[],
      )) as unknown as Row[];
      if (rows.length === 0) return;
      yield rows.map(READ[table] as (row: unknown) => DataRows[T]);
      if (rows.length < CHUNK) return;
      const last = rows[rows.length - 1] as Row;
      after = map.key.map(([k]) => String(last[k]));
    }
  },
  count: async (table, now) => {
    const live = TABLES[table].live;
    const [row] = (await sql.unsafe(
      `SELECT count(*)::float8 AS n FROM ${table}${live === undefined ? '' : ` WHERE ${live.replace('$now', '$1::float8')}`}`,
      live === undefined ? [] : [now],
    )) as unknown as Row[];
    return countOf(row);
  },
  ids: async () => {
    const [row] = (await sql.unsafe(
      `SELECT (c.next_id - 1)::float8 AS high_water, c.gap_cursor::float8 AS gap_cursor,
              greatest((SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM plant_versions),
                       (SELECT coalesce(max(version), 0) FROM plants))::float8 AS revision,
              s.last_seq::float8 AS last_seq, s.forgotten_through::float8 AS forgotten_through,
              s.untagged_through::float8 AS untagged_through
         FROM plant_id_counter c, plant_change_state s`,
    )) as unknown as Row[];
    if (row === undefined) throw new Error('plant_id_counter holds no row');
    return idStateFromRow(row);
  },
});

/** The URL without its password, for messages. */
const redact = (url: string): string => url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');

const writer = (tx: postgres.TransactionSql): DataWriter => ({
  ...reader(tx),
  insert: async (table, rows) => {
    if (rows.length === 0) return;
    if (table === 'plants') {
      // COPY: the bulk path, about ten times the rows per second of INSERTs.
      const stream = await tx
        .unsafe(`COPY plants (id, ${plantColumnList()}, version, name_folded) FROM STDIN`)
        .writable();
      const done = once(stream, 'finish');
      let text = '';
      for (const p of rows as readonly PlantRow[]) {
        const columns = PLANT_FIELDS.map((f) => copyField(p[f])).join('\t');
        text += `${p.id}\t${columns}\t${p.version}\t${copyField(fold(String(p.name)))}\n`;
      }
      stream.end(text);
      await done;
      return;
    }
    const insert = TABLES[table].insert;
    if (insert === undefined) throw new TypeError(`no INSERT for ${table}`);
    for (let i = 0; i < rows.length; i += CHUNK) {
      await tx.unsafe(
        `INSERT INTO ${insert.into} SELECT ${insert.select} FROM json_to_recordset($1::text::json) AS x(${insert.record})`,
        [JSON.stringify(rows.slice(i, i + CHUNK))],
      );
    }
  },
  setIds: async (state: IdState) => {
    await tx.unsafe('UPDATE plant_id_counter SET next_id = $1::int8 + 1, gap_cursor = $2::int8', [
      state.highWater,
      state.gapCursor,
    ]);
    await tx.unsafe(`SELECT setval('plant_versions', greatest($1::int8, 1), $1::int8 > 0)`, [state.revision]);
    await tx.unsafe(
      'UPDATE plant_change_state SET last_seq = $1::int8, forgotten_through = $2::int8, untagged_through = $3::int8',
      [state.changeSeq, state.changesForgottenThrough, state.changesUntaggedThrough],
    );
    await tx.unsafe(
      `SELECT setval(pg_get_serial_sequence('webhook_deliveries', 'id'), greatest(max(id), 1), max(id) IS NOT NULL)
         FROM webhook_deliveries`,
    );
  },
});

export interface PostgresDataOptions {
  readonly url: string;
}

/**
 * A PostgreSQL database opened for the data commands: one connection of its own, no statement
 * timeout (a copy of a large store takes longer than a request may), the migrations applied like
 * at a server's start.
 */
export const openPostgresData = async (options: PostgresDataOptions): Promise<DataStore> => {
  const where = redact(options.url);
  let connection: ReturnType<typeof readConnectionUrl>;
  try {
    connection = readConnectionUrl(options.url);
  } catch (error) {
    throw new Error(`cannot open PostgreSQL at ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const sql = postgres(connection.driverUrl, {
    max: 1,
    // TLS made by the store as sslmode and sslrootcert say (tls.ts), as for the server's pool.
    socket: new StoreSockets(connection.tls, 10_000).open,
    ssl: false,
    connect_timeout: 10,
    fetch_types: false,
    onnotice: () => undefined,
    connection: { application_name: 'plant-store-data', statement_timeout: 0, jit: 'off' },
  } as postgres.Options<Record<string, never>>);
  try {
    await migratePostgres(sql, undefined);
  } catch (error) {
    await sql.end({ timeout: 0 });
    throw new Error(`cannot open PostgreSQL at ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }

  /** `plants` name distinct ids (the caller splits a chunk at a repeated one). */
  const importChunk = async (tx: postgres.TransactionSql, plants: readonly ImportPlant[]) => {
    // The writers' lock every write of a server takes first: no plant or counter moves meanwhile.
    await tx`SELECT 1 FROM plant_id_counter FOR UPDATE`;
    const input = plants.map((p, i) => ({ i, id: p.id, ...plantColumnsOf(p), folded: fold(p.name) }));
    // `p` is the table as the statement started: a plant found there was stored before.
    const rows = (await tx.unsafe(
      `WITH x AS (SELECT * FROM json_to_recordset($1::text::json) AS x(i int4, id int8, ${record}, folded text)),
            added AS (
              INSERT INTO plants (id, ${plantColumnList()}, name_folded)
              SELECT x.id, ${plantColumnList('x')}, x.folded FROM x ORDER BY x.id
              ON CONFLICT (id) DO NOTHING RETURNING id
            ),
            counter AS (
              UPDATE plant_id_counter SET next_id = (SELECT max(id) + 1 FROM added)
               WHERE next_id <= (SELECT max(id) FROM added)
            )
       SELECT x.i, ${plantColumnList('p')}, p.version::float8 AS version
         FROM x LEFT JOIN plants p ON p.id = x.id
        ORDER BY x.i`,
      [JSON.stringify(input)],
    )) as unknown as Row[];
    return rows.map((row, i): ImportOutcome => {
      const plant = plants[i] as ImportPlant;
      const found = foundFromRow(row);
      return importOutcomeOf(plant, found.version === null ? undefined : found);
    });
  };

  return {
    kind: 'postgres',
    where,
    snapshot: (run) =>
      sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) => run(reader(tx))) as Promise<never>,
    fill: (run) =>
      sql.begin(async (tx) => {
        await tx`SELECT 1 FROM plant_id_counter FOR UPDATE`;
        // The change log comes with the copy, numbers and all: the copy's own inserts are not
        // changes (migration 8's triggers log nothing while this is set; it ends with the transaction).
        await tx`SELECT set_config('plant_store.copying', 'on', true)`;
        const held = await holdsAnything(reader(tx));
        if (held !== undefined) throw new TargetNotEmpty(`the target ${where} is not empty: ${held}`);
        // The secondary indexes of plants are built once at the end rather than row by row
        // during COPY; they come back in the same transaction, as the migrations made them.
        const indexes = (await tx.unsafe(
          `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
             FROM pg_index i WHERE i.indrelid = 'plants'::regclass AND NOT i.indisprimary`,
        )) as unknown as { name: string; def: string }[];
        for (const index of indexes) await tx.unsafe(`DROP INDEX ${index.name}`);
        const result = await run(writer(tx));
        // Room to sort a large table's keys in memory: the GIN index above all builds far faster.
        await tx.unsafe(`SET LOCAL maintenance_work_mem = '256MB'`);
        for (const index of indexes) await tx.unsafe(index.def);
        return result;
      }) as Promise<never>,
    importPlants: (plants) => sql.begin((tx) => importChunk(tx, plants)) as Promise<never>,
    close: () => sql.end({ timeout: 5 }),
  };
};
