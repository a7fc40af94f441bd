import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knobs } from './support/knobs.js';
import { Ledger, seeded } from './support/ledger.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { readSqlite } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * Shutdown under load: steady concurrent creates, then SIGTERM. Every response that arrives is
 * complete and well-formed (a 201 has its Location and its exact body; a 503 while shutting down
 * has the contract's body; no truncated body), every acknowledged create is in the store
 * afterwards, and the process exits 0 within the drain bound (SHUTDOWN_TIMEOUT_MS). Requests that
 * get no answer (the listener is closed, a keep-alive socket was closed under them) are counted as
 * "unknown": either outcome is allowed, and the store is checked for that too.
 */

const SHUTDOWN_TIMEOUT_MS = 5_000;
/** Exit may follow the drain by a log flush and the store's close. */
const EXIT_SLACK_MS = 3_000;
const CONCURRENCY = 64;
/** Bounds the load in count as well as in time. */
const MAX_REQUESTS = 500_000;

describe('SIGTERM during steady load', () => {
  let dir: { path: string; remove(): Promise<void> };
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dir = await tempDir('shutdown');
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await dir?.remove();
  });

  it('drains: complete responses only, every acknowledged create kept, exit 0 within the bound', async () => {
    const file = join(dir.path, 'plant-store.db');
    const databaseUrl = `sqlite:${file}`;
    const token = await createToken(databaseUrl, 'shutdown');
    const live = await startServer({
      DATABASE_URL: databaseUrl,
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      LOG_LEVEL: 'warn',
    });
    server = live;
    const ledger = new Ledger(1, { deleteShare: 0, allowUnavailable: true });
    const rand = seeded(Date.now() % 2 ** 31);
    // half the workers keep their connection alive, half open a new one per request
    const setup = new http.Agent({ keepAlive: false });
    await ledger.fence(setup, live.port, token, 1_000_000_000); // chosen ids below, server-assigned above
    setup.destroy();
    const agents = [
      new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY / 2 }),
      new http.Agent({ keepAlive: false }),
    ];

    let stop = false;
    const hardStop = Date.now() + knobs.seconds * 1_000 + SHUTDOWN_TIMEOUT_MS + 10_000;
    const worker = async (i: number): Promise<void> => {
      while (!stop && Date.now() < hardStop && ledger.tally.requests < MAX_REQUESTS) {
        await ledger.step(agents[i % 2] as http.Agent, live.port, token, `w${i}`, rand);
        if (ledger.tally.unknown > 0 && !live.alive()) break;
      }
    };
    const load = Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => worker(i)));

    await new Promise((resolve) => setTimeout(resolve, knobs.seconds * 1_000));
    const before = ledger.tally.creates;
    const signalled = Date.now();
    live.child.kill('SIGTERM');
    const { code, signal } = await live.exited;
    const exitMs = Date.now() - signalled;
    stop = true;
    await load;
    for (const agent of agents) agent.destroy();

    expect(signal, live.output()).toBeNull();
    expect(code, live.output()).toBe(0);
    expect(exitMs).toBeLessThanOrEqual(SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS);
    expect(ledger.violations.slice(0, 20), `${ledger.violations.length} malformed or unexpected responses`).toEqual([]);

    const snapshot = readSqlite(file);
    expect(snapshot.integrity).toBe('ok');
    expect(ledger.reconcile(snapshot.plants)).toEqual([]);
    expect(ledger.tally.lost).toBe(0);
    expect(before).toBeGreaterThan(100); // the load was real
    expect(ledger.tally.conflicts).toBe(0);

    console.log(
      `shutdown-under-load: ${ledger.tally.requests} requests from ${CONCURRENCY} clients over ${knobs.seconds} s, ` +
        `${ledger.tally.creates} acknowledged creates (${ledger.tally.creates - before} after SIGTERM), ${ledger.tally.refused} refused with 503, ` +
        `${ledger.tally.conflicts} conflicts, ` +
        `${ledger.tally.unknown} unknown, 0 truncated, exit ${code} after ${exitMs} ms (bound ${SHUTDOWN_TIMEOUT_MS} ms), lost ${ledger.tally.lost}`,
    );
  });
});
