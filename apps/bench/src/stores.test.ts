import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fold } from '@plant-store/domain';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SEARCH_NAMES, nameOf } from './search-pages.js';
import { preloadSqlite, PRELOADED_NAMES } from './stores.js';
import { tagOf, tagSql } from './tag-pages.js';

// The preload writes into the schema the server created; these stand in for it, before and after
// the folded name (kept by a trigger into a search table, as the server's schema may do).
const BEFORE = `
  CREATE TABLE plants (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tag TEXT, version INTEGER NOT NULL DEFAULT 0) STRICT;
  CREATE TABLE plant_ids (singleton INTEGER PRIMARY KEY, high_water INTEGER NOT NULL);
  INSERT INTO plant_ids VALUES (1, 0);
`;
const AFTER = `
  CREATE TABLE plants (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, tag TEXT, version INTEGER NOT NULL DEFAULT 0,
    name_folded TEXT NOT NULL
  ) STRICT;
  CREATE TABLE plant_ids (singleton INTEGER PRIMARY KEY, high_water INTEGER NOT NULL);
  INSERT INTO plant_ids VALUES (1, 0);
  CREATE TABLE searched (id INTEGER PRIMARY KEY, name_folded TEXT NOT NULL);
  CREATE TRIGGER plants_searched AFTER INSERT ON plants BEGIN
    INSERT INTO searched VALUES (NEW.id, NEW.name_folded);
  END;
`;

let dir: string | undefined;
const storeWith = (schema: string): string => {
  dir = mkdtempSync(join(tmpdir(), 'bench-stores-'));
  const file = join(dir, 'store.db');
  const db = new Database(file);
  db.exec(schema);
  db.close();
  return file;
};

afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Row {
  readonly id: number;
  readonly name: string;
  readonly tag: string | null;
  readonly name_folded?: string;
}

const rowsOf = (file: string, sql = 'SELECT * FROM plants ORDER BY id'): Row[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as Row[];
  } finally {
    db.close();
  }
};

describe('preloadSqlite', () => {
  it('writes the names and their folds where the schema has the folded name', () => {
    const file = storeWith(AFTER);
    preloadSqlite(file, 100, tagSql, SEARCH_NAMES);
    const rows = rowsOf(file);
    expect(rows).toHaveLength(100);
    for (const row of rows) {
      expect(row).toMatchObject({ name: nameOf(row.id), tag: tagOf(row.id) });
      expect(row.name_folded).toBe(fold(row.name));
    }
    // What the schema's triggers keep, they keep for the preloaded rows too.
    expect(rowsOf(file, 'SELECT count(*) AS id FROM searched')).toEqual([{ id: 100 }]);
    expect(rowsOf(file, 'SELECT high_water AS id FROM plant_ids')).toEqual([{ id: 100 }]);
  });

  it('folds the default names to themselves', () => {
    const file = storeWith(AFTER);
    preloadSqlite(file, 3);
    expect(rowsOf(file).map((r) => [r.name, r.name_folded, r.tag])).toEqual(
      [1, 2, 3].map((id) => [`preloaded plant ${id}`, `preloaded plant ${id}`, 'preloaded']),
    );
    expect(PRELOADED_NAMES.folded('x')).toBe(PRELOADED_NAMES.name('x'));
  });

  it('writes no folded name into a schema without one (another build, BENCH_BASELINE_DIR)', () => {
    const file = storeWith(BEFORE);
    preloadSqlite(file, 20, tagSql, SEARCH_NAMES);
    expect(rowsOf(file).map((r) => r.name)).toEqual(Array.from({ length: 20 }, (_, i) => nameOf(i + 1)));
  });
});
