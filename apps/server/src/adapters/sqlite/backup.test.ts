import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { TargetNotEmpty } from '../../ports/store-data.js';
import { backupSqlite } from './backup.js';
import { migrateSqlite } from './migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A migrated store file with `plants` plants, and its open connection. */
const storeWith = (name: string, plants: number): { file: string; db: Database.Database } => {
  const file = join(dir, name);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  migrateSqlite(db);
  const insert = db.prepare<[number, string, string]>('INSERT INTO plants (id, name, name_folded) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let id = 1; id <= plants; id += 1) insert.run(id, `Plant ${id}`, `plant ${id}`);
  })();
  return { file, db };
};

// The copying runs on a worker thread (backup-worker-main.ts); here, from the .ts source beside
// backup.ts, as worker-entry.ts picks under vitest.
describe('backupSqlite', () => {
  it('copies the store on its thread, checks the copy, and reports its plants', async () => {
    const { file, db } = storeWith('source.db', 300);
    const progress: number[] = [];
    try {
      const target = join(dir, 'copies', 'copy.db');
      const report = await backupSqlite(db, file, target, {
        overwrite: false,
        onProgress: (done) => progress.push(done),
      });
      expect(report).toEqual({ file: target, bytes: expect.any(Number) as number, plants: 300 });
      expect(progress.at(-1)).toBeGreaterThan(0);
      const copy = new Database(target, { readonly: true });
      try {
        expect(copy.prepare('SELECT count(*) FROM plants').pluck().get()).toBe(300);
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        copy.close();
      }
      // No partial copy left beside the target.
      expect(readdirSync(join(dir, 'copies'))).toEqual(['copy.db']);
    } finally {
      db.close();
    }
  });

  it("reports the thread's failure, and leaves neither the target nor a partial copy", async () => {
    // A database without the plants table: the copy is made, and counting its plants fails.
    const file = join(dir, 'not-a-store.db');
    const db = new Database(file);
    try {
      db.exec('CREATE TABLE other (x INTEGER)');
      const target = join(dir, 'failed', 'copy.db');
      await expect(backupSqlite(db, file, target, { overwrite: false })).rejects.toThrow(
        'copying failed: no such table: plants',
      );
      expect(existsSync(target)).toBe(false);
      expect(readdirSync(join(dir, 'failed'))).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('refuses a target that exists without overwrite, before starting the thread', async () => {
    const { file, db } = storeWith('kept.db', 1);
    try {
      const target = join(dir, 'taken.db');
      writeFileSync(target, 'already here');
      await expect(backupSqlite(db, file, target, { overwrite: false })).rejects.toBeInstanceOf(TargetNotEmpty);
    } finally {
      db.close();
    }
  });
});
