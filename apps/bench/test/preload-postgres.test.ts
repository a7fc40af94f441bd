import { fold } from '@plant-store/domain';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { nameOf, SEARCH_NAMES } from '../src/search-pages.js';
import { createPgDatabase, preloadPostgres, type PgDatabase } from '../src/stores.js';
import { tagOf, tagSql } from '../src/tag-pages.js';

/**
 * The PostgreSQL preload on a throwaway database (created and dropped as the bench does), into
 * stand-ins for the server's schema before and after the folded name. Without PostgreSQL the suite
 * is skipped with a line saying so, except with CI=true, where it fails.
 */

const pgAdminUrl = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const inCi = process.env['CI'] === 'true';
const pg: PgDatabase | string = await createPgDatabase(pgAdminUrl);
afterAll(async () => {
  if (typeof pg !== 'string') await pg.drop();
});
const skip = typeof pg === 'string' && !inCi;
if (skip)
  console.log(`PostgreSQL preload tests skipped: no PostgreSQL at ${pgAdminUrl} (${pg}; CI=true fails instead)`);

const COUNTER = `CREATE TABLE plant_id_counter (singleton boolean PRIMARY KEY DEFAULT true, next_id int8 NOT NULL);
  INSERT INTO plant_id_counter VALUES (true, 1);`;

const withDatabase = async <A>(schema: string, body: (sql: postgres.Sql, url: string) => Promise<A>): Promise<A> => {
  if (typeof pg === 'string') throw new Error(`PostgreSQL is not reachable at ${pgAdminUrl}: ${pg}`);
  const sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe('DROP TABLE IF EXISTS plants, plant_id_counter');
    await sql.unsafe(`${schema}; ${COUNTER}`);
    return await body(sql, pg.url);
  } finally {
    await sql.end({ timeout: 1 });
  }
};

const indexes = (sql: postgres.Sql) =>
  sql.unsafe(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'plants' ORDER BY indexname`);

describe('preloadPostgres', () => {
  it.skipIf(skip)('writes the names and their folds, and keeps every index the schema has', async () => {
    await withDatabase(
      `CREATE TABLE plants (id int8 PRIMARY KEY, name text NOT NULL, tag text, version int8 NOT NULL DEFAULT 0,
         name_folded text COLLATE "C");
       CREATE INDEX plants_tag ON plants (tag, id) WHERE tag IS NOT NULL;
       CREATE INDEX plants_name ON plants (name_folded, id)`,
      async (sql, url) => {
        const before = await indexes(sql);
        await preloadPostgres(url, 200, tagSql, SEARCH_NAMES);
        expect(await indexes(sql)).toEqual(before);
        const rows = await sql`SELECT id::int4 AS id, name, tag, name_folded FROM plants ORDER BY id`;
        expect(rows).toHaveLength(200);
        for (const row of rows) {
          expect(row).toMatchObject({ name: nameOf(row['id'] as number), tag: tagOf(row['id'] as number) });
          expect(row['name_folded']).toBe(fold(row['name'] as string));
        }
        expect(await sql`SELECT next_id::int4 AS n FROM plant_id_counter`).toEqual([{ n: 201 }]);
      },
    );
  });

  it.skipIf(skip)('fills a schema without the folded name (another build, BENCH_BASELINE_DIR)', async () => {
    await withDatabase('CREATE TABLE plants (id int8 PRIMARY KEY, name text NOT NULL, tag text)', async (sql, url) => {
      await preloadPostgres(url, 3);
      expect(await sql`SELECT name, tag FROM plants ORDER BY id`).toEqual(
        [1, 2, 3].map((id) => ({ name: `preloaded plant ${id}`, tag: 'preloaded' })),
      );
    });
  });
});
