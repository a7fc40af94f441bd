import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCeilingServer, type CeilingServer } from '../src/ceiling-server.js';
import { runScenario } from '../src/run-scenario.js';
import type { DriverSpec, LoadGenerator } from '../src/scenarios.js';
import { seedPlants, smokeCheck } from '../src/seed.js';
import type { RunningServer } from '../src/servers.js';
import { wrkAvailable } from '../src/wrk.js';

// The driver runs as its own process from the build (turbo builds before testing).
const driver = fileURLToPath(new URL('../dist/driver.js', import.meta.url));
const TOKEN = 'driver-test-token-0123456789';
const unpinned = { server: undefined, driver: undefined };

let ceiling: CeilingServer;
let server: RunningServer;

beforeAll(async () => {
  if (!existsSync(driver)) throw new Error(`${driver} is missing: run \`pnpm build\` in apps/bench first`);
  ceiling = createCeilingServer(TOKEN);
  await new Promise<void>((resolve) => ceiling.server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(ceiling.server.address() as AddressInfo).port}`;
  server = { url, token: TOKEN, pid: process.pid, output: () => '', alive: () => true, stop: async () => undefined };
  await seedPlants(url, TOKEN, 1, 200);
  await smokeCheck(url, TOKEN, 1, 200);
});

afterAll(async () => {
  ceiling.server.closeAllConnections();
  await new Promise<void>((resolve) => ceiling.server.close(() => resolve()));
});

const store = { name: 'ceiling', label: 'ceiling' } as const;
let nextFirstId = 10_000;

// wrk is optional (the bench uses it where installed); autocannon always runs. Without wrk its
// runs are skipped with a line saying so, except with CI=true, where they run and fail.
const inCi = process.env['CI'] === 'true';
const hasWrk = wrkAvailable();
if (!hasWrk && !inCi)
  console.log('wrk driver tests skipped: wrk is not installed (apt-get install wrk; CI=true fails instead)');

describe.each([
  ['autocannon', true],
  ['wrk', hasWrk || inCi],
] as const)('runScenario with %s', (generator: LoadGenerator, available: boolean) => {
  const spec = (over: Partial<DriverSpec>): DriverSpec => {
    const firstId = nextFirstId;
    nextFirstId += 10_000_000;
    return {
      generator,
      kind: 'create',
      url: server.url,
      token: TOKEN,
      connections: 2,
      warmupSeconds: 1,
      seconds: 1,
      firstId,
      seedFrom: 1,
      seedTo: 200,
      tagPage: null,
      paths: null,
      idempotencyKeys: 'none',
      ...over,
    };
  };

  it.skipIf(!available)('creates plants with fresh ids and counts only expected statuses', async () => {
    const before = ceiling.size();
    const s = spec({ kind: 'create' });
    const { row, nextId } = await runScenario(server, store, s, unpinned, driver);
    const created = row.statusCounts['201'] ?? 0;
    expect(row.errors).toBe(0);
    expect(Object.keys(row.statusCounts)).toEqual(['201']);
    expect(row.responses).toBeGreaterThan(0);
    expect(row.responses).toBeLessThanOrEqual(created);
    // Every 201 added one plant (no id was sent twice); creates in flight when a run stopped (at
    // most one per connection per run) were stored without their answer being counted.
    expect(ceiling.size() - before).toBeGreaterThanOrEqual(created);
    expect(ceiling.size() - before).toBeLessThanOrEqual(created + 2 * s.connections);
    expect(nextId).toBeGreaterThanOrEqual(s.firstId + created);
    expect(row.latency.p99).toBeGreaterThan(0);
    expect(row.latency.p50).toBeLessThanOrEqual(row.latency.p99);
    expect(row.rssPeak).toBeGreaterThan(0);
  });

  it.skipIf(!available)('alternates create and delete without a 404', async () => {
    const before = ceiling.size();
    const { row } = await runScenario(server, store, spec({ kind: 'create-delete' }), unpinned, driver);
    expect(row.errors).toBe(0);
    expect(row.statusCounts['201']).toBeGreaterThan(0);
    expect(row.statusCounts['204']).toBeGreaterThan(0);
    // Only creates whose delete had not gone out when a run stopped remain.
    expect(ceiling.size() - before).toBeLessThanOrEqual(2 * 2 * 2);
  });

  it.skipIf(!available)('reads seeded plants and list pages', async () => {
    for (const kind of ['get', 'list'] as const) {
      const { row } = await runScenario(server, store, spec({ kind }), unpinned, driver);
      expect(row).toMatchObject({ errors: 0, unexpected: 0, statusCounts: { '200': expect.any(Number) } });
    }
  });

  it.skipIf(!available)('patches seeded plants, each to a name no request used before', async () => {
    const s = spec({ kind: 'patch' });
    const { row, nextId } = await runScenario(server, store, s, unpinned, driver);
    expect(row).toMatchObject({ errors: 0, unexpected: 0 });
    expect(Object.keys(row.statusCounts)).toEqual(['200']);
    const patched = row.statusCounts['200'] ?? 0;
    // Names count up from the first id, one per request: every PATCH changed its plant.
    expect(nextId).toBeGreaterThanOrEqual(s.firstId + patched);
    const res = await fetch(`${server.url}/plants?limit=200`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const names = ((await res.json()) as { name: string }[])
      .map((p) => p.name)
      .filter((n) => n.startsWith('bench patch '));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(Number(name.slice('bench patch '.length))).toBeGreaterThanOrEqual(10_000);
  });

  it.skipIf(!available)('runs the 1-connection get and create+delete like their 50-connection scenarios', async () => {
    const before = ceiling.size();
    const { row: getRow } = await runScenario(server, store, spec({ kind: 'get-1', connections: 1 }), unpinned, driver);
    expect(getRow).toMatchObject({
      connections: 1,
      errors: 0,
      unexpected: 0,
      statusCounts: { '200': expect.any(Number) },
    });
    const { row } = await runScenario(
      server,
      store,
      spec({ kind: 'create-delete-1', connections: 1 }),
      unpinned,
      driver,
    );
    expect(row).toMatchObject({ connections: 1, errors: 0, unexpected: 0 });
    expect(row.statusCounts['201']).toBeGreaterThan(0);
    expect(row.statusCounts['204']).toBeGreaterThan(0);
    expect(ceiling.size() - before).toBeLessThanOrEqual(2);
  });

  it.skipIf(!available)('pages through one tag from cursors across the range', async () => {
    const { row } = await runScenario(
      server,
      store,
      spec({ kind: 'list-tag', tagPage: { tag: 'seed', lastCursor: 100 } }),
      unpinned,
      driver,
    );
    expect(row).toMatchObject({ errors: 0, unexpected: 0, statusCounts: { '200': expect.any(Number) } });
  });

  it.skipIf(!available)('draws every page request from the pool file, counted or not', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bench-paths-')), 'pool.paths');
    writeFileSync(file, '/plants?limit=10\n/plants?limit=5&after=3\n');
    for (const kind of ['list-q', 'count'] as const) {
      const connections = kind === 'count' ? 1 : 2;
      const { row } = await runScenario(server, store, spec({ kind, connections, paths: file }), unpinned, driver);
      expect(row).toMatchObject({ connections, errors: 0, unexpected: 0 });
      expect(Object.keys(row.statusCounts)).toEqual(['200']);
    }
    rmSync(dirname(file), { recursive: true, force: true });
  });

  it.skipIf(!available)('counts every unexpected status as an error', async () => {
    const { row } = await runScenario(
      server,
      store,
      spec({ kind: 'get', token: 'a-token-the-server-does-not-know' }),
      unpinned,
      driver,
    );
    expect(row.statusCounts['401']).toBeGreaterThan(0);
    expect(row.unexpected).toBe(row.statusCounts['401']);
    expect(row.errors).toBeGreaterThanOrEqual(row.unexpected);
  });
});
