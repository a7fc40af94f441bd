import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres, POSTGRES_MIGRATIONS } from '../../src/adapters/postgres/migrations.js';
import { openPostgresStore } from '../../src/adapters/postgres/open.js';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStore } from '../../src/adapters/sqlite/open.js';
import { canonicalRequest } from '../../src/idempotency/canonical-request.js';
import { bearer, jsonHeaders, request, startTestServer, testStoreKind, type TestServer } from './support.js';

/*
 * A store of the release before change numbers were saved with idempotency keys (migrations ≤ 9
 * on both stores), opened by this one (migration 10). A key the release before saved, before or
 * after the upgrade (on PostgreSQL an instance of it keeps writing through plant_store_write_v3
 * during a rolling upgrade), replays as it did: its 201, ETag and body, without an X-Change-Seq,
 * which it never had. This release's keys replay with theirs. The store of the project running
 * the file.
 */

const PREVIOUS = 9;
const KEYED_ID = 7001;
const body = { id: KEYED_ID, name: 'Saved before' };

describe(`a ${testStoreKind} store of the release before saved change numbers, opened by this one`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-change-seq-upgrade-'));
  const file = join(dir, 'plants.db');
  let pg: FreshPostgres | undefined;
  let server: TestServer;

  beforeAll(async () => {
    if (testStoreKind === 'sqlite') {
      const db = new Database(file);
      try {
        db.pragma('journal_mode = WAL');
        migrateSqlite(
          db,
          SQLITE_MIGRATIONS.filter((m) => m.version <= PREVIOUS),
        );
      } finally {
        db.close();
      }
      server = await startTestServer({ open: () => openSqliteStore({ file }) });
    } else {
      pg = await freshPostgresUrl();
      const sql = postgres(pg.url, { onnotice: () => undefined, max: 1 });
      try {
        await migratePostgres(
          sql,
          undefined,
          POSTGRES_MIGRATIONS.filter((m) => m.version <= PREVIOUS),
        );
      } finally {
        await sql.end();
      }
      const url = pg.url;
      server = await startTestServer({ open: () => openPostgresStore({ url, poolSize: 2 }) });
    }
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The idempotency owner of the server's `all` token, as the release before keys it too. */
  const ownerOfAll = async (): Promise<string> => {
    if (testStoreKind === 'sqlite') {
      const db = new Database(file, { readonly: true });
      try {
        return `token ${String((db.prepare("SELECT id FROM tokens WHERE name = 'all'").get() as { id: string }).id)}`;
      } finally {
        db.close();
      }
    }
    const sql = postgres(pg?.url ?? '', { onnotice: () => undefined, max: 1 });
    try {
      const [row] = await sql<{ id: string }[]>`SELECT id FROM tokens WHERE name = 'all'`;
      return `token ${String(row?.id)}`;
    } finally {
      await sql.end();
    }
  };

  /** A keyed create as the release before commits it: the plant and its key, no change number. */
  const previousKeyedCreate = async (key: string): Promise<void> => {
    const owner = await ownerOfAll();
    const saved = canonicalRequest(body as Parameters<typeof canonicalRequest>[0]);
    if (testStoreKind === 'sqlite') {
      const db = new Database(file);
      try {
        db.transaction(() => {
          db.prepare(
            "INSERT INTO plants (id, name, tag, version, name_folded) VALUES (?, ?, NULL, 424242, 'saved before')",
          ).run(KEYED_ID, body.name);
          db.prepare(
            `INSERT INTO idempotency_keys (owner, key, request, status, plant_id, version, expires_at)
             VALUES (?, ?, ?, 201, ?, 424242, ?)`,
          ).run(owner, key, saved, KEYED_ID, Date.now() + 3_600_000);
        })();
      } finally {
        db.close();
      }
      return;
    }
    const sql = postgres(pg?.url ?? '', { onnotice: () => undefined, max: 1 });
    try {
      const writes = [
        {
          i: 0,
          op: 'create',
          id: KEYED_ID,
          name: body.name,
          tag: null,
          name_folded: 'saved before',
          owner,
          key,
          request: saved,
        },
      ];
      const [row] =
        await sql`SELECT * FROM plant_store_write_v3(${sql.json(writes as never)}, ${KEYED_ID}::int8, 0::int8, 3600::int4)`;
      expect(row).toMatchObject({ done: true });
    } finally {
      await sql.end();
    }
  };

  const keyed = (key: string, sent: unknown) =>
    request(server, '/plants', {
      method: 'POST',
      headers: { ...jsonHeaders(server.tokens.all), 'idempotency-key': key },
      body: JSON.stringify(sent),
    });

  it('is upgraded by migration 10', () => {
    const migrations = testStoreKind === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
    expect(migrations.filter((m) => m.version > PREVIOUS).map((m) => m.version)[0]).toBe(10);
  });

  it('replays a key the release before saved as it was, without the change number it never had', async () => {
    await previousKeyedCreate('saved-before');
    const read = await request(server, `/plants/${KEYED_ID}`, { headers: bearer(server.tokens.all) });
    expect(read.json).toEqual(body);
    const replay = await keyed('saved-before', body);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.etag).toBe(read.headers.etag);
    expect(replay.headers['x-change-seq']).toBeUndefined();
    expect(replay.json).toEqual({ name: body.name });
  });

  it("replays this release's keys with the change number of their create", async () => {
    const first = await keyed('saved-now', { name: 'Saved now' });
    expect(first.status).toBe(201);
    expect(first.headers['x-change-seq']).toMatch(/^[1-9][0-9]*$/);
    const replay = await keyed('saved-now', { name: 'Saved now' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['x-change-seq']).toBe(first.headers['x-change-seq']);
  });

  it('replaces and creates by PUT on the upgraded store', async () => {
    const put = (name: string) =>
      request(server, `/plants/${KEYED_ID}`, {
        method: 'PUT',
        headers: jsonHeaders(server.tokens.all),
        body: JSON.stringify({ name }),
      });
    expect((await put('Replaced')).status).toBe(200);
    expect(
      (
        await request(server, '/plants/6999', {
          method: 'PUT',
          headers: jsonHeaders(server.tokens.all),
          body: '{"name":"New"}',
        })
      ).status,
    ).toBe(201);
  });
});
