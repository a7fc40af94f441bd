import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePostgres, freshPostgresUrl } from '@plant-store/testkit';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { openPostgresData } from '../../src/adapters/postgres/data.js';
import { openSqliteData } from '../../src/adapters/sqlite/data.js';
import { migrate } from '../../src/data/migrate.js';
import { PLANT_COLUMNS, PLANT_FIELDS } from '../../src/adapters/plant-columns.js';
import { progressOn } from '../../src/data/progress.js';
import {
  DATA_TABLES,
  TargetNotEmpty,
  type DataReader,
  type DataRows,
  type DataStore,
  type IdState,
  type PlantColumns,
} from '../../src/ports/store-data.js';
import { seedFrom } from '../support/seed.js';

/*
 * The same random content — every table, with names full of backslashes, tabs, quotes and
 * characters from every plane — written into SQLite, moved to PostgreSQL and back to SQLite:
 * each store reads back exactly what was written (the model), and the id state with it.
 * DATA_STORES_RUNS sets the number of runs, DATA_STORES_SEED the seed (`random` for a new one);
 * fast-check prints the seed of a failure.
 */

const RUNS = Number(process.env['DATA_STORES_RUNS'] ?? 8);
const SEED = seedFrom('DATA_STORES_SEED', 20261126);
const NOW = Date.now();
const silent = progressOn({ isTTY: false } as NodeJS.WriteStream);

// Text PostgreSQL can hold (no NUL), whole code points; the COPY escapes are the point.
const text = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('\\', '\t', '\n', '\r', '"', "'", ' ', 'N'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    minLength: 1,
    maxLength: 12,
  })
  .filter((s) => !s.includes('\u0000'));
const ms = fc.integer({ min: 0, max: 2 ** 41 });
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
/**
 * A plant's columns, one per member of Plant but the id (plant-columns.ts): derived from the
 * declaration, so a member added to the codec travels through every table of this test.
 */
const plantColumns = fc.record(
  Object.fromEntries(
    PLANT_COLUMNS.map(({ field, kind, required }) => {
      const value: fc.Arbitrary<string | number> = kind === 'text' ? text : fc.integer({ min: -1000, max: 1000 });
      return [field, required ? value : optional(value)];
    }),
  ),
) as fc.Arbitrary<PlantColumns>;
const words = fc.uniqueArray(fc.constantFrom('plant.created', 'plant.updated', 'plant.deleted'));

interface Content {
  readonly rows: { -readonly [T in keyof DataRows]: DataRows[T][] };
  readonly ids: IdState;
}

const content: fc.Arbitrary<Content> = fc
  .record({
    plants: fc.uniqueArray(
      fc
        .record({
          id: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constant(Number.MAX_SAFE_INTEGER)),
          columns: plantColumns,
          version: fc.integer({ min: 0, max: 1_000_000 }),
        })
        .map(({ columns, ...plant }) => ({ ...plant, ...columns })),
      { selector: (p) => p.id, maxLength: 25 },
    ),
    tokens: fc
      .uniqueArray(
        fc.record({
          id: text,
          name: text,
          scopes: fc.uniqueArray(fc.constantFrom('plants:read', 'plants:write')),
          hash: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
          createdAt: ms,
          expiresAt: optional(ms),
          revokedAt: optional(ms),
        }),
        { selector: (t) => t.id, maxLength: 4 },
      )
      .filter(
        (ts) => new Set(ts.map((t) => t.name)).size === ts.length && new Set(ts.map((t) => t.hash)).size === ts.length,
      ),
    keys: fc.uniqueArray(
      fc.record({
        owner: text,
        key: text,
        request: text,
        status: fc.constantFrom(201, 409),
        plantId: fc.integer({ min: 1, max: 10_000 }),
        expiresAt: fc.integer({ min: NOW + 60_000, max: NOW + 10 ** 9 }),
        version: fc.integer({ min: 0, max: 1_000_000 }),
        changeSeq: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: null }),
      }),
      { selector: (k) => `${k.owner}\u0000${k.key}`, maxLength: 4 },
    ),
    endpoints: fc.uniqueArray(
      fc.record({
        id: text,
        url: text,
        events: optional(words),
        secret: text,
        previousSecret: optional(text),
        rotatedAt: optional(ms),
        enabled: fc.boolean(),
        disabledReason: optional(text),
        createdAt: ms,
      }),
      { selector: (e) => e.id, minLength: 1, maxLength: 3 },
    ),
    deliveries: fc.array(
      fc.record({
        eventId: text,
        eventType: fc.constantFrom('plant.created', 'plant.updated', 'plant.deleted'),
        body: text,
        endpoint: fc.nat(),
        status: fc.constantFrom('pending', 'delivered', 'failed'),
        attempts: fc.nat({ max: 20 }),
        totalAttempts: fc.nat({ max: 20 }),
        nextAttemptAt: ms,
        heldBy: optional(text),
        lastStatus: optional(fc.integer({ min: 100, max: 599 })),
        lastError: optional(text),
        createdAt: ms,
        endedAt: optional(ms),
        traceParent: optional(
          fc
            .tuple(fc.bigInt({ min: 1n, max: 2n ** 128n - 1n }), fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }))
            .map(
              ([trace, span]) => `00-${trace.toString(16).padStart(32, '0')}-${span.toString(16).padStart(16, '0')}-01`,
            ),
        ),
        traceState: optional(text),
        tries: fc.array(
          fc.record({
            startedAt: ms,
            durationMs: fc.nat({ max: 60_000 }),
            status: optional(fc.nat({ max: 599 })),
            error: optional(text),
          }),
          { maxLength: 3 },
        ),
      }),
      { maxLength: 5 },
    ),
    gapCursor: fc.nat({ max: 1000 }),
    extraIds: fc.nat({ max: 1000 }),
    changes: fc.array(
      fc.record({
        gap: fc.integer({ min: 1, max: 3 }),
        type: fc.constantFrom('plant.created', 'plant.updated', 'plant.deleted'),
        plantId: fc.integer({ min: 1, max: 10_000 }),
        columns: plantColumns,
        leftTag: optional(text),
        version: fc.integer({ min: 0, max: 1_000_000 }),
        at: ms,
      }),
      { maxLength: 10 },
    ),
    forgotten: fc.nat({ max: 5 }),
    untagged: fc.nat({ max: 8 }),
  })
  .map((c) => {
    const deliveries = c.deliveries.map((d, i) => {
      const { endpoint, tries: _tries, ...rest } = d;
      return { ...rest, id: i + 1, endpointId: (c.endpoints[endpoint % c.endpoints.length] as { id: string }).id };
    });
    const attempts = c.deliveries.flatMap((d, i) => d.tries.map((a, n) => ({ deliveryId: i + 1, n: n + 1, ...a })));
    const highWater = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, ...c.plants.map((p) => p.id)) + c.extraIds);
    const revision = Math.max(0, ...c.plants.map((p) => p.version)) + c.extraIds;
    // Numbers with gaps (some forgotten, some rolled back); a delete has no name, tag or version.
    let seq = c.forgotten;
    const changes = c.changes.map(({ gap, columns, ...change }) => {
      seq += gap;
      return change.type === 'plant.deleted'
        ? { ...change, ...Object.fromEntries(PLANT_FIELDS.map((f) => [f, null])), seq, version: null }
        : { ...change, ...columns, seq };
    }) as DataRows['plant_changes'][];
    return {
      rows: {
        plants: c.plants,
        tokens: c.tokens,
        idempotency_keys: c.keys,
        webhook_endpoints: c.endpoints,
        webhook_deliveries: deliveries,
        webhook_attempts: attempts,
        plant_changes: changes,
      },
      ids: {
        highWater,
        gapCursor: c.gapCursor,
        revision,
        changeSeq: seq + c.extraIds,
        changesForgottenThrough: c.forgotten,
        changesUntaggedThrough: c.untagged,
      },
    };
  });

/** Everything `read` holds, each table in the model's order (by key). */
const readAll = async (read: DataReader): Promise<Content> => {
  const rows = {} as Content['rows'];
  for (const table of DATA_TABLES) {
    const all: unknown[] = [];
    for await (const chunk of read.rows(table, NOW)) all.push(...chunk);
    (rows as Record<string, unknown[]>)[table] = all;
  }
  return { rows, ids: await read.ids() };
};

/**
 * The model in the order a store returns it, for the tables keyed by numbers. Text keys come back
 * in the store's own order (SQLite: UTF-8 bytes; PostgreSQL: the database's collation), so those
 * tables are compared after one more sort of both sides (comparable).
 */
const sorted = (c: Content): Content => {
  const byNumber =
    <T>(key: (row: T) => number) =>
    (rows: readonly T[]) =>
      [...rows].sort((a, b) => key(a) - key(b));
  return {
    ...c,
    rows: {
      ...c.rows,
      plants: byNumber((p: DataRows['plants']) => p.id)(c.rows.plants),
      webhook_deliveries: byNumber((d: DataRows['webhook_deliveries']) => d.id)(c.rows.webhook_deliveries),
      webhook_attempts: [...c.rows.webhook_attempts].sort((a, b) => a.deliveryId - b.deliveryId || a.n - b.n),
    },
  };
};

/** Text-keyed tables compared as sets: their order is the store's collation. */
const comparable = (c: Content) => ({
  ...c,
  rows: {
    ...c.rows,
    tokens: [...c.rows.tokens].sort((a, b) => (a.id < b.id ? -1 : 1)),
    idempotency_keys: [...c.rows.idempotency_keys].sort((a, b) =>
      a.owner === b.owner ? (a.key < b.key ? -1 : 1) : a.owner < b.owner ? -1 : 1,
    ),
    webhook_endpoints: [...c.rows.webhook_endpoints].sort((a, b) => (a.id < b.id ? -1 : 1)),
  },
});

describePostgres('the same random content through SQLite and PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-data-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  it('SQLite → PostgreSQL → SQLite keeps every row and the id state, and refuses a second fill', async () => {
    await fc.assert(
      fc.asyncProperty(content, async (model) => {
        n += 1;
        const pg = await freshPostgresUrl();
        const stores: DataStore[] = [];
        try {
          const first = openSqliteData({ file: join(dir, `first-${n}.db`), create: true });
          stores.push(first);
          await first.fill(async (write) => {
            for (const table of DATA_TABLES) await write.insert(table, model.rows[table] as never);
            await write.setIds(model.ids);
          });
          const expected = comparable(sorted(model));
          expect(comparable(await first.snapshot(readAll))).toEqual(expected);

          const middle = await openPostgresData({ url: pg.url });
          stores.push(middle);
          await migrate(first, middle, silent);
          expect(comparable(await middle.snapshot(readAll))).toEqual(expected);
          await expect(migrate(first, middle, silent)).rejects.toBeInstanceOf(TargetNotEmpty);

          const last = openSqliteData({ file: join(dir, `last-${n}.db`), create: true });
          stores.push(last);
          await migrate(middle, last, silent);
          expect(comparable(await last.snapshot(readAll))).toEqual(expected);
        } finally {
          for (const store of stores) await store.close();
          await pg.drop();
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 120_000);
});
