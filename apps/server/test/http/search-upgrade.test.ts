import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fold } from '@plant-store/domain';
import { freshPostgresUrl, until, type FreshPostgres } from '@plant-store/testkit';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres, POSTGRES_MIGRATIONS } from '../../src/adapters/postgres/migrations.js';
import { openPostgresStore } from '../../src/adapters/postgres/open.js';
import { REFOLD_INTERVAL_MS } from '../../src/adapters/postgres/plant-pages.js';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStore } from '../../src/adapters/sqlite/open.js';
import {
  describeSearch,
  expectedList,
  expectSameList,
  plantName,
  plantTag,
  querySpec,
  resolveQuery,
  SORTS,
  walk,
  wirePlant,
  type Search,
  type WirePlant,
} from './search-support.js';
import { bearer, request, startTestServer, testStoreKind, type TestServer } from './support.js';

/*
 * A store made by the release before search (its migrations only, its way of writing plants:
 * creates, patched plants with versions, deleted ones leaving gaps), full of mixed-script names
 * and tags, opened by this release: every plant still there and unchanged, the folded name
 * stored beside each as fold(name), and name orders, q searches and counts answered as the model
 * says. The store of the project running the file (the `postgres` project runs it again).
 * SEARCH_UPGRADE_PLANTS sets the store's size.
 */

/** The last migration of the release before search, per store. */
const PREVIOUS = { sqlite: 4, postgres: 5 } as const;
const PLANTS = Number(process.env['SEARCH_UPGRADE_PLANTS'] ?? 1500);
const SEED = 777;

interface Old {
  readonly created: WirePlant[];
  readonly patches: Array<{ id: number; name: string | undefined; tag: string | null | undefined }>;
  readonly deletes: number[];
}

/** What the previous release was asked to do, and the plants it then held. */
const history = (): { old: Old; plants: Map<number, WirePlant> } => {
  const [names, picks] = fc.sample(
    fc.tuple(
      fc.array(fc.tuple(plantName, plantTag), { minLength: PLANTS, maxLength: PLANTS }),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.option(plantName, { nil: undefined, freq: 4 }),
          fc.oneof(plantTag, fc.constant(null)),
          fc.boolean(),
        ),
        { minLength: Math.floor(PLANTS / 5), maxLength: Math.floor(PLANTS / 5) },
      ),
    ),
    { seed: SEED, numRuns: 1 },
  )[0] as [
    Array<[string, string | undefined]>,
    Array<[number, string | undefined, string | null | undefined, boolean]>,
  ];
  // Ids with gaps, as deletes and client-chosen ids leave them.
  const created = names.map(([name, tag], i) => wirePlant(1 + i * 3 + (i % 7), name, tag));
  const plants = new Map(created.map((p) => [p.id, p]));
  const patches: Old['patches'] = [];
  const deletes: number[] = [];
  for (const [pick, name, tag, remove] of picks) {
    const plant = plants.get((created[pick % created.length] as WirePlant).id);
    if (plant === undefined) continue;
    if (remove && pick % 4 === 0) {
      deletes.push(plant.id);
      plants.delete(plant.id);
    } else {
      patches.push({ id: plant.id, name, tag });
      plants.set(plant.id, wirePlant(plant.id, name ?? plant.name, tag === undefined ? plant.tag : (tag ?? undefined)));
    }
  }
  return { old: { created, patches, deletes }, plants };
};

/** Writes `old` into a new SQLite file the way the previous release's schema holds it. */
const previousSqlite = (file: string, old: Old): void => {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    migrateSqlite(
      db,
      SQLITE_MIGRATIONS.filter((m) => m.version <= PREVIOUS.sqlite),
    );
    let version = 0;
    db.transaction(() => {
      const insert = db.prepare('INSERT INTO plants (id, name, tag, version) VALUES (?, ?, ?, ?)');
      for (const p of old.created) insert.run(p.id, p.name, p.tag ?? null, (version += 1));
      const patch = db.prepare(
        'UPDATE plants SET name = coalesce(?, name), tag = CASE WHEN ? THEN ? ELSE tag END, version = ? WHERE id = ?',
      );
      for (const p of old.patches)
        patch.run(p.name ?? null, p.tag === undefined ? 0 : 1, p.tag ?? null, (version += 1), p.id);
      const remove = db.prepare('DELETE FROM plants WHERE id = ?');
      for (const id of old.deletes) remove.run(id);
      const high = Math.max(...old.created.map((p) => p.id));
      db.prepare('UPDATE plant_ids SET high_water = ?, revision = ?').run(high, version);
    })();
  } finally {
    db.close();
  }
};

/** Writes `old` into `url`'s schema through the previous release's write function. */
const previousPostgres = async (url: string, old: Old): Promise<void> => {
  const sql = postgres(url, { onnotice: () => undefined, max: 1 });
  try {
    await migratePostgres(
      sql,
      undefined,
      POSTGRES_MIGRATIONS.filter((m) => m.version <= PREVIOUS.postgres),
    );
    const write = (writes: object[], maxExplicit: number) =>
      sql`SELECT * FROM plant_store_write_v2(${sql.json(writes as never)}, ${maxExplicit}::int8, 0::int8, 3600::int4)`;
    for (let i = 0; i < old.created.length; i += 500) {
      const batch = old.created.slice(i, i + 500);
      await write(
        batch.map((p, j) => ({ i: j, op: 'create', id: p.id, name: p.name, tag: p.tag ?? null })),
        Math.max(...batch.map((p) => p.id)),
      );
    }
    // One at a time: a plant may be patched twice, and a batch reads the plants as they were.
    for (const p of old.patches) {
      await write(
        [{ i: 0, op: 'update', id: p.id, name: p.name ?? null, tag: p.tag ?? null, set_tag: p.tag !== undefined }],
        0,
      );
    }
    await write(
      old.deletes.map((id, i) => ({ i, op: 'delete', id })),
      0,
    );
  } finally {
    await sql.end();
  }
};

/** Every plant's id, name and name_folded, as the store holds them. */
type Folded = Array<{ id: number; name: string; name_folded: string }>;

describe(`a ${testStoreKind} store of the release before search, opened by this one`, () => {
  const { old, plants } = history();
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-search-upgrade-'));
  const file = join(dir, 'plants.db');
  let pg: FreshPostgres | undefined;
  let server: TestServer;
  let readFolded: () => Promise<Folded>;

  beforeAll(async () => {
    if (testStoreKind === 'sqlite') {
      previousSqlite(file, old);
      server = await startTestServer({ open: () => openSqliteStore({ file }) });
      readFolded = async () => {
        const db = new Database(file, { readonly: true });
        try {
          return db.prepare('SELECT id, name, name_folded FROM plants ORDER BY id').all() as Folded;
        } finally {
          db.close();
        }
      };
    } else {
      const fresh = await freshPostgresUrl();
      pg = fresh;
      await previousPostgres(fresh.url, old);
      server = await startTestServer({ open: () => openPostgresStore({ url: fresh.url, poolSize: 4 }) });
      readFolded = async () => {
        const sql = postgres(fresh.url, { onnotice: () => undefined, max: 1 });
        try {
          const rows = await sql`SELECT id::text, name, name_folded FROM plants ORDER BY id`;
          return rows.map((r) => ({
            id: Number(r['id']),
            name: String(r['name']),
            name_folded: String(r['name_folded']),
          }));
        } finally {
          await sql.end();
        }
      };
    }
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is upgraded by a migration of this release', () => {
    const migrations = testStoreKind === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
    expect(migrations.filter((m) => m.version > PREVIOUS[testStoreKind]).length).toBeGreaterThan(0);
  });

  it('loses nothing: every plant, its name and its tag as the previous release left them', async () => {
    const all = await walk(server, { limit: 1000 });
    expectSameList(
      all.plants,
      [...plants.values()].sort((a, b) => a.id - b.id),
      'every plant',
    );
    expect(plants.size).toBeGreaterThan(PLANTS / 2);
  });

  it('stores fold(name) beside every name', async () => {
    const rows = await readFolded();
    expect(rows.length).toBe(plants.size);
    const wrong = rows.filter((r) => r.name_folded !== fold(r.name));
    expect(wrong.slice(0, 5), `${wrong.length} rows whose name_folded is not fold(name)`).toEqual([]);
  });

  it('answers name orders, q searches and counts over the old plants as the model says', async () => {
    for (const sort of SORTS) {
      const search = { sort, limit: 97 };
      expectSameList((await walk(server, search)).plants, expectedList(plants.values(), search), `sort=${sort}`);
    }
    const names = [...plants.values()].map((p) => p.name);
    const searches = fc.sample(
      fc.record({
        q: querySpec,
        tag: plantTag,
        sort: fc.constantFrom(...SORTS),
        limit: fc.constantFrom(25, 100, 400),
      }),
      { seed: SEED + 1, numRuns: 60 },
    );
    for (const drawn of searches) {
      const search = { ...drawn, q: resolveQuery(drawn.q, names) };
      const expected = expectedList(plants.values(), search);
      const walked = await walk(server, search, { count: expected.length });
      expectSameList(walked.plants, expected, describeSearch(search));
    }
  });

  it('keeps searching right as old plants are renamed and deleted and new ones made', async () => {
    const headers = { ...bearer(server.tokens.all), 'content-type': 'application/merge-patch+json' };
    const [first, second] = [...plants.values()];
    if (first === undefined || second === undefined) throw new Error('no plants');
    const renamed = await request(server, `/plants/${first.id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ name: 'ＵＰＧＲＡＤＥＤ ﬁddle leaf' }),
    });
    expect(renamed.status).toBe(200);
    plants.set(first.id, wirePlant(first.id, 'ＵＰＧＲＡＤＥＤ ﬁddle leaf', first.tag));
    expect((await request(server, `/plants/${second.id}`, { method: 'DELETE', headers })).status).toBe(204);
    plants.delete(second.id);
    const created = await request(server, '/plants', {
      method: 'POST',
      headers: { ...bearer(server.tokens.all), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'upgraded Σίσυφος' }),
    });
    expect(created.status).toBe(201);
    const id = Number(String(created.headers.location).split('/').pop());
    plants.set(id, wirePlant(id, 'upgraded Σίσυφος', undefined));
    for (const search of [
      { q: 'upgraded', sort: 'name' as const, limit: 1 },
      { q: 'fiddle', sort: '-name' as const, limit: 2 },
      { q: first.name, sort: 'id' as const, limit: 5 },
      { q: second.name, sort: 'name' as const, limit: 5 },
      { sort: 'name' as const, limit: 200 },
    ]) {
      const expected = expectedList(plants.values(), search);
      expectSameList((await walk(server, search, { count: expected.length })).plants, expected, describeSearch(search));
    }
    const rows = await readFolded();
    expect(rows.filter((r) => r.name_folded !== fold(r.name))).toEqual([]);
    expect(rows.find((r) => r.id === first.id)?.name_folded).toBe('upgraded fiddle leaf');
  });

  it("keeps the store's own search structures whole", async () => {
    if (testStoreKind === 'sqlite') {
      const db = new Database(file);
      try {
        expect(db.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
        // The running server indexes the plants it wrote SEARCH_INDEX_DELAY_MS after its
        // last write (search-index.ts); until then they are pending and the index lacks them.
        const pending = db.prepare('SELECT count(*) FROM plants_search_pending').pluck();
        await until('the plants pending for the search index to be indexed', () => pending.get() === 0);
        // FTS5's own check of the index, against the plants table too (rank 1).
        expect(() =>
          db.prepare("INSERT INTO plants_search (plants_search, rank) VALUES ('integrity-check', 1)").run(),
        ).not.toThrow();
      } finally {
        db.close();
      }
      return;
    }
    const sql = postgres((pg as FreshPostgres).url, { onnotice: () => undefined, max: 1 });
    try {
      // Code-point order, whatever the database's collation.
      const [column] = await sql`
        SELECT collation_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = 'plants' AND column_name = 'name_folded'`;
      expect(column?.['collation_name']).toBe('C');
      const indexes =
        await sql`SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'plants'`;
      const definitions = indexes.map((r) => String(r['indexdef']));
      expect(
        definitions.some((d) => /USING gin \(name_folded (\S+\.)?gin_trgm_ops\)/.test(d)),
        definitions.join('\n'),
      ).toBe(true);
    } finally {
      await sql.end();
    }
  });
});

/** Creates plants 1–3 over HTTP, as this release does, and adds them to the model. */
const createThree = async (server: TestServer, model: Map<number, WirePlant>): Promise<void> => {
  for (const [id, name] of [
    [1, 'Alpha fern'],
    [2, 'Zulu moss'],
    [3, 'Mike ivy'],
  ] as const) {
    const reply = await request(server, '/plants', {
      method: 'POST',
      headers: { ...bearer(server.tokens.all), 'content-type': 'application/json' },
      body: JSON.stringify({ id, name }),
    });
    expect(reply.status).toBe(201);
    model.set(id, wirePlant(id, name, undefined));
  }
};

/**
 * Each search walked through its Links and compared with the model, and its count checked;
 * every failure's message, so that one test reports all of them at once.
 */
const searchFailures = async (
  server: TestServer,
  model: ReadonlyMap<number, WirePlant>,
  searches: readonly Search[],
): Promise<string[]> => {
  const failures: string[] = [];
  for (const search of searches) {
    const expected = expectedList(model.values(), search);
    try {
      expectSameList((await walk(server, search)).plants, expected, describeSearch(search));
      await walk(server, { ...search, limit: 1000 }, { count: expected.length });
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  return failures;
};

// A rolling upgrade on PostgreSQL: instances of this release and of the previous one serve one
// schema for a while. The previous release's writes know nothing of the folded name; the plants
// they write or rename must still be found and ordered by name by this release, within a few
// seconds (an open store folds them every REFOLD_INTERVAL_MS), without waiting for another
// instance to start.
if (testStoreKind === 'postgres') {
  describe('a PostgreSQL store an instance of the previous release writes to after this one started', () => {
    let fresh: FreshPostgres;
    let server: TestServer;
    let previous: postgres.Sql;
    const model = new Map<number, WirePlant>();

    beforeAll(async () => {
      fresh = await freshPostgresUrl();
      server = await startTestServer({ open: () => openPostgresStore({ url: fresh.url, poolSize: 2 }) });
      previous = postgres(fresh.url, { onnotice: () => undefined, max: 1 });
    }, 60_000);
    afterAll(async () => {
      await previous?.end();
      await server?.close();
      await fresh?.drop();
    });

    it('finds and orders by name the plants that instance creates and renames', async () => {
      await createThree(server, model);
      // The previous release's lone create (its statement, reduced to what touches plants) and
      // its rename, through the write function it calls, with the writes it sends.
      await previous`
        WITH counter AS (UPDATE plant_id_counter SET next_id = GREATEST(next_id, 11) RETURNING next_id)
        INSERT INTO plants (id, name, tag) SELECT 10, 'Rolling Ｆｅｒｎ', NULL FROM counter`;
      model.set(10, wirePlant(10, 'Rolling Ｆｅｒｎ', undefined));
      await previous`SELECT * FROM plant_store_write_v2(${previous.json([
        { i: 0, op: 'create', id: 11, name: 'ROLLING bracken', tag: null },
      ])}, 11::int8, 0::int8, 3600::int4)`;
      model.set(11, wirePlant(11, 'ROLLING bracken', undefined));
      await previous`SELECT * FROM plant_store_write_v2(${previous.json([
        { i: 0, op: 'update', id: 2, name: 'rolling Zulu', tag: null, set_tag: false },
      ])}, 0::int8, 0::int8, 3600::int4)`;
      model.set(2, wirePlant(2, 'rolling Zulu', undefined));
      const unfolded = async () =>
        Number((await previous`SELECT count(*)::int4 AS n FROM plants WHERE name_folded IS NULL`)[0]?.['n']);
      expect(await unfolded()).toBe(3);
      await until('the plants to be folded', async () => (await unfolded()) === 0, 5 * REFOLD_INTERVAL_MS);
      expect(await unfolded()).toBe(0);

      expect(
        await searchFailures(server, model, [
          { sort: 'name', limit: 2 },
          { sort: '-name', limit: 10 },
          { q: 'rolling', limit: 10 },
          { q: 'fern', sort: 'name', limit: 1 },
          { q: 'zulu', limit: 10 },
        ]),
      ).toEqual([]);
    });
  });
}

// A rollback: this release upgraded the store, the previous release served it again for a while
// (its statements know nothing of the folded name), then this release opened it once more. What
// the previous release wrote meanwhile must be found and ordered by name like everything else.
describe(`a ${testStoreKind} store this release upgraded, written by the previous release again, then reopened`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-search-rollback-'));
  const file = join(dir, 'plants.db');
  let fresh: FreshPostgres | undefined;
  let opened = 0;
  const open = async (): Promise<TestServer> => {
    // Each opening issues its test tokens anew, under names of its own.
    opened += 1;
    if (testStoreKind === 'sqlite')
      return startTestServer({ open: () => openSqliteStore({ file }), tokenPrefix: `open${opened}-` });
    fresh ??= await freshPostgresUrl();
    const { url } = fresh;
    return startTestServer({ open: () => openPostgresStore({ url, poolSize: 2 }), tokenPrefix: `open${opened}-` });
  };
  afterAll(async () => {
    await fresh?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The previous release's own statements: a create, and a rename. */
  const writeAsPreviousRelease = async (): Promise<void> => {
    if (testStoreKind === 'sqlite') {
      const db = new Database(file);
      try {
        const revision = Number(db.prepare('SELECT revision FROM plant_ids').pluck().get());
        db.prepare('INSERT INTO plants (id, name, tag, version) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING').run(
          10,
          'Rollback Ｆｅｒｎ',
          null,
          revision + 1,
        );
        db.prepare(
          `UPDATE plants SET name = coalesce(@name, name), tag = CASE WHEN @setTag THEN @tag ELSE tag END, version = @version
            WHERE id = @id`,
        ).run({ name: 'rollback Zulu', setTag: 0, tag: null, version: revision + 2, id: 2 });
        db.prepare('UPDATE plant_ids SET revision = ?, high_water = max(high_water, 10)').run(revision + 2);
      } finally {
        db.close();
      }
      return;
    }
    const sql = postgres((fresh as FreshPostgres).url, { onnotice: () => undefined, max: 1 });
    try {
      await sql`
        WITH counter AS (UPDATE plant_id_counter SET next_id = GREATEST(next_id, 11) RETURNING next_id)
        INSERT INTO plants (id, name, tag) SELECT 10, 'Rollback Ｆｅｒｎ', NULL FROM counter`;
      await sql`SELECT * FROM plant_store_write_v2(${sql.json([
        { i: 0, op: 'update', id: 2, name: 'rollback Zulu', tag: null, set_tag: false },
      ])}, 0::int8, 0::int8, 3600::int4)`;
    } finally {
      await sql.end();
    }
  };

  it('folds the plants the previous release created and renamed: found by q, in name order', async () => {
    const model = new Map<number, WirePlant>();
    const first = await open();
    try {
      await createThree(first, model);
    } finally {
      await first.close();
    }
    await writeAsPreviousRelease();
    model.set(10, wirePlant(10, 'Rollback Ｆｅｒｎ', undefined));
    model.set(2, wirePlant(2, 'rollback Zulu', undefined));

    const server = await open();
    let failures: string[];
    try {
      failures = await searchFailures(server, model, [
        { sort: 'name', limit: 2 },
        { sort: '-name', limit: 10 },
        { q: 'rollback', limit: 10 },
        { q: 'fern', sort: 'name', limit: 1 },
        { q: 'zulu', limit: 10 },
        { q: 'moss', limit: 10 },
      ]);
    } finally {
      await server.close();
    }
    expect(failures).toEqual([]);
  });
});
