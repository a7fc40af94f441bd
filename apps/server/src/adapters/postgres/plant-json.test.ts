import { Plant } from '@plant-store/domain';
import { arbitraryOf, describePostgres, freshPostgresUrl } from '@plant-store/testkit';
import fc from 'fast-check';
import postgres from 'postgres';
import { expect, it } from 'vitest';
import { PLANT_COLUMNS, PLANT_MEMBERS, postgresType } from '../plant-columns.js';
import { plantJsonSql } from './plant-json.js';

/*
 * Issue 54, (8): PostgreSQL wrote the events' `data` by concatenating named members. It is now
 * generated from the plant's members (plantJsonSql), and must be byte for byte what the codec
 * writes (the change feed and the webhooks are compared byte for byte), for any plant, and for a
 * member added later too.
 */

const jsonOfRows = async (sql: postgres.Sql, rows: readonly object[], record: string, expression: string) =>
  (await sql.unsafe(
    `SELECT ${expression} AS json FROM jsonb_to_recordset($1::text::jsonb) AS p(${record}) ORDER BY p.i`,
    [JSON.stringify(rows)],
  )) as unknown as { json: string }[];

describePostgres('the JSON of a plant built in SQL', () => {
  it("is byte for byte the codec's, for every plant", async () => {
    const fresh = await freshPostgresUrl();
    const sql = postgres(fresh.url, { max: 1, onnotice: () => undefined, fetch_types: false });
    try {
      const plants = fc.sample(arbitraryOf(Plant), { numRuns: 500, seed: 54 });
      const record = ['i int4', 'id int8', ...PLANT_COLUMNS.map((c) => `${c.field} ${postgresType(c.kind)}`)].join(
        ', ',
      );
      const rows = plants.map((p, i) => ({ i, ...p }));
      const built = await jsonOfRows(sql, rows, record, plantJsonSql('p'));
      expect(built.map((r) => r.json)).toEqual(plants.map((p) => JSON.stringify(Plant.encode(p))));
    } finally {
      await sql.end({ timeout: 5 });
      await fresh.drop();
    }
  });

  it('writes a member added to the codec, where the codec writes it, and leaves it out when absent', async () => {
    const fresh = await freshPostgresUrl();
    const sql = postgres(fresh.url, { max: 1, onnotice: () => undefined, fetch_types: false });
    try {
      const plants = fc
        .sample(arbitraryOf(Plant), { numRuns: 100, seed: 55 })
        .map((p, i) => (i % 2 === 0 ? { ...p, added_later: `note "${i}"\n\u0001é\u2028` } : p));
      const members = [...PLANT_MEMBERS, { field: 'added_later', kind: 'text' as const }];
      const record = [
        'i int4',
        'id int8',
        ...PLANT_COLUMNS.map((c) => `${c.field} ${postgresType(c.kind)}`),
        'added_later text',
      ].join(', ');
      const built = await jsonOfRows(
        sql,
        plants.map((p, i) => ({ i, ...p })),
        record,
        plantJsonSql('p', members),
      );
      // What a codec with `added_later` as its last optional member writes: Plant's members, then added_later.
      const expected = plants.map((p) => {
        const { added_later, ...plant } = p as Plant & { added_later?: string };
        const encoded = Plant.encode(plant as Plant);
        return JSON.stringify(added_later === undefined ? encoded : { ...encoded, added_later });
      });
      expect(built.map((r) => r.json)).toEqual(expected);
    } finally {
      await sql.end({ timeout: 5 });
      await fresh.drop();
    }
  });
});
