import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PreloadNames } from './search-pages.js';

/**
 * Store set-up the bench does outside the server: preloading a SQLite file and creating /
 * dropping a throwaway PostgreSQL database. better-sqlite3 and postgres are the server's
 * dependencies, not ours, so they are loaded from the server package's folder (the bench depends
 * on @plant-store/server, and this keeps the bench's dependency list as it is).
 */

/** apps/server, found through our own node_modules link (works from src via vitest and from dist). */
export const serverPackageDir = (): string =>
  realpathSync(fileURLToPath(new URL('../node_modules/@plant-store/server', import.meta.url)));

const requireFromServer = (): NodeJS.Require => createRequire(join(serverPackageDir(), 'package.json'));

interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
}
interface SqliteDatabase {
  pragma(source: string): unknown;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  close(): void;
}
type SqliteConstructor = new (file: string, options?: { readonly readonly?: boolean }) => SqliteDatabase;

interface ColumnInfo {
  readonly name: string;
  readonly notnull: number;
  readonly dflt_value: unknown;
  readonly pk: number;
}

/** The tag every preloaded plant gets unless told otherwise (an SQL expression over the id). */
const PRELOADED_TAG = (): string => "'preloaded'";
/**
 * The names preloaded plants get unless told otherwise: `preloaded plant <id>`, which folds to
 * itself (lower-case ASCII; the unit tests hold it).
 */
export const PRELOADED_NAMES: PreloadNames = {
  name: (idExpr) => `'preloaded plant ' || (${idExpr})`,
  folded: (idExpr) => `'preloaded plant ' || (${idExpr})`,
};

/**
 * How many plants of the SQLite store `file` wait for the search index (the server adds them in
 * the background, behind the writes: migration 7), read on a read-only connection of its own;
 * undefined where the schema has no such list. `close` lets the file go.
 */
export const searchBacklog = (file: string): { read(): number | undefined; close(): void } => {
  const Database = requireFromServer()('better-sqlite3') as SqliteConstructor;
  const db = new Database(file, { readonly: true });
  let count: SqliteStatement | undefined;
  try {
    count = db.prepare('SELECT count(*) AS n FROM plants_search_pending');
  } catch {
    count = undefined;
  }
  return {
    read: () => (count === undefined ? undefined : ((count.all()[0] as { n: number } | undefined)?.n ?? 0)),
    close: () => db.close(),
  };
};

/**
 * Inserts `count` plants with ids `1…count` into the `plants` table of an existing store file (the
 * schema the server created), in one statement and one transaction, with journaling off for the
 * load; WAL mode is restored afterwards. `tagSql` gives each plant's tag and `names` its name as
 * SQL expressions over its id; the folded name (`name_folded`, where the schema has it) is written
 * too, as the server writes it. What the schema's triggers keep (the search index) they keep for
 * these rows as for any, and plants left pending for the search index are indexed before the
 * server starts. Returns the milliseconds it took.
 */
export const preloadSqlite = (
  file: string,
  count: number,
  tagSql: (idExpr: string) => string = PRELOADED_TAG,
  names: PreloadNames = PRELOADED_NAMES,
): number => {
  const Database = requireFromServer()('better-sqlite3') as SqliteConstructor;
  const started = Date.now();
  const db = new Database(file);
  try {
    const columns = db.prepare('PRAGMA table_info(plants)').all() as ColumnInfo[];
    if (columns.length === 0)
      throw new TypeError(`preloadSqlite: ${file} has no plants table (did the server create its schema?)`);
    const values: Record<string, string> = {
      id: 'x',
      name: names.name('x'),
      name_folded: names.folded('x'),
      tag: tagSql('x'),
    };
    const written: string[] = [];
    const exprs: string[] = [];
    for (const column of columns) {
      const expr = values[column.name];
      if (expr !== undefined) {
        written.push(`"${column.name}"`);
        exprs.push(expr);
      } else if (column.notnull === 1 && column.dflt_value === null) {
        throw new TypeError(
          `preloadSqlite: plants.${column.name} is NOT NULL without a default; teach the bench how to fill it`,
        );
      }
    }
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.prepare(
      `INSERT INTO plants (${written.join(', ')})
       WITH RECURSIVE seq(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM seq WHERE x < ?)
       SELECT ${exprs.join(', ')} FROM seq`,
    ).run(count);
    // A schema that indexes names behind the writes lists the new plants as pending: index them
    // now, as the server would soon after, so that its searches read the index, not a list of
    // a million pending plants, and the load does not meet the server catching up.
    const pending = db.prepare("SELECT name FROM sqlite_schema WHERE name = 'plants_search_pending'").all();
    if (pending.length > 0)
      db.exec(`INSERT INTO plants_search (rowid, name_folded)
                 SELECT p.id, p.name_folded FROM plants_search_pending s JOIN plants p ON p.id = s.id;
               DELETE FROM plants_search_pending;`);
    // Keep the server's id high-water mark (when it has one) above the preloaded ids.
    const marks = db.prepare("SELECT name FROM pragma_table_info('plant_ids') WHERE name = 'high_water'").all();
    if (marks.length > 0) db.prepare('UPDATE plant_ids SET high_water = max(high_water, ?)').run(count);
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  return Date.now() - started;
};

interface Sql {
  unsafe(query: string, params?: readonly unknown[]): Promise<unknown>;
  end(options?: { timeout?: number }): Promise<void>;
}
type Postgres = (url: string, options: Record<string, unknown>) => Sql;

const connect = (url: string): Sql => {
  const postgres = requireFromServer()('postgres') as Postgres;
  return postgres(url, { max: 1, connect_timeout: 3, onnotice: () => undefined });
};

export interface PgDatabase {
  /** The URL the server gets as DATABASE_URL. */
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/**
 * Creates a fresh database `bench_<random>` through `adminUrl`; resolves to a reason string
 * instead when PostgreSQL cannot be reached, so the caller can skip its rows.
 */
export const createPgDatabase = async (adminUrl: string): Promise<PgDatabase | string> => {
  const admin = connect(adminUrl);
  const name = `bench_${randomBytes(6).toString('hex')}`;
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } catch (error) {
    await admin.end({ timeout: 1 }).catch(() => undefined);
    return error instanceof Error ? error.message : String(error);
  }
  await admin.end({ timeout: 1 });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const again = connect(adminUrl);
      try {
        await again.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await again.end({ timeout: 1 });
      }
    },
  };
};

/** How long the PostgreSQL preload may take before it is given up (a million plants take seconds). */
const PG_PRELOAD_TIMEOUT_MS = 5 * 60_000;

/**
 * The PostgreSQL counterpart of preloadSqlite: `count` plants with ids `1…count` in one
 * `INSERT … SELECT generate_series` into the schema the server's CLI created (each row's version
 * from the table's default; the folded name where the schema has it), with the indexes that back
 * no constraint dropped for the load and built again after it, the id counter raised above them,
 * then `VACUUM (ANALYZE)` so that the server meets a table as settled as one filled over time
 * (statistics, visibility map, hint bits). Bounded by a statement timeout. Returns the
 * milliseconds it took.
 */
export const preloadPostgres = async (
  url: string,
  count: number,
  tagSql: (idExpr: string) => string = PRELOADED_TAG,
  names: PreloadNames = PRELOADED_NAMES,
): Promise<number> => {
  const started = Date.now();
  const sql = connect(url);
  try {
    const columns = (await sql.unsafe(
      "SELECT column_name AS name, is_nullable = 'NO' AND column_default IS NULL AS required FROM information_schema.columns WHERE table_name = 'plants'",
    )) as readonly { readonly name: string; readonly required: boolean }[];
    const values: Record<string, string> = {
      id: 'g',
      name: names.name('g'),
      name_folded: names.folded('g'),
      tag: tagSql('g'),
    };
    const unknown = columns.filter((c) => c.required && values[c.name] === undefined).map((c) => c.name);
    if (unknown.length > 0)
      throw new TypeError(
        `preloadPostgres: plants.${unknown.join(', ')} NOT NULL without a default; teach the bench how to fill it`,
      );
    const written = columns.map((c) => c.name).filter((name) => values[name] !== undefined);
    await sql.unsafe(`SET statement_timeout = ${PG_PRELOAD_TIMEOUT_MS}`);
    // Indexes no constraint needs are dropped for the load and built again after it from their
    // own definitions: building a trigram GIN index once is several times faster than keeping it
    // row by row, and the result is the index the schema asks for.
    const secondary = (await sql.unsafe(
      `SELECT format('%I.%I', n.nspname, i.relname) AS name, pg_get_indexdef(i.oid) AS definition
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace
        WHERE x.indrelid = 'plants'::regclass
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`,
    )) as readonly { readonly name: string; readonly definition: string }[];
    for (const index of secondary) await sql.unsafe(`DROP INDEX ${index.name}`);
    await sql.unsafe(
      `INSERT INTO plants (${written.map((n) => `"${n}"`).join(', ')})
       SELECT ${written.map((n) => values[n]).join(', ')} FROM generate_series(1, $1::int8) AS g`,
      [count],
    );
    await sql.unsafe('UPDATE plant_id_counter SET next_id = GREATEST(next_id, $1::int8 + 1)', [count]);
    await sql.unsafe(`SET maintenance_work_mem = '256MB'`);
    for (const index of secondary) await sql.unsafe(index.definition);
    await sql.unsafe('VACUUM (ANALYZE) plants');
  } finally {
    await sql.end({ timeout: 1 });
  }
  return Date.now() - started;
};
