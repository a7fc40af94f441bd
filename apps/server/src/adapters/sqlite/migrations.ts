import { fold } from '@plant-store/domain';
import type BetterSqlite3 from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from './migrations/index.js';
import type { SqliteMigration } from './migrations/sqlite-migration.js';

export { SQLITE_MIGRATIONS } from './migrations/index.js';
export type { SqliteMigration } from './migrations/sqlite-migration.js';

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
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  const record = db.prepare<[number, string, number]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  // For migrations that fold names already stored (the server folds the ones it writes).
  db.function('plant_store_fold', { deterministic: true }, (name: unknown) => fold(String(name)));
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

/**
 * Folds the names an earlier release wrote to this file after this one had upgraded it (their
 * folded name is ''; see migration 5). Returns how many it folded.
 */
export const refoldSqlite = (db: BetterSqlite3.Database): number => {
  const unfolded = db.prepare<[], { id: number; name: string }>("SELECT id, name FROM plants WHERE name_folded = ''");
  // Through plants_name: a seek, and no write lock unless there is something to fold.
  if (db.prepare("SELECT 1 FROM plants WHERE name_folded = '' LIMIT 1").get() === undefined) return 0;
  const write = db.prepare<[string, number]>('UPDATE plants SET name_folded = ? WHERE id = ?');
  return db
    .transaction(() => {
      let folded = 0;
      for (const { id, name } of unfolded.all()) folded += write.run(fold(name), id).changes;
      return folded;
    })
    .immediate();
};
