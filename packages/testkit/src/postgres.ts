/**
 * PostgreSQL for tests: a throwaway schema per caller inside the shared `test` database, and the
 * skip-or-fail rule of `describePostgres` below.
 *
 * Many test files and processes use one PostgreSQL server at once, so every caller gets its own
 * schema (`ps_test_<time>_<random>`; schemas left over by a run that died are dropped a day later). The URL it returns selects that schema through libpq's `options`
 * parameter (`-c search_path=…`), so it works unchanged as a `DATABASE_URL` for a server process,
 * and tags its connections with `application_name=<schema>` so a test can find (and terminate) them.
 * A schema is far cheaper than `CREATE DATABASE` and does not contend on `template1`.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { describeUnlessMissing } from './skip.js';

/** Where the PostgreSQL tests connect: env `PG_TEST_URL`, else the local server's `test` database. */
export const pgTestUrl: string = process.env['PG_TEST_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A short-lived connection to `pgTestUrl` for test set-up and inspection (end it when done). */
export const openAdminSql = (url: string = pgTestUrl): postgres.Sql =>
  postgres(url, {
    max: 1,
    connect_timeout: 5,
    fetch_types: false,
    onnotice: () => undefined,
    connection: { application_name: 'plant-store-test-admin' },
  });

let probe: Promise<boolean> | undefined;

/** Whether a PostgreSQL server answers at `pgTestUrl` (probed once per process). */
export const postgresAvailable = (): Promise<boolean> => {
  probe ??= (async () => {
    const sql = postgres(pgTestUrl, { max: 1, connect_timeout: 3, fetch_types: false, onnotice: () => undefined });
    try {
      await sql`select 1`;
      return true;
    } catch {
      return false;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => undefined);
    }
  })();
  return probe;
};

export interface FreshPostgres {
  /** A `postgres://` URL whose connections use `schema` (and are named after it). */
  readonly url: string;
  /** The schema, `ps_test_<base-36 creation time>_<12 hex digits>`; also the connections' `application_name`. */
  readonly schema: string;
  /** Terminates any connection still using the schema, then drops it with everything in it. */
  drop(): Promise<void>;
}

/** Schemas older than this are left-overs of runs that died before dropping them. */
const STALE_AFTER_SECONDS = 24 * 60 * 60;
let pruned = false;

/** Drops `ps_test_<time>_…` schemas created more than a day ago (at most once per process). */
const pruneStaleSchemas = async (admin: postgres.Sql): Promise<void> => {
  if (pruned) return;
  pruned = true;
  const cutoff = Math.floor(Date.now() / 1000) - STALE_AFTER_SECONDS;
  const rows = await admin`select nspname from pg_namespace where nspname ~ '^ps_test_[0-9a-z]+_[0-9a-f]+$'`;
  for (const row of rows) {
    const name = String(row['nspname']);
    const created = parseInt(name.split('_')[2] ?? '', 36);
    if (!Number.isSafeInteger(created) || created >= cutoff) continue;
    // Another process may be dropping the same one; either way it ends up gone.
    await admin`drop schema if exists ${admin(name)} cascade`.catch(() => undefined);
  }
};

/** Creates an empty schema of its own in the test database and returns a URL that selects it. */
export const freshPostgresUrl = async (): Promise<FreshPostgres> => {
  // The creation time (base 36 seconds) lets a later run recognise a left-over schema.
  const schema = `ps_test_${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(6).toString('hex')}`;
  const admin = openAdminSql();
  try {
    await pruneStaleSchemas(admin);
    await admin`create schema ${admin(schema)}`;
  } finally {
    await admin.end({ timeout: 5 });
  }
  // Percent-encoded by hand: URLSearchParams would write the space as `+`, which libpq keeps literally.
  const params = `options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${schema}`;
  const url = `${pgTestUrl}${pgTestUrl.includes('?') ? '&' : '?'}${params}`;
  let dropped: Promise<void> | undefined;
  const drop = (): Promise<void> => {
    dropped ??= (async () => {
      const sql = openAdminSql();
      try {
        await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${schema} and pid <> pg_backend_pid()`;
        await sql.begin(async (tx) => {
          await tx`set local lock_timeout = '20s'`;
          await tx`drop schema if exists ${tx(schema)} cascade`;
        });
      } finally {
        await sql.end({ timeout: 5 });
      }
    })();
    return dropped;
  };
  return { url, schema, drop };
};

export interface FreshPostgresDatabase {
  /** `ps_test_<base-36 creation time>_<12 hex digits>`. */
  readonly database: string;
  /** pgTestUrl with this database instead of its own. */
  readonly url: string;
  /** Drops it, ending whatever is still connected to it. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database of its own on the server at pgTestUrl: for a test that cannot pick a
 * schema per connection (through a pooler, which refuses the `options` start-up parameter).
 */
export const freshPostgresDatabase = async (): Promise<FreshPostgresDatabase> => {
  const database = `ps_test_${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(6).toString('hex')}`;
  const admin = openAdminSql();
  try {
    await admin`create database ${admin(database)}`;
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(pgTestUrl);
  url.pathname = `/${database}`;
  let dropped: Promise<void> | undefined;
  const drop = (): Promise<void> => {
    dropped ??= (async () => {
      const sql = openAdminSql();
      try {
        await sql`drop database if exists ${sql(database)} with (force)`;
      } finally {
        await sql.end({ timeout: 5 });
      }
    })();
    return dropped;
  };
  return { database, url: url.toString(), drop };
};

const reachable = await postgresAvailable();

/**
 * `describe` for tests that need PostgreSQL. When none answers at `pgTestUrl`: outside CI the
 * block is skipped and one line says so; with `CI=true` it fails instead, so CI cannot pass
 * without having run the PostgreSQL tests.
 */
export const describePostgres = (name: string, fn: () => void): void =>
  describeUnlessMissing(
    'PostgreSQL',
    reachable ? undefined : `no PostgreSQL reachable at ${redact(pgTestUrl)} (set PG_TEST_URL or start the server)`,
    name,
    fn,
  );

/** The URL without its password, for messages. */
const redact = (url: string): string => {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable PG_TEST_URL>';
  }
};
