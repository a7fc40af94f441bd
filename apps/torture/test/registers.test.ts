import { join } from 'node:path';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from './support/http.js';
import { checkHistory, describeHistory, formatVerdict } from './support/linearizability.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { RegisterLoad } from './support/register-load.js';
import { createToken } from './support/token.js';

/**
 * Plants as registers, no faults: clients create, read, patch and delete a few plant ids at once
 * (conditional writes with fresh and stale ETags, keyed creates, list pages) through every server
 * instance of one store, and the recorded history must be linearizable: one order of all the
 * operations, each at a moment within its request, that a single plant would have answered
 * exactly so. Two instances over one PostgreSQL schema; one instance on SQLite (a SQLite store
 * has one writer process). Every answer must be one the contract allows, and none may be missing.
 */

const raw = process.env['TORTURE_REGISTER_SECONDS'];
/** TORTURE_REGISTER_SECONDS: seconds of load per store (default 3). */
const SECONDS = raw === undefined || raw === '' ? 3 : Number(raw);
if (!Number.isFinite(SECONDS) || SECONDS <= 0)
  throw new Error(`TORTURE_REGISTER_SECONDS expects a positive number, got ${JSON.stringify(raw)}`);
const CLIENTS = 12;
const KEYS = 8;
const MIN_REQUESTS = 500;
const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);

/** Runs the load on `servers` and checks it; returns the summary line. */
const round = async (label: string, servers: readonly ServerProcess[], token: string): Promise<string> => {
  let elapsedMs = 0;
  const load = new RegisterLoad({
    targets: servers.map((s) => s.port),
    token,
    clients: CLIENTS,
    keys: KEYS,
    seed,
  });
  try {
    // on a slow store a few seconds make a thin history: go on (up to 3 × as long) until it has some substance
    const started = performance.now();
    await load.run({ durationMs: SECONDS * 1_000 });
    while (load.tally.requests < MIN_REQUESTS && performance.now() - started < 3 * SECONDS * 1_000)
      await load.run({ durationMs: 1_000 });
    elapsedMs = performance.now() - started;
    await load.settle();
  } finally {
    load.close();
  }
  expect(load.violations.slice(0, 20), `${label} (seed ${seed}): answers outside the contract`).toEqual([]);
  const missing = load.samples.filter((s) => s.status === 'none' || s.status === 503);
  expect(
    missing.slice(0, 10),
    `${label} (seed ${seed}): requests without a definite answer, with nothing failing`,
  ).toEqual([]);

  const figures = describeHistory(load.history);
  const verdict = checkHistory(load.history, { maxMs: 60_000 });
  const explanation =
    verdict.ok === false
      ? `\n${verdict.explanation}\n${verdict.operations.join('\n')}`
      : verdict.ok === 'unknown'
        ? ` (${verdict.reason})`
        : '';
  expect(verdict.ok, `${label} (seed ${seed}): ${formatVerdict(figures, verdict)}${explanation}`).toBe(true);
  // the round exercised every kind of answer, and contended: some writes lost a race
  const statuses = load.tally.byStatus;
  for (const status of [200, 201, 204, 404])
    expect(statuses.get(status) ?? 0, `${label}: answers ${status}`).toBeGreaterThan(0);
  expect((statuses.get(409) ?? 0) + (statuses.get(412) ?? 0), `${label}: answers 409 or 412`).toBeGreaterThan(0);

  const ms = load.samples.map((s) => s.ms);
  const byStatus = [...statuses]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  return (
    `registers ${label}: ${load.tally.requests} requests from ${CLIENTS} clients on ${KEYS} ids over ${(elapsedMs / 1000).toFixed(1)} s ` +
    `(${byStatus}; ${load.tally.replayed} replays left out; p99 ${percentile(ms, 99).toFixed(1)} ms); ` +
    `${formatVerdict(figures, verdict)} (seed ${seed})`
  );
};

describePostgres('plants as registers: two instances over one PostgreSQL schema', () => {
  let database: FreshPostgres;
  let servers: ServerProcess[] = [];
  let token = '';

  beforeAll(async () => {
    database = await freshPostgresUrl();
    token = await createToken(database.url, 'registers');
    servers = await Promise.all([
      startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }),
      startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  it('every answer is one the contract allows, and the history is linearizable', async () => {
    console.log(await round('postgres, 2 instances', servers, token));
  });
});

describe('plants as registers: one instance on SQLite', () => {
  let dir: { path: string; remove(): Promise<void> } | undefined;
  let server: ServerProcess | undefined;
  let token = '';

  beforeAll(async () => {
    dir = await tempDir('registers');
    const url = `sqlite:${join(dir.path, 'plant-store.db')}`;
    token = await createToken(url, 'registers');
    server = await startServer({ DATABASE_URL: url, LOG_LEVEL: 'warn' });
  });

  afterAll(async () => {
    await server?.stop();
    await dir?.remove();
  });

  it('every answer is one the contract allows, and the history is linearizable', async () => {
    console.log(await round('sqlite, 1 instance', [server as ServerProcess], token));
  });
});
