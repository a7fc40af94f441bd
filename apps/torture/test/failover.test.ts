import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { skipOrFail } from '@plant-store/testkit';
import { describe, expect, it } from 'vitest';
import { seeded } from './support/ledger.js';
import { checkHistory, describeHistory, formatVerdict } from './support/linearizability.js';
import { OutageLoad } from './support/outage-load.js';
import { BESIDE_LEDGER, isBesideLedger, RegisterLoad } from './support/register-load.js';
import { startServer, type ServerProcess } from './support/processes.js';
import { movingAddress, replicatedPostgres, type ReplicatedPostgres } from './support/replicated-postgres.js';
import { listAll, readPostgres } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * A standby that takes over (CONTRACT part 5). A primary and a synchronous streaming standby made
 * by the test (support/replicated-postgres.ts); one server instance under the ledger load (creates
 * with chosen, assigned and keyed ids, deletes, gets, lists) and the contended register load.
 * Then the primary is killed (`kill -9` of its postmaster) and, a moment later, the standby
 * promoted (`pg_ctl promote`), as an orchestrator would; or, for a planned switchover, the primary
 * stopped cleanly first. The server is told of neither: it finds the new primary by itself, with
 * `DATABASE_URL` naming both hosts (`target_session_attrs=read-write`) or one address that moves
 * (a forwarder switched at promotion).
 *
 * Each round: every answer within PG_ACQUIRE_TIMEOUT_MS + 1 s, a 2xx, an expected 4xx or the JSON
 * 503 with `Retry-After`, never a 500; a create acknowledged within 2 s of the promotion; the new
 * primary holds every acknowledged create and none of the acknowledged deletes; both histories
 * linearizable.
 */

const ACQUIRE_TIMEOUT_MS = 2_000;
const STATEMENT_TIMEOUT_MS = 5_000;
const BOUND_MS = ACQUIRE_TIMEOUT_MS + 1_000;
const RECOVERY_MS = 2_000;
const CONCURRENCY = 12;
const BEFORE_MS = 1_500;
/** How long the primary is gone before the promotion (an orchestrator's detection time, shortened). */
const GAP_MS = 1_000;
const AFTER_MS = 1_500;
const BACKOFF_MS = 25;
const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);

interface Scenario {
  readonly name: string;
  /** How the server is pointed at the pair. */
  readonly address: 'both hosts' | 'one address that moves';
  /** The primary's end: killed, or stopped cleanly (a switchover). */
  readonly end: 'kill -9' | 'clean stop';
}

const scenarios: readonly Scenario[] = [
  { name: 'failover, both hosts in the URL', address: 'both hosts', end: 'kill -9' },
  { name: 'failover, one address that moves', address: 'one address that moves', end: 'kill -9' },
  { name: 'planned switchover, both hosts in the URL', address: 'both hosts', end: 'clean stop' },
];

describe('a standby that takes over, under load', () => {
  for (const scenario of scenarios) {
    it(`${scenario.name}: answers within ${BOUND_MS} ms, writes back within ${RECOVERY_MS} ms of the promotion, nothing lost`, async (ctx) => {
      const pair = await replicatedPostgres();
      if (typeof pair === 'string') return skipOrFail(ctx, 'failover', pair);
      const cleanup: (() => Promise<unknown>)[] = [() => pair.close()];
      try {
        const { summary, problems } = await round(pair, scenario, cleanup);
        console.log(summary);
        expect(problems.slice(0, 30), `${problems.length} problems (seed ${seed}, ${pair.label})`).toEqual([]);
      } finally {
        for (const step of cleanup.reverse()) await step().catch(() => undefined);
      }
    });
  }
});

const round = async (
  pair: ReplicatedPostgres,
  scenario: Scenario,
  cleanup: (() => Promise<unknown>)[],
): Promise<{ summary: string; problems: string[] }> => {
  const problems: string[] = [];
  const rand = seeded(seed);
  const token = await createToken(pair.urlOf('primary'), 'torture-failover');
  let url: string;
  let move = (): void => undefined;
  if (scenario.address === 'both hosts') {
    url = `postgres://postgres@127.0.0.1:${pair.primaryPort},127.0.0.1:${pair.standbyPort}/postgres?target_session_attrs=read-write`;
  } else {
    const forwarder = await movingAddress(pair.primaryPort);
    cleanup.push(() => forwarder.close());
    url = `postgres://postgres@127.0.0.1:${forwarder.port}/postgres`;
    move = () => forwarder.moveTo(pair.standbyPort);
  }
  const server: ServerProcess = await startServer({
    DATABASE_URL: url,
    LOG_LEVEL: 'info',
    PG_POOL_SIZE: '4',
    PG_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
    PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
  });
  cleanup.push(() => server.stop('SIGKILL'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
  cleanup.push(async () => agent.destroy());
  const load = new OutageLoad(1, { agent, port: server.port, token, boundMs: BOUND_MS, seed });
  await load.fence(1_000_000_000);
  load.nextRound();
  const registers = new RegisterLoad({
    targets: [server.port],
    token,
    clients: 6,
    ...BESIDE_LEDGER,
    sharedStore: true,
    seed,
    requestTimeoutMs: BOUND_MS + 10_000,
  });
  cleanup.push(async () => registers.close());

  let stop = false;
  const worker = async (): Promise<void> => {
    while (!stop) {
      const refused = load.tally.unavailable;
      await load.step(scenario.name, rand);
      if (load.tally.unavailable > refused) await sleep(BACKOFF_MS);
    }
  };
  const workers = Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const stopRegisters = new AbortController();
  const registerRun = registers.run({ signal: stopRegisters.signal });
  await sleep(BEFORE_MS);
  const endAt = Date.now();
  if (scenario.end === 'kill -9') await pair.killPrimary();
  else await pair.stopPrimary();
  await sleep(GAP_MS);
  await pair.promoteStandby();
  move();
  const promotedAt = Date.now();
  const writesBackMs = await load.firstWrite(`${scenario.name} probe`, promotedAt, RECOVERY_MS + 10_000);
  if (writesBackMs === undefined || writesBackMs > RECOVERY_MS)
    problems.push(`first create acknowledged ${writesBackMs ?? '> 12000'} ms after the promotion`);
  await sleep(AFTER_MS);
  stop = true;
  stopRegisters.abort();
  await Promise.all([workers, registerRun]);
  await registers.settle();
  const { names } = await load.retryKeyed();
  const tally = load.nextRound();
  problems.push(...load.violations.splice(0));
  const log = server.output().split('\n');
  problems.push(
    ...load.late.splice(0).map((l) => {
      const lines = log.filter((line) => line.includes(`"reqId":"${l.requestId}"`)).map((line) => line.slice(0, 400));
      return `${l.what} → ${l.status} after ${l.ms} ms (bound ${BOUND_MS} ms); server: ${lines.join(' | ') || 'no log line'}`;
    }),
  );
  if (tally.errors500 > 0) problems.push(`${tally.errors500} answers 5xx other than 503`);
  problems.push(...registers.violations.splice(0));
  problems.push(
    ...registers.samples
      .filter((x) => x.ms > BOUND_MS)
      .map((x) => `${x.what} → ${x.status} after ${Math.round(x.ms)} ms (bound ${BOUND_MS} ms)`),
  );

  const readFrom = performance.now();
  const stored = await readPostgres(pair.urlOf('standby'));
  const readTo = performance.now();
  const listed = await listAll(server.url, token);
  if (listed.size !== stored.size)
    problems.push(`GET /plants shows ${listed.size} plants, the new primary holds ${stored.size}`);
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
  const summary =
    `failover ${scenario.name} (${scenario.end} of the primary, promotion ${promotedAt - endAt} ms later): ` +
    `${tally.requests} requests, ${tally.unavailable} × 503, ${tally.errors500} × 500, slowest ${tally.slowestMs} ms (bound ${BOUND_MS}); ` +
    `writes back ${writesBackMs ?? '—'} ms after the promotion; acknowledged ${tally.creates} creates + ${tally.deletes} deletes, ` +
    `${tally.unknown} unknown settled by the store, lost ${lost.length}; registers ${registers.tally.requests} requests; ` +
    `histories: ${checked.join('; registers ')} (seed ${seed})`;
  return { summary, problems };
};
