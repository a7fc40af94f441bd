import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Plant } from '@plant-store/domain';
import { describePostgres, freshPostgresUrl } from '@plant-store/testkit';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresData } from '../../src/adapters/postgres/data.js';
import { openSqliteData } from '../../src/adapters/sqlite/data.js';
import { changeTriggersOf } from '../../src/adapters/sqlite/migrations/change-triggers.js';
import { PLANT_FIELDS } from '../../src/adapters/plant-columns.js';
import { migrate } from '../../src/data/migrate.js';
import { progressOn } from '../../src/data/progress.js';
import type { DataStore } from '../../src/ports/store-data.js';

/*
 * `migrate` fills a target whose triggers its own migrations made. It must leave them as they
 * are: it used to drop the change log's triggers for the copy and make them again from migration
 * 8's text, which undid every later migration of a trigger on the next move (issue 54, (4)).
 * Here a later migration is simulated on the target (a trigger replaced, one added), and the
 * target's triggers after the move must be the ones it had before, both ways between the stores.
 */

const silent = progressOn({ isTTY: false } as NodeJS.WriteStream);
const plant = (u: unknown): Plant => {
  const decoded = Plant.decode(u);
  if (E.isLeft(decoded)) throw new Error('not a plant');
  return decoded.right;
};
const PLANTS = [plant({ id: 1, name: 'Fern', tag: 'green' }), plant({ id: 7, name: 'Moss' })];

/** A later migration of the SQLite target's triggers: the update trigger made again, one more trigger. */
const LATER_MIGRATION = `
  DROP TRIGGER plant_changes_insert;
  DROP TRIGGER plant_changes_update;
  ${changeTriggersOf([...PLANT_FIELDS]).replaceAll('BEGIN', 'BEGIN /* a later migration */')}
  CREATE TRIGGER plant_changes_later AFTER INSERT ON plants WHEN new.id < 0 BEGIN
    INSERT INTO plant_changes (seq, type, plant_id, at) VALUES (-new.id, 'plant.deleted', new.id, 0);
  END;
`;

const sqliteTriggers = (file: string): { name: string; sql: string }[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as {
      name: string;
      sql: string;
    }[];
  } finally {
    db.close();
  }
};

const laterMigration = (file: string): void => {
  const db = new Database(file);
  try {
    db.exec(LATER_MIGRATION);
  } finally {
    db.close();
  }
};

/** What the target's change log holds after the move: the source's changes, none of the copy's own. */
const changesOf = (file: string): unknown[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT * FROM plant_changes ORDER BY seq').all();
  } finally {
    db.close();
  }
};

const dir = mkdtempSync(join(tmpdir(), 'plant-migrate-triggers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migrate into SQLite', () => {
  it("keeps the target's triggers as its migrations made them, a later migration's included", async () => {
    const stores: DataStore[] = [];
    try {
      const source = openSqliteData({ file: join(dir, 'source.db'), create: true });
      stores.push(source);
      await source.importPlants(PLANTS);
      const targetFile = join(dir, 'target.db');
      const target = openSqliteData({ file: targetFile, create: true });
      stores.push(target);
      laterMigration(targetFile);
      const before = sqliteTriggers(targetFile);
      expect(before.map((t) => t.name)).toContain('plant_changes_later');

      await migrate(source, target, silent);
      expect(sqliteTriggers(targetFile)).toEqual(before);
      // The log came with the copy: the source's two creates, numbered as they were.
      expect(changesOf(targetFile)).toEqual(changesOf(join(dir, 'source.db')));
    } finally {
      for (const store of stores) await store.close();
    }
  });
});

/** The triggers on `plants` and the text of their functions, as PostgreSQL holds them. */
const postgresTriggers = async (url: string): Promise<unknown[]> => {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const rows = await sql`
      SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS def, pg_get_functiondef(t.tgfoid) AS function
        FROM pg_trigger t WHERE t.tgrelid = 'plants'::regclass AND NOT t.tgisinternal ORDER BY t.tgname`;
    return [...rows];
  } finally {
    await sql.end({ timeout: 5 });
  }
};

describePostgres('migrate between SQLite and PostgreSQL', () => {
  it("keeps each target's triggers, a later migration's included, both ways", async () => {
    const pg = await freshPostgresUrl();
    const stores: DataStore[] = [];
    try {
      const source = openSqliteData({ file: join(dir, 'pg-source.db'), create: true });
      stores.push(source);
      await source.importPlants(PLANTS);
      const middle = await openPostgresData({ url: pg.url });
      stores.push(middle);
      // A later migration on PostgreSQL: one more trigger on plants, with its function.
      const sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
      await sql.unsafe(`
        CREATE FUNCTION plant_store_later() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
        CREATE TRIGGER plant_changes_later AFTER INSERT ON plants FOR EACH STATEMENT EXECUTE FUNCTION plant_store_later();`);
      await sql.end({ timeout: 5 });
      const before = await postgresTriggers(pg.url);
      await migrate(source, middle, silent);
      expect(await postgresTriggers(pg.url)).toEqual(before);

      const lastFile = join(dir, 'pg-last.db');
      const last = openSqliteData({ file: lastFile, create: true });
      stores.push(last);
      laterMigration(lastFile);
      const lastBefore = sqliteTriggers(lastFile);
      await migrate(middle, last, silent);
      expect(sqliteTriggers(lastFile)).toEqual(lastBefore);
      expect(changesOf(lastFile)).toEqual(changesOf(join(dir, 'pg-source.db')));
    } finally {
      for (const store of stores) await store.close();
      await pg.drop();
    }
  });
});
