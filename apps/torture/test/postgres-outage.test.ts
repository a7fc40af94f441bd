import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { skipOrFail, until } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knobs } from './support/knobs.js';
import { seeded } from './support/ledger.js';
import { pollReady } from './support/ready-poller.js';
import { checkHistory, describeHistory, formatVerdict } from './support/linearizability.js';
import { OutageLoad } from './support/outage-load.js';
import { BESIDE_LEDGER, isBesideLedger, RegisterLoad, withoutRegisters } from './support/register-load.js';
import { startServer, type ServerProcess } from './support/processes.js';
import { ChangeWatch, logNumbering, readLog } from './support/change-watch.js';
import {
  addEndpoint,
  checkAttempts,
  eventKey,
  listDeliveries,
  loopbackWebhooks,
  WebhookReceiver,
} from './support/receiver.js';
import { countDeliveries, listAll, readPostgres, type StoredPlant } from './support/store.js';
import { outagePostgres, type OutagePostgres } from './support/throwaway-postgres.js';
import { createToken } from './support/token.js';

/**
 * PostgreSQL outages under load. One server over a PostgreSQL of the suite's own
 * (support/throwaway-postgres.ts), one webhook endpoint pointing at a healthy loopback receiver,
 * and a mixed load (creates with a chosen id, with a server-assigned one, with an Idempotency-Key;
 * deletes; gets; lists) from concurrent clients while the database (a) restarts (`pg_ctl restart -m
 * fast`), (b) loses every backend of the server's connections (`pg_terminate_backend`), (c) is
 * stopped (`-m immediate`) for 5 s and started again.
 *
 * For each: every answer is a 2xx, an expected 4xx or the contract's JSON 503, none later than
 * PG_ACQUIRE_TIMEOUT_MS + 1 s (no 500, no hang); /readyz goes 503 while the database is down and
 * 200 after; a create succeeds within 2 s of the database being back; the store then holds every
 * acknowledged create, none of the acknowledged deletes, and nothing nobody asked for (the writes
 * answered 503 are unknown: either outcome is allowed, the store settles them); every keyed create
 * answered 503, sent again with its key, gets a 201 and leaves exactly one plant; the events of
 * all committed writes reach the receiver, and no other event does.
 *
 * Beside that load, the contended register load (support/register-load.ts: 6 clients on 8 ids,
 * creates, reads, patches with and without If-Match, deletes) runs through every outage, so the
 * checker sees contention across it: its history stays linearizable, its answers keep the same
 * bound, and its events are left out of the webhook checks (its unknown writes have no ledger).
 */

const ACQUIRE_TIMEOUT_MS = 1_500;
const STATEMENT_TIMEOUT_MS = 2_000;
/**
 * The bounds: no answer later than the acquire timeout + 1 s, and writes back within 2 s of the
 * database accepting connections again. The server keeps the first through the gate's outage mode
 * (adapters/postgres/gate.ts): once an operation fails with an outage error, every operation ends
 * within the acquire timeout of its arrival, write batches counted from their first write, until
 * one succeeds again.
 */
const BOUND_MS = ACQUIRE_TIMEOUT_MS + 1_000;
const RECOVERY_MS = 2_000;
const CONCURRENCY = 16;
/** Load before the outage and after the recovery. */
const BEFORE_MS = 1_000;
const AFTER_MS = 1_500;
/** How long round (c) keeps the database down. */
const DOWN_MS = 5_000;
/** A client backs off this long after a 503 (a load that spins on instant 503s measures nothing). */
const BACKOFF_MS = 25;
const READYZ_EVERY_MS = 20;
/** WEBHOOK_TIMEOUT_MS: a delivery claimed by a statement whose answer the outage cut is held for timeout + 15 s. */
const WEBHOOK_TIMEOUT_MS = 1_000;
const LEASE_MS = WEBHOOK_TIMEOUT_MS + 15_000;
const SCHEDULE = Array.from({ length: 40 }, () => '250ms').join(',');
/** Each outage is repeated ⌈TORTURE_ROUNDS / 20⌉ times (once at the default). */
const repeats = Math.max(1, Math.ceil(knobs.rounds / 20));
const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);

interface Outage {
  readonly name: string;
  readonly what: string;
  /** Whether the database refuses connections for a while (so /readyz must see it). */
  readonly down: boolean;
  /** Causes the outage; resolves once the database accepts connections again. */
  cause(pg: OutagePostgres): Promise<string>;
}

const outages: readonly Outage[] = [
  { name: 'restart', what: 'pg_ctl restart -m fast', down: true, cause: async (pg) => (await pg.restart(), '') },
  {
    name: 'terminate',
    what: "pg_terminate_backend on every backend of the server's connections",
    down: false,
    cause: async (pg) => `${await pg.terminateBackends()} backends terminated`,
  },
  {
    name: 'stop 5 s',
    what: `pg_ctl stop -m immediate, ${DOWN_MS / 1000} s down, pg_ctl start`,
    down: true,
    cause: async (pg) => {
      await pg.stop('immediate');
      await sleep(DOWN_MS);
      await pg.start();
      return '';
    },
  },
];

/** An event key (`plant.created:<id>`) of the register load's plants. */
const isRegisterEvent = (key: string): boolean => isBesideLedger(Number(key.slice(key.lastIndexOf(':') + 1)));

const byId = (plants: ReadonlyMap<number, StoredPlant>): StoredPlant[] =>
  [...plants.values()].sort((a, b) => a.id - b.id);

/** The store errors the server logged (`PostgreSQL unavailable`), counted by operation and code. */
const storeErrors = (log: readonly string[]): string => {
  const counts = new Map<string, number>();
  for (const line of log) {
    if (!line.includes('"PostgreSQL unavailable"')) continue;
    const { operation, err } = JSON.parse(line) as { operation?: string; err?: { code?: string } };
    const key = `${String(operation).replace(/\d+/g, 'N')} ${err?.code}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts.size === 0 ? 'none' : [...counts].map(([key, n]) => `${n} × ${key}`).join(', ');
};

describe('PostgreSQL outages under load', () => {
  let pg: OutagePostgres | undefined;
  let skipped: string | undefined;
  let server: ServerProcess | undefined;
  let receiver: WebhookReceiver | undefined;
  let secret = '';
  let token = '';
  let load: OutageLoad;
  let registers: RegisterLoad;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const rand = seeded(seed);
  let eventsBefore = 0;
  /** A watcher of the change feed held open through every outage. */
  let watch: ChangeWatch | undefined;

  beforeAll(async () => {
    const found = await outagePostgres();
    if (typeof found === 'string') {
      skipped = found;
      return;
    }
    pg = found;
    token = await createToken(pg.url, 'torture-outage');
    receiver = await WebhookReceiver.start();
    secret = await addEndpoint(pg.url, receiver.url);
    server = await startServer({
      DATABASE_URL: pg.url,
      // every request's line (its time, its error) for the messages about late answers
      LOG_LEVEL: 'info',
      PG_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
      PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
      ...loopbackWebhooks,
    });
    // chosen ids count up from 1 below a fence plant at 10^9; server-assigned ids go above it
    load = new OutageLoad(1, { agent, port: server.port, token, boundMs: BOUND_MS, seed });
    await load.fence(1_000_000_000);
    load.nextRound();
    registers = new RegisterLoad({
      targets: [server.port],
      token,
      clients: 6,
      // After a 503, wait as its Retry-After (1 s) asks: a write answered 503 has an unknown
      // outcome, and a client that retried every 25 ms through a 5 s outage left the checker
      // ~40 of them on one id, past its search bound (2,000,000 states; seen in CI on a quiet machine).
      backoffMs: 1_000,
      ...BESIDE_LEDGER,
      sharedStore: true,
      seed,
    });
    watch = new ChangeWatch(0);
    await watch.follow(server.port, token);
  });

  afterAll(async () => {
    watch?.stop();
    registers?.close();
    agent.destroy();
    await server?.stop('SIGKILL');
    await receiver?.close();
    await pg?.close();
  });

  /** One outage under load; resolves with the summary line and every problem found (all of them, so one does not hide another). */
  const round = async (
    outage: Outage,
    label: string,
    db: OutagePostgres,
    api: ServerProcess,
    hooks: WebhookReceiver,
  ): Promise<{ summary: string; problems: string[] }> => {
    const problems: string[] = [];
    const logFrom = api.output().length;
    const readyProblems: string[] = [];
    const ready = pollReady({ ports: [api.port], boundMs: BOUND_MS, everyMs: READYZ_EVERY_MS }, readyProblems);
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const refused = load.tally.unavailable;
        await load.step(outage.name, rand);
        if (load.tally.unavailable > refused) await sleep(BACKOFF_MS);
      }
    };
    const workers = Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const stopRegisters = new AbortController();
    const registersFrom = registers.samples.length;
    const registerRun = registers.run({ signal: stopRegisters.signal });
    await sleep(BEFORE_MS);
    const outageAt = Date.now();
    const note = await outage.cause(db);
    const backAt = Date.now();
    const writesBackMs = await load.firstWrite(`${outage.name} probe`, backAt, RECOVERY_MS + 5_000);
    if (writesBackMs === undefined || writesBackMs > RECOVERY_MS)
      problems.push(
        `no create acknowledged within ${RECOVERY_MS} ms of the database being back (first after ${writesBackMs ?? `> ${RECOVERY_MS + 5_000}`} ms)`,
      );
    const readyAgain = () => ready.samples.find((s) => s.sentAt >= backAt && s.status === 200);
    await until('/readyz 200', () => readyAgain() !== undefined, 10_000).catch(() =>
      problems.push('/readyz not 200 within 10 s of the database being back'),
    );
    await sleep(AFTER_MS);
    stop = true;
    stopRegisters.abort();
    await Promise.all([workers, registerRun]);
    await ready.stop();
    await registers.settle();
    const registerSamples = registers.samples.slice(registersFrom);
    problems.push(...registers.violations.splice(0));
    for (const s of registerSamples)
      if (s.ms > BOUND_MS)
        problems.push(`register ${s.what} → ${s.status} after ${s.ms} ms, later than ${BOUND_MS} ms`);
    const registerVerdict = checkHistory(registers.history);
    if (registerVerdict.ok !== true)
      problems.push(
        `registers: ${formatVerdict(describeHistory(registers.history), registerVerdict)}`,
        ...(registerVerdict.ok === false ? [registerVerdict.explanation, ...registerVerdict.operations] : []),
      );

    const { retried, replayed, names } = await load.retryKeyed();
    const tally = load.nextRound();
    const notReady = ready.samples.filter((s) => s.status === 503);
    const violations = load.violations.splice(0);
    problems.push(...violations, ...readyProblems);
    if (tally.errors500 > 0) problems.push(`${tally.errors500} answers 5xx other than 503`);
    if (outage.down && notReady.length === 0) problems.push('/readyz never answered 503 while the database was down');
    if (outage.down && tally.unavailable === 0)
      problems.push('no request was answered 503: the load never met the outage');
    if (ready.samples.at(-1)?.status !== 200)
      problems.push(`/readyz answered ${ready.samples.at(-1)?.status} at the end`);

    // What the store holds, read directly and through the API; the unknown writes are settled by it.
    const readFrom = performance.now();
    const stored = await readPostgres(db.url);
    const readTo = performance.now();
    const listed = await listAll(api.url, token);
    if (JSON.stringify(byId(listed)) !== JSON.stringify(byId(stored)))
      problems.push(`GET /plants shows ${listed.size} plants, the table holds ${stored.size}`);
    const ledgerStored = withoutRegisters(stored);
    const lost = load.reconcile(ledgerStored);
    problems.push(...lost);
    // every request so far and this read of the store: one order of them must explain every answer
    load.recorder.observe(ledgerStored, readFrom, readTo);
    // list pages also show the register load's plants, whose writes this history does not hold
    const ledgerHistory = load.recorder.history.filter((op) => !isBesideLedger(op.call.id));
    const figures = describeHistory(ledgerHistory);
    const verdict = checkHistory(ledgerHistory);
    if (verdict.ok !== true)
      problems.push(
        formatVerdict(figures, verdict),
        ...(verdict.ok === false ? [verdict.explanation, ...verdict.operations] : []),
      );
    const byName = new Map<string, number>();
    for (const plant of ledgerStored.values()) byName.set(plant.name, (byName.get(plant.name) ?? 0) + 1);
    problems.push(
      ...names
        .filter((name) => byName.get(name) !== 1)
        .map(
          (name) => `keyed create ${JSON.stringify(name)}, answered 503 and retried: ${byName.get(name) ?? 0} plants`,
        ),
    );

    // Webhooks: every committed write's event delivered, and no other.
    const expected = load.expectedEvents();
    const eventsFrom = Date.now();
    const missing = (): string[] => {
      const delivered = hooks.deliveredKeys();
      return [...expected].filter((key) => !delivered.has(key));
    };
    await until('events', () => missing().length === 0, LEASE_MS + 10_000, { everyMs: 100 }).catch(() =>
      problems.push(
        `${missing().length} events of committed writes not delivered ${LEASE_MS + 10_000} ms after the check began, e.g. ${missing().slice(0, 5).join(', ')}`,
      ),
    );
    const eventsMs = Date.now() - eventsFrom;
    // The register load's events are left out: it patches, and creates and deletes its ids again.
    const check = checkAttempts(
      hooks.attempts.filter((a) => !isRegisterEvent(eventKey(a.body))),
      secret,
    );
    problems.push(...check.problems);
    problems.push(
      ...[...check.byKey.keys()]
        .filter((key) => !expected.has(key))
        .map((key) => `event ${key} of a write that did not commit`),
    );

    // Answers later than the bound, each with the server's own log line (its time and the store's error).
    const log = api.output().slice(logFrom).split('\n');
    const late = load.late.splice(0);
    for (const { what, status, ms, requestId } of late) {
      const line = log.find((l) => l.includes(`"reqId":"${requestId}"`));
      const logged =
        line === undefined
          ? undefined
          : (JSON.parse(line) as { ms?: number; err?: { code?: string; message?: string } });
      const server =
        logged === undefined
          ? 'no log line'
          : `${logged.ms} ms${logged.err === undefined ? '' : `, ${logged.err.code}: ${logged.err.message}`}`;
      problems.push(
        `${what} → ${status} after ${ms} ms, later than the gate's backstop + 1 s = ${BOUND_MS} ms (server: ${server})`,
      );
    }
    // The counts first (the assertion shows the first 30 lines), then each problem.
    const headline = [
      ...(violations.length > 0
        ? [
            `${violations.length} answers break the contract (a 5xx other than 503, an unexpected status or body, no answer)`,
          ]
        : []),
      ...(late.length > 0
        ? [`${late.length} answers later than ${BOUND_MS} ms, the slowest after ${tally.slowestMs} ms`]
        : []),
      ...(lost.length > 0 ? [`${lost.length} differences between the store and the acknowledged writes`] : []),
    ];
    if (problems.length > 0) headline.push(`the store's errors this round: ${storeErrors(log)}`);

    const firstDown = notReady[0];
    const readyDown =
      firstDown === undefined
        ? 'never 503'
        : `503 × ${notReady.length} (first answered +${firstDown.sentAt + firstDown.ms - outageAt} ms)`;
    const readyBack = readyAgain();
    const summary =
      `postgres-outage ${label} (${outage.what}${note === '' ? '' : `; ${note}`}; ${backAt - outageAt} ms until it accepted connections): ` +
      `${tally.requests} requests, ${tally.unavailable} × 503, ${tally.errors500} × 500, slowest answer ${tally.slowestMs} ms (bound ${BOUND_MS}); ` +
      `/readyz ${readyDown}, 200 again ${readyBack === undefined ? '—' : readyBack.sentAt - backAt} ms after the database was back; ` +
      `writes back after ${writesBackMs ?? '—'} ms (bound ${RECOVERY_MS}); acknowledged ${tally.creates} creates + ${tally.deletes} deletes, ` +
      `${tally.unknown} unknown settled by the store, ${retried} keyed 503s retried (${replayed} had committed: replayed), lost ${lost.length}; ` +
      `history so far: ${formatVerdict(figures, verdict)}; ` +
      `registers ${registerSamples.length} requests (${registerSamples.filter((s) => s.status === 503).length} × 503, slowest ${Math.round(Math.max(0, ...registerSamples.map((s) => s.ms)))} ms), ` +
      `history so far: ${formatVerdict(describeHistory(registers.history), registerVerdict)}; ` +
      `${expected.size - eventsBefore} events delivered (${expected.size} so far, ${check.duplicates} duplicate(s) so far) ${eventsMs} ms after the check began (seed ${seed})`;
    eventsBefore = expected.size;
    return { summary, problems: problems.length === 0 ? [] : [...headline, ...problems] };
  };

  for (const outage of outages) {
    it(`answers 2xx/4xx or a JSON 503 within ${BOUND_MS} ms through ${outage.what}, and loses nothing`, async (ctx) => {
      if (skipped !== undefined || pg === undefined || server === undefined || receiver === undefined)
        return skipOrFail(ctx, 'postgres-outage', skipped ?? 'the set-up did not finish');
      for (let repeat = 1; repeat <= repeats; repeat++) {
        const label = `${outage.name}${repeats > 1 ? ` #${repeat}` : ''}`;
        const { summary, problems } = await round(outage, label, pg, server, receiver);
        console.log(summary);
        expect(problems.slice(0, 30), `${label} (seed ${seed}, ${pg.label}): ${problems.length} problems`).toEqual([]);
      }
    });
  }

  it('ends with an empty outbox: every delivery delivered once the database is back', async (ctx) => {
    if (skipped !== undefined || pg === undefined)
      return skipOrFail(ctx, 'postgres-outage', skipped ?? 'the set-up did not finish');
    const url = pg.url;
    await until('an empty outbox', async () => (await listDeliveries(url, 'pending')).length === 0, LEASE_MS + 10_000, {
      everyMs: 250,
    });
    // Counted in the table: the CLI lists at most 10,000, and a quiet machine commits more.
    const { total, byStatus } = await countDeliveries(url);
    expect(byStatus, 'deliveries by status').toEqual({ delivered: total });
    // The register load's deliveries, every one delivered by now: those the receiver took.
    const registerDeliveries = [...(receiver?.delivered().values() ?? [])].filter((attempts) =>
      isRegisterEvent(eventKey(attempts[0]?.body ?? '')),
    ).length;
    expect(total - registerDeliveries, 'one delivery per committed write of the ledger').toBe(
      load.expectedEvents().size,
    );
    console.log(
      `postgres-outage: outbox empty, ${total} deliveries all delivered (${registerDeliveries} of them the register load's)`,
    );
  });

  it('kept a watcher of the change feed through every outage: every change once, in order', async (ctx) => {
    if (skipped !== undefined || server === undefined || watch === undefined)
      return skipOrFail(ctx, 'postgres-outage', skipped ?? 'the set-up did not finish');
    const held = watch;
    const log = await readLog(server.url, token);
    await until('the watcher at the newest change', () => Promise.resolve(held.position >= log.length), 5000, {
      everyMs: 20,
    });
    expect(logNumbering(log, [held.seen]), 'the change log and what the watcher read').toEqual([]);
    expect(held.repeats, 'changes sent twice or out of order').toEqual([]);
    expect(held.seen.size, 'changes the watcher read').toBe(log.length);
    console.log(
      `postgres-outage: the watcher read all ${log.length} changes through every outage, each once and in order, resumed ${held.resumes} times`,
    );
  });
});
