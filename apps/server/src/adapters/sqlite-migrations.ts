import type BetterSqlite3 from 'better-sqlite3';

/** One schema change. Versions only grow; an applied migration is never edited, only followed. */
export interface SqliteMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The schema, oldest first. Ids are INTEGER PRIMARY KEY (the rowid: seeks by id and `id > ?`
 * ranges use the table's own b-tree). `plant_ids` keeps the high-water mark of every id ever
 * stored, so server-assigned ids never collide with client-chosen ones nor reuse deleted ones.
 * Timestamps are milliseconds since the epoch; token scopes are space-separated.
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'plants and tokens',
    sql: `
      CREATE TABLE plants (
        id   INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        tag  TEXT
      ) STRICT;
      CREATE TABLE plant_ids (
        singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
        high_water INTEGER NOT NULL,
        gap_cursor INTEGER NOT NULL
      ) STRICT;
      INSERT INTO plant_ids (singleton, high_water, gap_cursor) VALUES (1, 0, 0);
      CREATE TABLE tokens (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL UNIQUE,
        scopes     TEXT NOT NULL,
        hash       BLOB NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER
      ) STRICT;
    `,
  },
];

/**
 * Applies every migration not yet recorded in `schema_migrations`, each in its own
 * `BEGIN IMMEDIATE` transaction (the write lock makes two processes opening one file at once
 * apply each migration exactly once). Returns the versions applied now.
 */
export const migrateSqlite = (
  db: BetterSqlite3.Database,
  migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS,
): readonly number[] => {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const isApplied = db.prepare<[number], { version: number }>('SELECT version FROM schema_migrations WHERE version = ?');
  const record = db.prepare<[number, string, number]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    // Checked once without a lock (an up-to-date file takes no write lock at open), and again
    // under it, in case another process applied it in between.
    if (isApplied.get(migration.version) !== undefined) continue;
    db.transaction(() => {
      if (isApplied.get(migration.version) !== undefined) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      applied.push(migration.version);
    }).immediate();
  }
  return applied;
};
