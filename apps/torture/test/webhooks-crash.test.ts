import http from 'node:http';
import { join } from 'node:path';
import { describePostgres, freshPostgresUrl, type FreshPostgres, until } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knobs } from './support/knobs.js';
import { Ledger, seeded } from './support/ledger.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import {
  addEndpoint,
  checkAttempts,
  listDeliveries,
  loopbackWebhooks,
  WebhookReceiver,
  type Reaction,
} from './support/receiver.js';
import { backendsGone, readPostgres, readSqlite, type StoredPlant } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * Webhooks across `kill -9` (docs/reference/webhooks.md, at least once): an endpoint registered
 * with the CLI points at a receiver that is slow and mostly failing (503s, dropped connections, a
 * few 2xx), so events pile up in the outbox — due, waiting for a retry, or held by an attempt in
 * flight — while a stream of creates and deletes runs; SIGKILL mid-stream; the receiver turns
 * healthy and the server restarts on the same store. Then every committed write (acknowledged, or
 * in flight at the kill and found in the store) has its event delivered at least once, no event
 * reports a write that did not commit, each write has exactly one `webhook-id` (stable across
 * duplicates, with the same body), every attempt verifies with `standardwebhooks`, no two attempts
 * of one id were ever in flight at once, and the store's outbox ends empty: nothing pending or failed.
 */

const CONCURRENCY = 24;
const MAX_ROUND_MS = 10_000;
const MAX_REQUESTS_PER_ROUND = 20_000;
/** WEBHOOK_TIMEOUT_MS: small, so the killed server's holds (timeout + 15 s) end soon after the kill. */
const TIMEOUT_MS = 1_000;
const LEASE_MS = TIMEOUT_MS + 15_000;
/** Short retries, and many of them: no delivery runs out of attempts while the receiver fails. */
const SCHEDULE = Array.from({ length: 40 }, () => '250ms').join(',');

interface Target {
  readonly label: string;
  readonly databaseUrl: string;
  read(): Promise<ReadonlyMap<number, StoredPlant>>;
  /** Resolves once nothing the killed server started can still change the store (see crash-durability). */
  settled(): Promise<void>;
}

interface Figures {
  rounds: number;
  pendingAtKill: number;
  heldAtKill: number;
  deliveredBeforeKill: number;
  inFlightCommitted: number;
  slowestRecoveryMs: number;
}

/** The receiver while the load runs: 0–300 ms late, then mostly 503, sometimes a dropped connection, sometimes a 2xx. */
const flaky = (rand: () => number) => (): Reaction => {
  const r = rand();
  const delayMs = Math.floor(rand() * 300);
  if (r < 0.2) return { status: r < 0.1 ? 200 : 204, delayMs };
  if (r < 0.3) return { drop: true, delayMs };
  return { status: 503, delayMs };
};
const healthy = (): Reaction => ({ status: 204 });

/** The events the committed writes must have produced: `plant.created:<id>` for every plant that existed, `plant.deleted:<id>` for every delete. */
const expectedEvents = (ledger: Ledger): Set<string> =>
  new Set([
    ...[...ledger.present.keys()].map((id) => `plant.created:${id}`),
    ...[...ledger.deletedForGood].flatMap((id) => [`plant.created:${id}`, `plant.deleted:${id}`]),
  ]);

const webhookRounds = async (
  target: Target,
  rounds: number,
  seed: number,
): Promise<{ ledger: Ledger; receiver: WebhookReceiver; figures: Figures; secret: string }> => {
  const token = await createToken(target.databaseUrl, `torture-webhooks-${target.label}`);
  const receiver = await WebhookReceiver.start();
  const secret = await addEndpoint(target.databaseUrl, receiver.url);
  const rand = seeded(seed);
  receiver.react = flaky(seeded(seed + 1));
  const env = {
    DATABASE_URL: target.databaseUrl,
    LOG_LEVEL: 'warn',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
    ...loopbackWebhooks,
  };
  // chosen ids count up from 1 below a fence plant at 10^9; server-assigned ids go above it, and neither is ever reused
  const ledger = new Ledger(1);
  const figures: Figures = {
    rounds: 0,
    pendingAtKill: 0,
    heldAtKill: 0,
    deliveredBeforeKill: 0,
    inFlightCommitted: 0,
    slowestRecoveryMs: 0,
  };
  let server: ServerProcess = await startServer(env);
  try {
    const setup = new http.Agent({ keepAlive: false });
    await ledger.fence(setup, server.port, token, 1_000_000_000);
    setup.destroy();
    for (let round = 1; round <= rounds; round++) {
      const where = `${target.label} round ${round} (seed ${seed})`;
      figures.rounds = round;
      receiver.react = flaky(seeded(seed + round));
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const killAfterMs = 300 + Math.floor(rand() * 1_200);
      const started = Date.now();
      let stop = false;
      const victim = server;
      let killedAt = 0;
      const deliveredAtStart = receiver.delivered().size;
      const killer = setTimeout(() => {
        killedAt = Date.now();
        victim.child.kill('SIGKILL');
        stop = true;
      }, killAfterMs);
      const worker = async (): Promise<void> => {
        while (!stop && ledger.tally.requests < MAX_REQUESTS_PER_ROUND * round && Date.now() - started < MAX_ROUND_MS) {
          await ledger.step(agent, victim.port, token, `w${round}`, rand);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      clearTimeout(killer);
      if (killedAt === 0) killedAt = Date.now();
      victim.child.kill('SIGKILL'); // in case the load ended first (bounded loop)
      const { signal } = await victim.exited;
      agent.destroy();
      expect(signal, `${where}: the server died of something other than our SIGKILL:\n${victim.output()}`).toBe(
        'SIGKILL',
      );
      expect(ledger.violations, `${where}: responses that break the contract`).toEqual([]);
      figures.deliveredBeforeKill += receiver.delivered().size - deliveredAtStart;

      // What committed: the store read directly, the unknown outcomes resolved by it.
      await target.settled();
      const lost = ledger.reconcile(await target.read());
      expect(lost, `${where}: the store after SIGKILL`).toEqual([]);
      const expected = expectedEvents(ledger);

      // The outbox the killed server left: due, waiting for a retry, or held (due only when the hold ends).
      const pending = await listDeliveries(target.databaseUrl, 'pending');
      figures.pendingAtKill += pending.length;
      figures.heldAtKill += pending.filter((d) => Date.parse(d.nextAttemptAt ?? '') > killedAt + 5_000).length;
      expect(
        pending.length,
        `${where}: nothing was left in the outbox at the kill; the test tested nothing`,
      ).toBeGreaterThan(0);

      receiver.react = healthy;
      server = await startServer(env);
      const restartedAt = Date.now();
      const missing = (): string[] => {
        const delivered = receiver.deliveredKeys();
        return [...expected].filter((key) => !delivered.has(key));
      };
      // Due ones at once; held ones when the killed server's hold ends (≤ LEASE_MS after the kill).
      await until(
        `${where}: every committed write's event delivered`,
        () => missing().length === 0,
        LEASE_MS + 30_000,
        { detail: () => `${missing().length} missing, e.g. ${missing().slice(0, 5).join(', ')}`, everyMs: 200 },
      );
      figures.slowestRecoveryMs = Math.max(figures.slowestRecoveryMs, Date.now() - restartedAt);
      await until(
        `${where}: an empty outbox`,
        async () => (await listDeliveries(target.databaseUrl, 'pending')).length === 0,
        30_000,
        { everyMs: 250 },
      );

      const check = checkAttempts(receiver.attempts, secret);
      expect(check.problems.slice(0, 20), `${where}: ${check.problems.length} problems with the attempts`).toEqual([]);
      const invented = [...check.byKey.keys()].filter((key) => !expected.has(key));
      expect(invented, `${where}: events for writes that did not commit`).toEqual([]);
      for (const [id, plant] of ledger.present) {
        const [event] = check.byKey.get(`plant.created:${id}`) ?? [];
        const want = plant.tag === undefined ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag };
        expect(event?.data, `${where}: the plant.created of ${id}`).toEqual(want);
      }
      expect(receiver.overlaps.slice(0, 10), `${where}: attempts of one webhook-id in flight at once`).toEqual([]);
      // The store holds one delivery per committed write, each delivered, none failed.
      const all = await listDeliveries(target.databaseUrl);
      if (expected.size < 10_000) expect(all.length, `${where}: deliveries in the store`).toBe(expected.size);
      expect(all.filter((d) => d.status !== 'delivered').slice(0, 10), `${where}: deliveries not delivered`).toEqual(
        [],
      );
      // each acknowledged write is one event (ids are never reused); the rest are unknowns that committed
      figures.inFlightCommitted = expected.size - (ledger.tally.creates + ledger.tally.deletes);
    }
  } finally {
    await server.stop('SIGKILL');
    await receiver.close();
  }
  return { ledger, receiver, figures, secret };
};

const report = (label: string, seed: number, r: Awaited<ReturnType<typeof webhookRounds>>): string => {
  const { ledger, receiver, figures } = r;
  const check = checkAttempts(receiver.attempts, r.secret);
  const delivered = [...check.events.values()].filter((e) => e.delivered > 0).length;
  return (
    `webhooks-crash ${label}: ${figures.rounds} SIGKILL round(s), acknowledged ${ledger.tally.creates} creates + ${ledger.tally.deletes} deletes, ` +
    `${ledger.tally.unknown} in flight at the kill (${figures.inFlightCommitted} of them committed); ` +
    `outbox at the kill ${figures.pendingAtKill} pending (${figures.heldAtKill} held by the killed server), ${figures.deliveredBeforeKill} delivered before it; ` +
    `${delivered} events delivered = ${check.byKey.size} committed writes, ${check.duplicates} duplicate(s), ${receiver.attempts.length} attempts, ` +
    `0 invented, 0 failed; all delivered ${(figures.slowestRecoveryMs / 1000).toFixed(1)} s after the restart (holds ${LEASE_MS / 1000} s) (seed ${seed})`
  );
};

const seedOf = (): number => Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);
/** One round per store by default (each waits out a hold of 16 s); TORTURE_ROUNDS=100 gives 5. */
const rounds = Math.max(1, Math.ceil(knobs.rounds / 20));

describe('webhooks across SIGKILL on SQLite', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('webhooks-crash');
  });
  afterAll(async () => {
    await dir?.remove();
  });

  it(`delivers every committed write's event, and nothing else, after ${rounds} SIGKILL(s)`, async () => {
    const file = join(dir.path, 'plant-store.db');
    const seed = seedOf();
    const target: Target = {
      label: 'sqlite',
      databaseUrl: `sqlite:${file}`,
      read: async () => readSqlite(file).plants,
      settled: async () => undefined,
    };
    const result = await webhookRounds(target, rounds, seed);
    console.log(report('sqlite', seed, result));
    expect(result.ledger.tally.creates).toBeGreaterThan(rounds * 10);
    expect(result.ledger.tally.deletes).toBeGreaterThan(0);
  });
});

describePostgres('webhooks across SIGKILL on PostgreSQL', () => {
  let database: FreshPostgres;
  beforeAll(async () => {
    database = await freshPostgresUrl();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it(`delivers every committed write's event, and nothing else, after ${rounds} SIGKILL(s)`, async () => {
    const seed = seedOf();
    const target: Target = {
      label: 'postgres',
      databaseUrl: database.url,
      read: () => readPostgres(database.url),
      settled: () => backendsGone(database.schema),
    };
    const result = await webhookRounds(target, rounds, seed);
    console.log(report('postgres', seed, result));
    expect(result.ledger.tally.creates).toBeGreaterThan(rounds * 10);
  });
});
