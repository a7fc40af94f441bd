import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { skipOrFail } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from './support/ledger.js';
import { checkHistory, describeHistory, formatVerdict } from './support/linearizability.js';
import { OutageLoad } from './support/outage-load.js';
import { startPooler, type Pooler, type PoolerRestart } from '@plant-store/testkit';
import { pollReady } from './support/ready-poller.js';
import { startServer, type ServerProcess } from './support/processes.js';
import { BESIDE_LEDGER, isBesideLedger, RegisterLoad } from './support/register-load.js';
import { listAll, readPostgres } from './support/store.js';
import { throwawayCluster, type OutagePostgres } from './support/throwaway-postgres.js';
import { createToken } from './support/token.js';

/**
 * Through a pooler (CONTRACT part 5): Debian's PgBouncer in transaction mode, started by the test
 * in front of a throwaway PostgreSQL (@plant-store/testkit's pgbouncer.ts), two server instances whose
 * DATABASE_URL names the pooler, under the ledger load (16 clients) and the contended register
 * load (6 clients on 8 ids). PgBouncer's pool (`default_pool_size`, 3) is smaller than the 10
 * connections the instances open, so clients queue in PgBouncer for a backend, and one queued
 * longer than the acquire timeout is cut (`query_wait_timeout`). First steady load,
 * then the pooler restarted under it (1 s down, then started again): stopped with SIGTERM (its
 * immediate shutdown), then with SIGINT (its safe shutdown, as Debian's systemd unit stops it).
 * Each: every answer a 2xx, an expected 4xx or the JSON 503 with `Retry-After`, within
 * PG_ACQUIRE_TIMEOUT_MS + 1 s, never a 500 (before, a session's prepared statements handed to another client made creates come back
 * 400 and 401); nothing acknowledged lost; both histories linearizable. The restart besides: a
 * create acknowledged within 2 s of the pooler being back, no 503 answered later than that,
 * `/readyz` of both instances (polled every 50 ms) 503 on every probe made while the pooler was down.
 */

const ACQUIRE_TIMEOUT_MS = 2_000;
const BOUND_MS = ACQUIRE_TIMEOUT_MS + 1_000;
const RECOVERY_MS = 2_000;
const CONCURRENCY = 16;
const STEADY_MS = 3_000;
const DOWN_MS = 1_000;
const AFTER_MS = 1_500;
const BACKOFF_MS = 25;
const INSTANCES = 2;
const INSTANCE_POOL = 4;
/** Backends PgBouncer keeps: fewer than the instances' connections, INSTANCES × (INSTANCE_POOL + the probe's). */
const POOLER_POOL = 3;
/** PgBouncer's `query_wait_timeout`: a client queued for a backend longer than the acquire timeout is cut (08P01). */
const QUERY_WAIT_TIMEOUT_S = ACQUIRE_TIMEOUT_MS / 1000;
const READYZ_EVERY_MS = 50;
const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);

describe('through PgBouncer in transaction mode, under load', () => {
  let pg: OutagePostgres | undefined;
  let pooler: Pooler | undefined;
  let skipped: string | undefined;
  const servers: ServerProcess[] = [];
  let token = '';
  let load: OutageLoad;
  let registers: RegisterLoad;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
  const rand = seeded(seed);

  beforeAll(async () => {
    const cluster = await throwawayCluster();
    if (typeof cluster === 'string') {
      skipped = cluster;
      return;
    }
    pg = cluster;
    const direct = new URL(cluster.url);
    const found = await startPooler(
      { host: direct.hostname, port: Number(direct.port), database: 'postgres' },
      { poolSize: POOLER_POOL, queryWaitTimeoutSeconds: QUERY_WAIT_TIMEOUT_S },
    );
    if (typeof found === 'string') {
      skipped = found;
      return;
    }
    pooler = found;
    token = await createToken(cluster.url, 'torture-pooler');
    const env = {
      DATABASE_URL: pooler.url,
      LOG_LEVEL: 'info',
      PG_POOL_SIZE: String(INSTANCE_POOL),
      PG_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
    };
    for (let i = 0; i < INSTANCES; i++) servers.push(await startServer(env));
    const ports = servers.map((s) => s.port);
    load = new OutageLoad(1, {
      agent,
      get port(): number {
        return ports[Math.floor(rand() * ports.length)] as number;
      },
      token,
      boundMs: BOUND_MS,
      seed,
    });
    await load.fence(1_000_000_000);
    load.nextRound();
    registers = new RegisterLoad({
      targets: ports,
      token,
      clients: 6,
      ...BESIDE_LEDGER,
      sharedStore: true,
      seed,
      requestTimeoutMs: BOUND_MS + 10_000,
    });
  });

  afterAll(async () => {
    registers?.close();
    agent.destroy();
    for (const server of servers) await server.stop('SIGKILL');
    await pooler?.close();
    await pg?.close();
  });

  const round = async (label: string, fault: (() => Promise<PoolerRestart>) | undefined) => {
    const problems: string[] = [];
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const refused = load.tally.unavailable;
        await load.step(label, rand);
        if (load.tally.unavailable > refused) await sleep(BACKOFF_MS);
      }
    };
    const logFrom = servers.map((s) => s.output().length);
    const refusalsFrom = load.refusals.length;
    const workers = Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const samplesFrom = registers.samples.length;
    const stopRegisters = new AbortController();
    const registerRun = registers.run({ signal: stopRegisters.signal });
    const readyProblems: string[] = [];
    const ready = pollReady(
      { ports: servers.map((s) => s.port), boundMs: BOUND_MS, everyMs: READYZ_EVERY_MS },
      readyProblems,
    );
    await sleep(STEADY_MS);
    let writesBackMs: number | undefined;
    let restart: PoolerRestart | undefined;
    if (fault !== undefined) {
      restart = await fault();
      const { backAt } = restart;
      writesBackMs = await load.firstWrite(`${label} probe`, backAt, RECOVERY_MS + 10_000);
      if (writesBackMs === undefined || writesBackMs > RECOVERY_MS)
        problems.push(`first create acknowledged ${writesBackMs ?? '> 12000'} ms after the pooler was back`);
      await sleep(AFTER_MS);
    }
    stop = true;
    stopRegisters.abort();
    await Promise.all([workers, registerRun, ready.stop()]);
    problems.push(...readyProblems);
    // The server's own log line for a request (its time, the store's error code).
    const log = servers.flatMap((server, i) => server.output().slice(logFrom[i]).split('\n'));
    const logLine = (requestId: string | undefined) =>
      log.find((line) => requestId !== undefined && line.includes(`"reqId":"${requestId}"`))?.slice(0, 600) ??
      '(no log line)';
    let readyFigures = '';
    if (restart === undefined) {
      const notReady = ready.samples.filter((x) => x.status !== 200);
      if (notReady.length > 0)
        problems.push(`/readyz answered ${notReady.map((x) => x.status).join(', ')} under steady load`);
    } else {
      const { signalledAt, downAt, backAt } = restart;
      // Sent once the port refused and answered before it accepted again: PgBouncer was down throughout.
      const during = ready.samples.filter((x) => x.sentAt >= downAt && x.sentAt + x.ms <= backAt);
      const readyDuring = during.filter((x) => x.status !== 503);
      if (during.length === 0) problems.push('no /readyz probe made while the pooler was down');
      problems.push(
        ...readyDuring.map(
          (x) => `GET :${x.port}/readyz → ${x.status} +${x.sentAt - downAt} ms into the cut (${backAt - downAt} ms)`,
        ),
      );
      const readyAgain = servers.map((server) =>
        ready.samples.find((x) => x.port === server.port && x.sentAt >= backAt && x.status === 200),
      );
      const readyBackMs = readyAgain.map((x) => (x === undefined ? undefined : x.sentAt + x.ms - backAt));
      if (readyBackMs.some((ms) => ms === undefined || ms > RECOVERY_MS))
        problems.push(
          `/readyz 200 again ${readyBackMs.map((ms) => ms ?? 'never').join(' / ')} ms after the pooler was back`,
        );
      // No failure later than RECOVERY_MS after the pooler accepts connections again.
      const lateLedger = load.refusals
        .slice(refusalsFrom)
        .filter((x) => x.answeredAt > backAt + RECOVERY_MS)
        .map((x) => `${x.what} → 503 ${x.answeredAt - backAt} ms after the pooler was back: ${logLine(x.requestId)}`);
      const lateRegisters = registers.samples
        .slice(samplesFrom)
        .filter((x) => x.status === 503 && performance.timeOrigin + x.invokedAt + x.ms > backAt + RECOVERY_MS)
        .map(
          (x) =>
            `${x.what} → 503 ${Math.round(performance.timeOrigin + x.invokedAt + x.ms - backAt)} ms after the pooler was back: ${logLine(x.requestId)}`,
        );
      problems.push(...lateLedger, ...lateRegisters);
      const lastRefusal = Math.max(
        -Infinity,
        ...load.refusals.slice(refusalsFrom).map((x) => x.answeredAt - backAt),
        ...registers.samples
          .slice(samplesFrom)
          .filter((x) => x.status === 503)
          .map((x) => Math.round(performance.timeOrigin + x.invokedAt + x.ms - backAt)),
      );
      readyFigures =
        `; down ${backAt - downAt} ms (port refusing ${downAt - signalledAt} ms after the signal); ` +
        `/readyz 503 on ${during.length - readyDuring.length} of ${during.length} probes during, 200 again ` +
        `${readyBackMs.map((ms) => ms ?? '—').join(' / ')} ms after; last 503 ` +
        `${Number.isFinite(lastRefusal) ? `${lastRefusal} ms after the pooler was back` : 'none'}`;
    }
    await registers.settle();
    const { names } = await load.retryKeyed();
    const tally = load.nextRound();
    problems.push(...load.violations.splice(0));
    problems.push(
      ...load.late
        .splice(0)
        .map((l) => `${l.what} → ${l.status} after ${l.ms} ms (bound ${BOUND_MS} ms): ${logLine(l.requestId)}`),
    );
    if (tally.errors500 > 0) problems.push(`${tally.errors500} answers 5xx other than 503`);
    problems.push(...registers.violations.splice(0));
    problems.push(
      ...registers.samples
        .slice(samplesFrom)
        .filter((x) => x.ms > BOUND_MS)
        .map(
          (x) => `${x.what} → ${x.status} after ${Math.round(x.ms)} ms (bound ${BOUND_MS} ms): ${logLine(x.requestId)}`,
        ),
    );
    const db = pg as OutagePostgres;
    const readFrom = performance.now();
    const stored = await readPostgres(db.url);
    const readTo = performance.now();
    const listed = await listAll(servers[0]?.url ?? '', token);
    if (listed.size !== stored.size)
      problems.push(`GET /plants shows ${listed.size} plants, the table holds ${stored.size}`);
    const ledgerPlants = new Map([...stored].filter(([id]) => !isBesideLedger(id)));
    const lost = load.reconcile(ledgerPlants);
    problems.push(...lost);
    load.recorder.observe(ledgerPlants, readFrom, readTo);
    const ledgerHistory = load.recorder.history.filter((op) => !isBesideLedger(op.call.id));
    const checked = [ledgerHistory, registers.history].map((history) => {
      const figures = describeHistory(history);
      const verdict = checkHistory(history);
      if (verdict.ok !== true)
        problems.push(
          formatVerdict(figures, verdict),
          ...(verdict.ok === false ? [verdict.explanation, ...verdict.operations] : []),
        );
      return formatVerdict(figures, verdict);
    });
    const byName = new Map<string, number>();
    for (const plant of stored.values()) byName.set(plant.name, (byName.get(plant.name) ?? 0) + 1);
    problems.push(
      ...names.filter((n) => byName.get(n) !== 1).map((n) => `keyed create ${n}: ${byName.get(n) ?? 0} plants`),
    );
    const statuses = [...tally.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    const summary =
      `pooler ${label}: ${tally.requests} requests (${statuses}), ${tally.unavailable} × 503, ${tally.errors500} × 500, ` +
      `slowest ${tally.slowestMs} ms (bound ${BOUND_MS})${writesBackMs === undefined ? '' : `; writes back ${writesBackMs} ms after the pooler`}${readyFigures}; ` +
      `acknowledged ${tally.creates} creates + ${tally.deletes} deletes, ${tally.unknown} unknown settled by the store, lost ${lost.length}; ` +
      `histories so far: ${checked.join('; registers ')} (seed ${seed})`;
    return { summary, problems };
  };

  it('serves every request through the pooler: no 400, 401 or 500 from a session handed to another client', async (ctx) => {
    if (pooler === undefined) return skipOrFail(ctx, 'pooler', skipped ?? 'no harness');
    const { summary, problems } = await round('steady', undefined);
    console.log(summary);
    const said = servers.map((s) => s.output().includes('behind a pooler in transaction mode'));
    expect(said, 'each instance logged that it found a pooler').toEqual([true, true]);
    expect(problems.slice(0, 30), `${problems.length} problems (seed ${seed})`).toEqual([]);
  });

  // SIGTERM: PgBouncer's immediate shutdown; SIGINT: its safe shutdown (PAUSE, then exit), which
  // is how Debian's systemd unit stops it (`systemctl restart pgbouncer`).
  for (const [signal, label] of [
    ['SIGTERM', 'restart'],
    ['SIGINT', 'safe restart'],
  ] as const) {
    it(`a pooler restarted under load (${signal}) costs only 503s, within ${BOUND_MS} ms and until ${RECOVERY_MS} ms after it is back; /readyz 503 while it is down; nothing lost`, async (ctx) => {
      if (pooler === undefined) return skipOrFail(ctx, 'pooler', skipped ?? 'no harness');
      const bouncer = pooler;
      const { summary, problems } = await round(label, () => bouncer.restart(DOWN_MS, signal));
      console.log(summary);
      expect(problems.slice(0, 30), `${problems.length} problems (seed ${seed})`).toEqual([]);
    });
  }
});
