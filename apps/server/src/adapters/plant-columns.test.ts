import { Plant } from '@plant-store/domain';
import { describePostgres, freshPostgresUrl } from '@plant-store/testkit';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import {
  PLANT_COLUMNS,
  PLANT_FIELDS,
  PLANT_MEMBERS,
  postgresType,
  sqliteType,
  type PlantColumn,
} from './plant-columns.js';
import { PLANT_BATCH_FUNCTION, PLANT_WRITE_FUNCTION } from './postgres/migrations/index.js';
import { migratePostgres } from './postgres/migrations.js';
import { migrateSqlite } from './sqlite/migrations.js';
import { changeTriggersWithLeftTagOf } from './sqlite/migrations/change-triggers.js';

/*
 * The plant's columns are derived from Plant's codec (plant-columns.ts). These tests are where a
 * member added to the codec fails loudly until the stores carry it: a column of `plants` and of
 * `plant_changes` on each store (a new migration), the change log's triggers comparing it, and
 * PostgreSQL's write function made for it. Each store is also shown to log a change of any one
 * plant column alone, and (with a column added to a throwaway store) of one it did not have.
 */

/** A value for a column, different each time it is asked. */
let counter = 0;
const sample = (column: PlantColumn): string | number => {
  counter += 1;
  return column.kind === 'text' ? `value ${counter}` : counter;
};

describe('the plant columns', () => {
  it("are Plant's members but the id, in the order the codec writes them", () => {
    expect(PLANT_MEMBERS.map((m) => m.field)).toEqual([...Object.keys(Plant.required), ...Object.keys(Plant.optional)]);
    expect(PLANT_COLUMNS.map((c) => [c.field, c.required])).toEqual([
      ...Object.keys(Plant.required)
        .filter((k) => k !== 'id')
        .map((k) => [k, true]),
      ...Object.keys(Plant.optional).map((k) => [k, false]),
    ]);
  });

  it('are the columns the PostgreSQL write function the server calls was made for', () => {
    // A member added to Plant needs a migration with a new version of the write function
    // (migrations/write-function-v3.ts), named in PLANT_WRITE_FUNCTION.
    expect(
      PLANT_WRITE_FUNCTION.columns.map((c) => [c.field, c.kind, c.type]),
      `${PLANT_WRITE_FUNCTION.name} is made for other plant columns than Plant's`,
    ).toEqual(PLANT_COLUMNS.map((c) => [c.field, c.kind, postgresType(c.kind)]));
  });

  it('are the columns the PostgreSQL function for arrays of creates was made for', () => {
    // Likewise: a new version of migrations/batch-function-v1.ts, named in PLANT_BATCH_FUNCTION.
    expect(
      PLANT_BATCH_FUNCTION.columns.map((c) => [c.field, c.kind, c.type]),
      `${PLANT_BATCH_FUNCTION.name} is made for other plant columns than Plant's`,
    ).toEqual(PLANT_COLUMNS.map((c) => [c.field, c.kind, postgresType(c.kind)]));
  });
});

const sqliteStore = (): Database.Database => {
  const db = new Database(':memory:');
  migrateSqlite(db);
  return db;
};

/** `UPDATE plants SET <column> = ?` for each column alone: one change each, carrying the value. */
const eachColumnAloneSqlite = (db: Database.Database, columns: readonly PlantColumn[]): void => {
  const names = columns.map((c) => c.field);
  db.prepare(
    `INSERT INTO plants (id, ${names.join(', ')}, version, name_folded) VALUES (1, ${names.map(() => '?').join(', ')}, 1, 'x')`,
  ).run(...columns.map(sample));
  for (const column of columns) {
    const value = sample(column);
    const before = db.prepare('SELECT last_seq FROM plant_change_state').pluck().get() as number;
    db.prepare(`UPDATE plants SET ${column.field} = ? WHERE id = 1`).run(value);
    const logged = db.prepare('SELECT * FROM plant_changes WHERE seq > ?').all(before) as Record<string, unknown>[];
    expect(
      logged.map((c) => [c['type'], c[column.field]]),
      `a change of ${column.field} alone is logged`,
    ).toEqual([['plant.updated', value]]);
  }
  // Columns that are not the plant's are not a change of it.
  const before = db.prepare('SELECT last_seq FROM plant_change_state').pluck().get() as number;
  db.exec("UPDATE plants SET version = version + 1, name_folded = 'y' WHERE id = 1");
  expect(db.prepare('SELECT count(*) FROM plant_changes WHERE seq > ?').pluck().get(before)).toBe(0);
};

describe('the SQLite schema', () => {
  it('has a column of plants and of plant_changes for every plant column', () => {
    const db = sqliteStore();
    const info = (table: string) =>
      db.prepare(`SELECT name, type, "notnull" FROM pragma_table_info('${table}')`).all() as {
        name: string;
        type: string;
        notnull: number;
      }[];
    const plants = new Map(info('plants').map((c) => [c.name, c]));
    const changes = new Map(info('plant_changes').map((c) => [c.name, c]));
    for (const column of PLANT_COLUMNS) {
      const stored = plants.get(column.field);
      expect(stored, `plants.${column.field}: add it in a new migration`).toBeDefined();
      expect([stored?.type, stored?.notnull === 1]).toEqual([sqliteType(column.kind), column.required]);
      expect(changes.get(column.field)?.type, `plant_changes.${column.field}`).toBe(sqliteType(column.kind));
    }
  });

  it("logs a change of any one plant column alone, and no change of the store's own columns", () => {
    eachColumnAloneSqlite(sqliteStore(), PLANT_COLUMNS);
  });

  it('logs a change of a column added later once its migration makes the triggers again', () => {
    const db = sqliteStore();
    // What the migration adding a member does: the column in both tables, the two triggers again.
    const later: PlantColumn = { field: 'added_later' as never, kind: 'text', required: false };
    db.exec(`
      ALTER TABLE plants ADD COLUMN added_later TEXT;
      ALTER TABLE plant_changes ADD COLUMN added_later TEXT;
      DROP TRIGGER plant_changes_insert;
      DROP TRIGGER plant_changes_update;
      ${changeTriggersWithLeftTagOf([...PLANT_FIELDS, 'added_later'])}`);
    eachColumnAloneSqlite(db, [...PLANT_COLUMNS, later]);
  });
});

describePostgres('the PostgreSQL schema', () => {
  const withStore = async (run: (sql: postgres.Sql) => Promise<void>): Promise<void> => {
    const fresh = await freshPostgresUrl();
    const sql = postgres(fresh.url, { max: 1, onnotice: () => undefined, fetch_types: false });
    try {
      await migratePostgres(sql, undefined);
      await run(sql);
    } finally {
      await sql.end({ timeout: 5 });
      await fresh.drop();
    }
  };

  const eachColumnAlone = async (sql: postgres.Sql, columns: readonly PlantColumn[]): Promise<void> => {
    const names = columns.map((c) => c.field).join(', ');
    const values = columns.map((c, i) => `$${i + 1}::${postgresType(c.kind)}`).join(', ');
    await sql.unsafe(`INSERT INTO plants (id, ${names}) VALUES (1, ${values})`, columns.map(sample));
    for (const column of columns) {
      const value = sample(column);
      const [{ last } = { last: 0 }] = await sql<
        { last: string }[]
      >`SELECT last_seq::text AS last FROM plant_change_state`;
      await sql.unsafe(`UPDATE plants SET ${column.field} = $1::${postgresType(column.kind)} WHERE id = 1`, [value]);
      const logged = await sql.unsafe(
        `SELECT type, ${column.field}${column.kind === 'integer' ? '::float8' : ''} AS value FROM plant_changes WHERE seq > $1::int8`,
        [last],
      );
      expect(
        logged.map((c) => [c['type'], c['value']]),
        `a change of ${column.field} alone is logged`,
      ).toEqual([['plant.updated', value]]);
    }
    const [{ last } = { last: 0 }] = await sql<
      { last: string }[]
    >`SELECT last_seq::text AS last FROM plant_change_state`;
    await sql`UPDATE plants SET version = version + 1, name_folded = 'y' WHERE id = 1`;
    const [{ n } = { n: -1 }] = await sql<
      { n: number }[]
    >`SELECT count(*)::int4 AS n FROM plant_changes WHERE seq > ${last}::int8`;
    expect(n).toBe(0);
  };

  it('has a column of plants and of plant_changes for every plant column', async () => {
    await withStore(async (sql) => {
      const columns = await sql<{ table: string; name: string; type: string; notnull: boolean }[]>`
        SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, NULL) AS type, a.attnotnull AS notnull
          FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         WHERE c.oid IN ('plants'::regclass, 'plant_changes'::regclass) AND a.attnum > 0 AND NOT a.attisdropped`;
      const of = (table: string, name: string) => columns.find((c) => c.table === table && c.name === name);
      for (const column of PLANT_COLUMNS) {
        const type = postgresType(column.kind);
        expect(of('plants', column.field)?.type, `plants.${column.field}: add it in a new migration`).toBe(type);
        expect(of('plants', column.field)?.notnull).toBe(column.required);
        expect(of('plant_changes', column.field)?.type, `plant_changes.${column.field}`).toBe(type);
      }
    });
  });

  it("logs a change of any one plant column alone, and no change of the store's own columns", async () => {
    await withStore((sql) => eachColumnAlone(sql, PLANT_COLUMNS));
  });

  it('logs a change of a column added later with no new trigger function: the whole plant is compared', async () => {
    await withStore(async (sql) => {
      await sql.unsafe(
        'ALTER TABLE plants ADD COLUMN added_later text; ALTER TABLE plant_changes ADD COLUMN added_later text',
      );
      await eachColumnAlone(sql, [...PLANT_COLUMNS, { field: 'added_later' as never, kind: 'text', required: false }]);
    });
  });
});
