import postgres from 'postgres';
import type { NewPlant, PeerStore, PlantChanges, PlantRow } from './peer.js';
import { toRecord } from './peer.js';

/** The peer's own table, so that it never meets our server's `plants` in a shared database. */
const TABLE = 'peer_plants';

interface Row {
  readonly id: string;
  readonly name: string;
  readonly tag: string | null;
}

/** int8 arrives as a string; every id is within 2^53−1, so a Number holds it exactly. */
const plantOf = (row: Row): ReturnType<typeof toRecord> =>
  toRecord({ id: Number(row.id), name: row.name, tag: row.tag } satisfies PlantRow);

/**
 * The PostgreSQL store of the `fastify-postgres` peer, as porsager `postgres` users write one: a
 * pool of 10, tagged-template queries (prepared by the driver), each request one statement and so
 * one transaction. A create without an id takes max(id)+1 in its INSERT and tries again when a
 * concurrent create took that id first. The table (and an index on (tag, id) for tagged plants) is
 * created at start when missing.
 */
export const openPostgresPlants = async (url: string): Promise<PeerStore> => {
  const sql = postgres(url, { max: 10, onnotice: () => undefined });
  const table = sql(TABLE);
  try {
    await sql`CREATE TABLE IF NOT EXISTS ${table} (id int8 PRIMARY KEY, name text NOT NULL, tag text)`;
    await sql`CREATE INDEX IF NOT EXISTS ${sql(`${TABLE}_tag_id`)} ON ${table} (tag, id) WHERE tag IS NOT NULL`;
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }

  return {
    create: async ({ id, name, tag }: NewPlant) => {
      if (id !== undefined) {
        const rows = await sql<
          Row[]
        >`INSERT INTO ${table} (id, name, tag) VALUES (${id}, ${name}, ${tag ?? null}) ON CONFLICT (id) DO NOTHING RETURNING id`;
        return rows.length === 1 ? id : undefined;
      }
      for (;;) {
        const rows = await sql<Row[]>`
          INSERT INTO ${table} (id, name, tag) SELECT coalesce(max(id), 0) + 1, ${name}, ${tag ?? null} FROM ${table}
          ON CONFLICT (id) DO NOTHING RETURNING id`;
        if (rows[0] !== undefined) return Number(rows[0].id);
      }
    },
    get: async (id) => {
      const [row] = await sql<Row[]>`SELECT id, name, tag FROM ${table} WHERE id = ${id}`;
      return row === undefined ? undefined : plantOf(row);
    },
    update: async (id, { name, tag }: PlantChanges) => {
      const [row] = await sql<Row[]>`
        UPDATE ${table} SET name = coalesce(${name ?? null}::text, name), tag = CASE WHEN ${tag === undefined}::boolean THEN tag ELSE ${tag ?? null}::text END
        WHERE id = ${id} RETURNING id, name, tag`;
      return row === undefined ? undefined : plantOf(row);
    },
    remove: async (id) => (await sql`DELETE FROM ${table} WHERE id = ${id}`).count === 1,
    list: async (limit, after, tag) =>
      (tag === undefined
        ? await sql<Row[]>`SELECT id, name, tag FROM ${table} WHERE id > ${after} ORDER BY id LIMIT ${limit}`
        : await sql<
            Row[]
          >`SELECT id, name, tag FROM ${table} WHERE tag = ${tag} AND id > ${after} ORDER BY id LIMIT ${limit}`
      ).map(plantOf),
    close: () => sql.end({ timeout: 5 }),
  };
};
