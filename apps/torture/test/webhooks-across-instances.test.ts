import http from 'node:http';
import { describePostgres, freshPostgresUrl, type FreshPostgres, until } from '@plant-store/testkit';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { send } from './support/http.js';
import { knobs } from './support/knobs.js';
import { seeded } from './support/ledger.js';
import { startServer, type ServerProcess } from './support/processes.js';
import {
  addEndpoint,
  checkAttempts,
  listDeliveries,
  loopbackWebhooks,
  WebhookReceiver,
  type Attempt,
  type Reaction,
} from './support/receiver.js';
import { createToken } from './support/token.js';

/**
 * Webhooks across instances (docs/reference/webhooks.md, "Never on the request path"): two
 * server processes on one PostgreSQL schema share the outbox of one endpoint.
 *
 * 1. Creates spread over both; the receiver answers each attempt 20–50 ms late, so two attempts of
 *    one delivery at once would overlap there. Every event is delivered, exactly once (nothing here
 *    calls for a duplicate), never two attempts of one `webhook-id` in flight at once, and both
 *    instances sent some (each attempt is traced to its process through /proc).
 * 2. The receiver hangs; more creates; once one instance has attempts hanging, `kill -9` it, and
 *    the receiver recovers. The deliveries the killed instance held (read from the store: those
 *    with the holder of its hanging attempts) are delivered by the survivor within a minute of the
 *    kill — not before the hold ends — and every event is delivered.
 */

/** WEBHOOK_TIMEOUT_MS: an instance holds a delivery for this + 15 s. */
const TIMEOUT_MS = 2_000;
const LEASE_MS = TIMEOUT_MS + 15_000;
const SCHEDULE = Array.from({ length: 40 }, () => '250ms').join(',');
/** Creates of part 1 (1,000 by default) and part 2. */
const CREATES = Math.max(100, knobs.rounds * 50);
const HELD_CREATES = Math.max(64, Math.round(CREATES / 5));
const CONCURRENCY = 16;
const TAKE_OVER_BOUND_MS = 60_000;

interface Created {
  readonly id: number;
  readonly name: string;
}

describePostgres('webhooks from two instances over one PostgreSQL', () => {
  let database: FreshPostgres;
  let receiver: WebhookReceiver;
  let servers: ServerProcess[] = [];
  let token: string;
  let secret: string;
  const agents = [
    new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
    new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
  ];

  beforeAll(async () => {
    database = await freshPostgresUrl();
    token = await createToken(database.url, 'webhooks-across');
    receiver = await WebhookReceiver.start();
    secret = await addEndpoint(database.url, receiver.url);
    const env = {
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
      ...loopbackWebhooks,
    };
    servers = await Promise.all([startServer(env), startServer(env)]);
    receiver.senders = servers.map((s) => s.pid);
  });

  afterAll(async () => {
    for (const agent of agents) agent.destroy();
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await receiver?.close();
    await database?.drop();
  });

  /** `count` creates with server-assigned ids, alternating between the two instances. */
  const createMany = async (label: string, count: number): Promise<Created[]> => {
    const created: Created[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < count; i = next++) {
        const at = i % 2;
        const name = `${label} #${i}`;
        const res = await send({
          agent: agents[at] as http.Agent,
          port: (servers[at] as ServerProcess).port,
          method: 'POST',
          path: '/plants',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        expect(res.status, `POST ${name} → ${res.status} ${res.body}`).toBe(201);
        created.push({ id: Number(/^\/plants\/([1-9][0-9]*)$/.exec(String(res.headers.location))?.[1]), name });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return created;
  };

  const answerLate = (rand: () => number) => (): Reaction => ({ status: 204, delayMs: 20 + Math.floor(rand() * 31) });

  const missingOf =
    (created: readonly Created[]): (() => string[]) =>
    () => {
      const delivered = receiver.deliveredKeys();
      return created.map((c) => `plant.created:${c.id}`).filter((key) => !delivered.has(key));
    };

  let firstPart = '';

  it(`delivers ${CREATES} creates spread over both instances, each once, never two attempts of one id at once`, async () => {
    receiver.react = answerLate(seeded(7));
    const started = Date.now();
    const created = await createMany('across', CREATES);
    const missing = missingOf(created);
    await until('every event delivered', () => missing().length === 0, 60_000, {
      detail: () => `${missing().length} missing, e.g. ${missing().slice(0, 5).join(', ')}`,
    });
    const deliveredMs = Date.now() - started;
    await until('an empty outbox', async () => (await listDeliveries(database.url, 'pending')).length === 0, 30_000, {
      everyMs: 250,
    });

    const check = checkAttempts(receiver.attempts, secret);
    expect(check.problems.slice(0, 20), `${check.problems.length} problems with the attempts`).toEqual([]);
    expect(receiver.overlaps.slice(0, 10), 'attempts of one webhook-id in flight at once').toEqual([]);
    expect(receiver.maxPerId).toBe(1);
    expect(check.byKey.size).toBe(CREATES);
    for (const c of created)
      expect(check.byKey.get(`plant.created:${c.id}`)?.[0]?.data).toEqual({ id: c.id, name: c.name });
    // No crash or replay here: a second 2xx is explained only by an attempt the dispatcher saw
    // fail (a timeout the receiver did process, on a machine loaded enough to stall 2 s), which
    // the store then counts as an attempt of its own.
    const recorded = new Map((await listDeliveries(database.url, 'delivered')).map((d) => [d.eventId, d.attempts]));
    const unexplained = [...check.events.values()].filter(
      (e) => e.delivered > 1 && (recorded.get(e.webhookId) ?? 0) < e.delivered,
    );
    expect(
      unexplained.map(
        (e) => `${e.webhookId}: ${e.delivered} × 2xx, ${recorded.get(e.webhookId) ?? 0} attempt(s) recorded`,
      ),
      'duplicate deliveries without a cause',
    ).toEqual([]);
    const bySender = servers.map((s) => receiver.attempts.filter((a) => a.senderPid === s.pid).length);
    expect(
      bySender.every((n) => n > 0),
      `attempts by instance: ${bySender.join(' / ')} (both share the work)`,
    ).toBe(true);
    const failed = await listDeliveries(database.url, 'failed');
    expect(failed).toEqual([]);
    firstPart =
      `${CREATES} creates over 2 instances → ${check.byKey.size} events delivered in ${(deliveredMs / 1000).toFixed(1)} s, ` +
      `${receiver.attempts.length} attempts (${bySender.join(' + ')} by instance), 0 duplicates, ` +
      `at most ${receiver.maxPerId} attempt per webhook-id at once (${receiver.peak} in flight at the peak)`;
  });

  it(`hands the deliveries of a SIGKILLed instance to the survivor within ${TAKE_OVER_BOUND_MS / 1000} s`, async () => {
    const [survivor, victim] = servers as [ServerProcess, ServerProcess];
    receiver.react = () => 'hang';
    const before = receiver.attempts.length;
    const created = await createMany('held', HELD_CREATES);
    const hangingAtVictim = () => receiver.inFlightNow().filter((a) => a.senderPid === victim.pid);
    // The sender keeps at most 16 connections per address; an attempt hangs until its 2 s timeout.
    await until('attempts of the victim hanging at the receiver', () => hangingAtVictim().length >= 8, 20_000, {
      detail: () => `${hangingAtVictim().length} hanging`,
      everyMs: 10,
    });
    const inFlightAtKill = hangingAtVictim().map((a) => a.webhookId);
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    const { signal } = await victim.exited;
    expect(signal).toBe('SIGKILL');
    receiver.react = answerLate(seeded(8));
    receiver.dropHanging();

    // What the victim held: every delivery with the holder of the attempts it was sending (read
    // once its backends finished the statement they were running).
    // A margin, not a condition: both instances' backends share one application_name, so the
    // victim's cannot be told apart in pg_stat_activity to wait for them precisely.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const sql = postgres(database.url, { max: 1, connect_timeout: 5, fetch_types: false, onnotice: () => undefined });
    let held: { event_id: string; held_by: string; hold_ends: number }[];
    try {
      const rows = await sql<{ event_id: string; held_by: string; hold_ends: number }[]>`
        select event_id, held_by, floor(extract(epoch from next_attempt_at) * 1000)::float8 as hold_ends
          from webhook_deliveries where status = 'pending' and held_by is not null`;
      const holders = new Set(rows.filter((r) => inFlightAtKill.includes(r.event_id)).map((r) => r.held_by));
      expect(
        holders.size,
        `holders of the victim's ${inFlightAtKill.length} hanging attempts: ${[...holders].join(', ')}`,
      ).toBe(1);
      held = rows.filter((r) => holders.has(r.held_by));
    } finally {
      await sql.end({ timeout: 5 });
    }
    expect(held.length).toBeGreaterThanOrEqual(inFlightAtKill.length);

    const firstAfterKill = (webhookId: string): Attempt | undefined =>
      receiver.attempts.find(
        (a) =>
          a.webhookId === webhookId &&
          a.arrivedAt >= killedAt &&
          a.senderPid !== victim.pid &&
          a.status !== undefined &&
          a.status >= 200 &&
          a.status <= 299,
      );
    const notTakenOver = () => held.filter((h) => firstAfterKill(h.event_id) === undefined);
    await until(
      'the victim’s deliveries taken over',
      () => notTakenOver().length === 0,
      killedAt + TAKE_OVER_BOUND_MS + 15_000 - Date.now(),
      { detail: () => `${notTakenOver().length} of ${held.length} not delivered`, everyMs: 100 },
    );
    const takeOvers = held.map((h) => {
      const delivered = firstAfterKill(h.event_id) as Attempt;
      // The survivor's first attempt of it: not before the victim's hold ended. (An attempt the
      // victim sent just before its kill can arrive just after it: that one is not a take-over.)
      const first = receiver.attempts.find(
        (a) => a.webhookId === h.event_id && a.arrivedAt >= killedAt && a.senderPid !== victim.pid,
      ) as Attempt;
      return {
        ...h,
        by: delivered.senderPid,
        afterKillMs: (delivered.endedAt ?? delivered.arrivedAt) - killedAt,
        earlyMs: h.hold_ends - first.arrivedAt,
      };
    });
    expect(takeOvers.filter((t) => t.by !== survivor.pid).map((t) => `${t.event_id} by ${t.by}`)).toEqual([]);
    const slowest = Math.max(...takeOvers.map((t) => t.afterKillMs));
    const fastest = Math.min(...takeOvers.map((t) => t.afterKillMs));
    expect(slowest, 'the slowest take-over').toBeLessThanOrEqual(TAKE_OVER_BOUND_MS);
    expect(
      takeOvers.filter((t) => t.earlyMs > 100).map((t) => `${t.event_id} sent ${t.earlyMs} ms before the hold ended`),
    ).toEqual([]);

    const missing = missingOf(created);
    await until('every event delivered', () => missing().length === 0, 30_000, {
      detail: () => `${missing().length} missing`,
    });
    await until('an empty outbox', async () => (await listDeliveries(database.url, 'pending')).length === 0, 30_000, {
      everyMs: 250,
    });
    expect(await listDeliveries(database.url, 'failed')).toEqual([]);
    const check = checkAttempts(receiver.attempts, secret);
    expect(check.problems.slice(0, 20), `${check.problems.length} problems with the attempts`).toEqual([]);
    expect(receiver.overlaps.slice(0, 10), 'attempts of one webhook-id in flight at once').toEqual([]);
    expect(check.byKey.size).toBe(CREATES + HELD_CREATES);
    const delivered = [...check.events.values()].filter((e) => e.delivered > 0).length;
    expect(delivered).toBe(CREATES + HELD_CREATES);

    console.log(
      `webhooks-across-instances: ${firstPart}; then ${HELD_CREATES} creates with the receiver hanging, SIGKILL of one instance holding ` +
        `${held.length} deliveries (${inFlightAtKill.length} in flight at the receiver): all delivered by the survivor ` +
        `${(fastest / 1000).toFixed(1)}–${(slowest / 1000).toFixed(1)} s after the kill (hold ${LEASE_MS / 1000} s, bound ${TAKE_OVER_BOUND_MS / 1000} s), ` +
        `none before its hold ended; ${delivered} events delivered in all, ${check.duplicates} duplicate(s), ` +
        `${receiver.attempts.length - before} attempts in part 2, never two of one webhook-id at once`,
    );
  });
});
