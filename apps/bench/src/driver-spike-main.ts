import { performance } from 'node:perf_hooks';
import pg from 'pg';
import postgres from 'postgres';

/**
 * `pnpm --filter @plant-store/bench driver-spike [seconds]`: the two PostgreSQL drivers side by
 * side, with nothing of the server around them — the same statements, the same pool of 10, 50
 * concurrent callers, in one process, one after the other, twice in alternating order:
 *
 * - porsager `postgres` as the store uses it (pipelined, statements prepared by the driver), and
 *   with `prepare: false` (what a transaction-mode pooler needs);
 * - node-postgres `pg` with a named prepared statement per query, and unnamed (what a pooler needs).
 *
 * The statements: a plant by id, and a page of 100 plants by id. The table (`driver_spike_plants`,
 * 10,000 rows) is made in PG_TEST_URL's database (default postgres://postgres@127.0.0.1:5432/test)
 * and dropped at the end. What it shows: how much of the server's PostgreSQL read throughput the
 * driver itself sets, and what a pooler's "no prepared statements" costs each driver.
 */

const url = process.env['PG_TEST_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const seconds = Number(process.argv[2] ?? 3);
const CONCURRENCY = 50;
const POOL = 10;
const TABLE = 'driver_spike_plants';
const ROWS = 10_000;

interface Driver {
  readonly name: string;
  get(id: number): Promise<unknown>;
  page(after: number): Promise<unknown>;
  close(): Promise<void>;
}

const porsager = (prepare: boolean): Driver => {
  const sql = postgres(url, { max: POOL, prepare, fetch_types: false, onnotice: () => undefined });
  return {
    name: `postgres (porsager), ${prepare ? 'prepared' : 'prepare: false'}`,
    get: (id) => sql`SELECT id, name, tag FROM driver_spike_plants WHERE id = ${id}`,
    page: (after) => sql`SELECT id, name, tag FROM driver_spike_plants WHERE id > ${after} ORDER BY id LIMIT 100`,
    close: () => sql.end({ timeout: 5 }),
  };
};

const nodePostgres = (named: boolean): Driver => {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  pool.on('error', () => undefined);
  return {
    name: `pg (node-postgres), ${named ? 'named prepared statements' : 'unnamed statements'}`,
    get: (id) =>
      pool.query({
        ...(named ? { name: 'spike_get' } : {}),
        text: 'SELECT id, name, tag FROM driver_spike_plants WHERE id = $1',
        values: [id],
      }),
    page: (after) =>
      pool.query({
        ...(named ? { name: 'spike_page' } : {}),
        text: 'SELECT id, name, tag FROM driver_spike_plants WHERE id > $1 ORDER BY id LIMIT 100',
        values: [after],
      }),
    close: () => pool.end(),
  };
};

/** Calls per second of `call` from CONCURRENCY callers for `seconds`. */
const measure = async (call: (n: number) => Promise<unknown>): Promise<number> => {
  // Warm-up: every connection open and every statement prepared.
  await Promise.all(Array.from({ length: CONCURRENCY * 4 }, (_, i) => call(i)));
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, caller) => {
      let n = caller;
      while (performance.now() < until) {
        await call(n);
        n += CONCURRENCY;
        done++;
      }
    }),
  );
  return done / seconds;
};

const main = async (): Promise<void> => {
  const admin = postgres(url, { max: 1, onnotice: () => undefined });
  await admin`DROP TABLE IF EXISTS ${admin(TABLE)}`;
  await admin`CREATE TABLE ${admin(TABLE)} (id int8 PRIMARY KEY, name text NOT NULL, tag text)`;
  await admin`INSERT INTO ${admin(TABLE)} SELECT g, 'plant ' || g, CASE WHEN g % 3 = 0 THEN NULL ELSE 'tag' || (g % 10) END FROM generate_series(1, ${ROWS}) g`;
  await admin`ANALYZE ${admin(TABLE)}`;
  const makers = [() => porsager(true), () => nodePostgres(true), () => porsager(false), () => nodePostgres(false)];
  const results = new Map<string, { get: number[]; page: number[] }>();
  try {
    // Twice, the second time in the reverse order, so neither driver always runs on a warmer machine.
    for (const order of [makers, [...makers].reverse()]) {
      for (const make of order) {
        const driver = make();
        const entry = results.get(driver.name) ?? { get: [], page: [] };
        entry.get.push(await measure((n) => driver.get((n % ROWS) + 1)));
        entry.page.push(await measure((n) => driver.page(n % (ROWS - 100))));
        results.set(driver.name, entry);
        await driver.close();
      }
    }
  } finally {
    await admin`DROP TABLE IF EXISTS ${admin(TABLE)}`;
    await admin.end({ timeout: 5 });
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const base = results.get('postgres (porsager), prepared') as { get: number[]; page: number[] };
  const lines = [
    `driver spike: ${CONCURRENCY} callers, pool of ${POOL}, ${seconds} s per measure, mean of 2 (Node ${process.version})`,
    '| driver | get by id /s | × | page of 100 /s | × |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const [name, r] of results) {
    lines.push(
      `| ${name} | ${Math.round(mean(r.get))} | ${(mean(r.get) / mean(base.get)).toFixed(2)} | ${Math.round(mean(r.page))} | ${(mean(r.page) / mean(base.page)).toFixed(2)} |`,
    );
  }
  console.log(lines.join('\n'));
};

await main();
process.exit(0);
