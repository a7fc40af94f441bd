import type postgres from 'postgres';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';
import type { PostgresMigration } from './migrations/postgres-migration.js';

export { POSTGRES_MIGRATIONS } from './migrations/index.js';
export type { PostgresMigration } from './migrations/postgres-migration.js';

/**
 * An arbitrary fixed key for `pg_advisory_xact_lock`: "plant" in ASCII. Advisory locks are per
 * database, so instances migrating different schemas of one database take turns (briefly).
 */
export const MIGRATION_LOCK_KEY = 482854661748;

/** A dollar-quoted literal for `text`, with a tag that does not occur in it. */
const dollarQuote = (text: string): string => {
  let tag = 'migration';
  while (text.includes(`$${tag}$`)) tag += '_';
  return `$${tag}$${text}$${tag}$`;
};

const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Applies the migrations not yet recorded, in one transaction holding an advisory lock, so that
 * several instances starting at once migrate exactly once: the first takes the lock and migrates,
 * the others wait for its commit, then find every version recorded and do nothing. A failing
 * migration rolls back entirely (PostgreSQL DDL is transactional) and the open fails.
 * `schema`, when given, is created first (inside the lock, so concurrent creators do not race).
 *
 * The whole transaction is ONE simple-protocol query, which PostgreSQL runs as one implicit
 * transaction (each migration guarded by a DO block that checks `schema_migrations`), not the
 * driver's `begin()`: a connection pinned by `begin()` that dies mid-transaction can crash the
 * process in postgres 3.4.9 (see write-queue.ts). If the connection dies here, the
 * server rolls the transaction back.
 * Returns the versions this call applied.
 */
export const migratePostgres = async (
  sql: postgres.Sql,
  schema: string | undefined,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<readonly number[]> => {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  for (const m of ordered) {
    if (!Number.isSafeInteger(m.version) || m.version < 1)
      throw new TypeError(`migration version ${m.version} is not a positive integer`);
  }
  const script = [
    // Migrations may legitimately take longer than a request's statement timeout (and so may
    // waiting for another instance's migration). Rolled back with the transaction on failure,
    // reset to the connection's value at the end.
    'SET statement_timeout = 0',
    `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}) AS locked`,
    ...(schema === undefined ? [] : [`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`]),
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version    int4 PRIMARY KEY,
       name       text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now()
     )`,
    `SELECT coalesce(json_agg(version), '[]')::text AS already_applied FROM schema_migrations`,
    ...ordered.map(
      (m) =>
        `DO ${dollarQuote(`BEGIN
        IF NOT EXISTS (SELECT 1 FROM schema_migrations WHERE version = ${m.version}) THEN
          EXECUTE ${dollarQuote(m.sql)};
          INSERT INTO schema_migrations (version, name) VALUES (${m.version}, ${dollarQuote(m.name)});
        END IF;
      END`)}`,
    ),
    'RESET statement_timeout',
  ].join(';\n');
  const results: unknown = await sql.unsafe(script);
  const already = findAlreadyApplied(results);
  return ordered.map((m) => m.version).filter((v) => !already.includes(v));
};

/** The versions the `already_applied` row of the script's results lists. */
const findAlreadyApplied = (results: unknown): readonly number[] => {
  const sets = Array.isArray(results) ? (results as unknown[]) : [];
  for (const set of sets) {
    const row: unknown = Array.isArray(set) ? set[0] : undefined;
    if (typeof row === 'object' && row !== null && 'already_applied' in row) {
      const parsed: unknown = JSON.parse(String(row.already_applied));
      if (Array.isArray(parsed) && parsed.every((v) => Number.isSafeInteger(v))) return parsed as number[];
    }
  }
  throw new TypeError('the migration script returned no already_applied row');
};
