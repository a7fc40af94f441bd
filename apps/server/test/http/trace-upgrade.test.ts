import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres, POSTGRES_MIGRATIONS } from '../../src/adapters/postgres/migrations.js';
import { openPostgresStore } from '../../src/adapters/postgres/open.js';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../src/adapters/sqlite/migrations.js';
import { openSqliteStore } from '../../src/adapters/sqlite/open.js';
import type { ClaimedDelivery } from '../../src/ports/webhook-store.js';
import type { Store } from '../../src/ports/store.js';
import { testStoreKind } from './support.js';

/*
 * A store made by the release before traces (SQLite migrations ≤ 5, PostgreSQL ≤ 6), holding an
 * endpoint and an event still to deliver, opened by this release: the deliveries table gains its
 * trace columns and the pending delivery is claimed as it was, with no trace context. On
 * PostgreSQL, an instance of the release before goes on writing through plant_store_write_v2
 * (which migration 7 replaced in place) after this one migrated: its events are stored as before,
 * without a trace context. The store of the project running the file.
 */

/** The last migration of the release before traces, per store. */
const PREVIOUS = { sqlite: 5, postgres: 6 } as const;
const ENDPOINT = 'we_previousrelease';
const OLD_BODY = '{"type":"plant.created","timestamp":"2026-11-25T10:00:00.000Z","data":{"id":1,"name":"Fern"}}';

/** The previous release's SQLite store: an endpoint and the delivery of one created plant. */
const previousSqlite = (file: string): void => {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    migrateSqlite(
      db,
      SQLITE_MIGRATIONS.filter((m) => m.version <= PREVIOUS.sqlite),
    );
    const now = Date.now();
    db.prepare('INSERT INTO webhook_endpoints (id, url, events, secret, created_at) VALUES (?, ?, NULL, ?, ?)').run(
      ENDPOINT,
      'https://hooks.example/plants',
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      now,
    );
    db.prepare("INSERT INTO plants (id, name, tag, version, name_folded) VALUES (1, 'Fern', NULL, 1, 'fern')").run();
    db.prepare(
      `INSERT INTO webhook_deliveries (event_id, event_type, body, endpoint_id, status, next_attempt_at, created_at)
       VALUES ('msg_previous', 'plant.created', ?, ?, 'pending', ?, ?)`,
    ).run(OLD_BODY, ENDPOINT, now, now);
  } finally {
    db.close();
  }
};

/** A create as the previous release sends it to plant_store_write_v2: no trace members. */
const previousCreate = (sql: postgres.Sql, id: number, name: string) =>
  sql`SELECT * FROM plant_store_write_v2(${sql.json([{ i: 0, op: 'create', id, name, tag: null, name_folded: name.toLowerCase() }] as never)}, ${id}::int8, 0::int8, 3600::int4)`;

/** The previous release's PostgreSQL schema: an endpoint, and one plant created through its write function. */
const previousPostgres = async (url: string): Promise<void> => {
  const sql = postgres(url, { onnotice: () => undefined, max: 1 });
  try {
    await migratePostgres(
      sql,
      undefined,
      POSTGRES_MIGRATIONS.filter((m) => m.version <= PREVIOUS.postgres),
    );
    await sql`INSERT INTO webhook_endpoints (id, url, secret) VALUES (${ENDPOINT}, 'https://hooks.example/plants', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')`;
    await previousCreate(sql, 1, 'Fern');
  } finally {
    await sql.end();
  }
};

const claim = async (store: Store): Promise<readonly ClaimedDelivery[]> => {
  const claimed = await store.webhooks.claimDue('this-release', 10, 30_000)();
  if (E.isLeft(claimed)) throw new Error(`claim failed: ${String(claimed.left.cause)}`);
  return claimed.right;
};

describe(`a ${testStoreKind} store of the release before traces, opened by this one`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-trace-upgrade-'));
  let pg: FreshPostgres | undefined;
  let store: Store;

  beforeAll(async () => {
    if (testStoreKind === 'sqlite') {
      const file = join(dir, 'plants.db');
      previousSqlite(file);
      store = await openSqliteStore({ file });
    } else {
      pg = await freshPostgresUrl();
      await previousPostgres(pg.url);
      store = await openPostgresStore({ url: pg.url, poolSize: 2 });
    }
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is upgraded by a migration of this release', () => {
    const migrations = testStoreKind === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
    expect(migrations.filter((m) => m.version > PREVIOUS[testStoreKind]).map((m) => m.name)).toContain(
      'the trace context of each event, for its deliveries',
    );
  });

  it('delivers the event the previous release left pending, as it was, without a trace context', async () => {
    const [delivery, ...more] = await claim(store);
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({ endpointId: ENDPOINT, attempts: 0 });
    expect(JSON.parse(delivery?.body ?? '')).toMatchObject({ type: 'plant.created', data: { id: 1, name: 'Fern' } });
    expect(delivery).not.toHaveProperty('traceContext');
  });

  if (testStoreKind === 'postgres') {
    it('keeps the events an instance of the previous release writes after the upgrade, without a trace context', async () => {
      const sql = postgres(pg?.url ?? '', { onnotice: () => undefined, max: 1 });
      try {
        const [row] = await previousCreate(sql, 2, 'Ivy');
        expect(row).toMatchObject({ done: true });
        const stored =
          await sql`SELECT trace_parent, trace_state, body FROM webhook_deliveries WHERE body LIKE '%"Ivy"%'`;
        expect(stored).toEqual([
          { trace_parent: null, trace_state: null, body: expect.stringContaining('"data":{"id":2,"name":"Ivy"}') },
        ]);
      } finally {
        await sql.end();
      }
      const [delivery, ...more] = await claim(store);
      expect(more).toEqual([]);
      expect(delivery?.body).toContain('"Ivy"');
      expect(delivery).not.toHaveProperty('traceContext');
    });
  }
});
