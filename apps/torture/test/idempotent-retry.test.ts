import http from 'node:http';
import { join } from 'node:path';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestFailed, send } from './support/http.js';
import { knobs } from './support/knobs.js';
import { seeded } from './support/ledger.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { listAll } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * Idempotent creates across a crash: keyed creates with server-assigned ids under concurrent load,
 * SIGKILL at a random moment, restart on the same store, then every create that got no answer is
 * sent again with its key. A create the store committed before the kill (its answer lost) must come
 * back as the original 201, replayed; one it did not commit is made now. Either way: exactly one
 * plant per key, and every answer a client ever got for a key names the same plant. Rounds continue
 * (bounded) until the commit-then-kill case was hit at least once.
 */

const CONCURRENCY = 48;
const MAX_ROUND_MS = 10_000;
const MAX_REQUESTS_PER_ROUND = 20_000;

interface Keyed {
  readonly key: string;
  readonly body: string;
  readonly name: string;
  /** The Location of the first 201 this key got, if any. */
  location?: string;
}

const create = (agent: http.Agent, port: number, token: string, keyed: Keyed) =>
  send({
    agent,
    port,
    method: 'POST',
    path: '/plants',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': keyed.key },
    body: keyed.body,
    timeoutMs: 15_000,
  });

interface Tally {
  rounds: number;
  answered: number;
  retried: number;
  replayedAfterRestart: number;
}

const retryRounds = async (databaseUrl: string, label: string, maxRounds: number, seed: number): Promise<Tally> => {
  const token = await createToken(databaseUrl, `torture-keys-${label}`);
  const rand = seeded(seed);
  const tally: Tally = { rounds: 0, answered: 0, retried: 0, replayedAfterRestart: 0 };
  const all: Keyed[] = [];
  let server: ServerProcess = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
  try {
    for (let round = 1; round <= maxRounds && (tally.replayedAfterRestart === 0 || round <= 2); round++) {
      tally.rounds = round;
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const victim = server;
      const unanswered: Keyed[] = [];
      let stop = false;
      let sent = 0;
      const started = Date.now();
      const killer = setTimeout(
        () => {
          victim.child.kill('SIGKILL');
          stop = true;
        },
        100 + Math.floor(rand() * 900),
      );
      const worker = async (): Promise<void> => {
        while (!stop && sent < MAX_REQUESTS_PER_ROUND && Date.now() - started < MAX_ROUND_MS) {
          sent += 1;
          const name = `keyed ${label} r${round} #${sent} ${rand().toString(36).slice(2, 8)}`;
          const keyed: Keyed = {
            key: `${label}-r${round}-${sent}-${seed}`,
            name,
            body: JSON.stringify({ name, tag: 'keyed' }),
          };
          all.push(keyed);
          try {
            const res = await create(agent, victim.port, token, keyed);
            expect(res.status, `${keyed.key}: ${res.body}`).toBe(201);
            keyed.location = String(res.headers.location);
            tally.answered += 1;
          } catch (error) {
            if (!(error instanceof RequestFailed)) throw error;
            unanswered.push(keyed);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      clearTimeout(killer);
      victim.child.kill('SIGKILL');
      await victim.exited;
      agent.destroy();

      server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
      const retry = new http.Agent({ keepAlive: true, maxSockets: 8 });
      for (const keyed of unanswered) {
        const res = await create(retry, server.port, token, keyed);
        expect(res.status, `${keyed.key} retried after the restart: ${res.body}`).toBe(201);
        keyed.location = String(res.headers.location);
        tally.retried += 1;
        if (res.headers['idempotent-replayed'] === 'true') tally.replayedAfterRestart += 1;
      }
      // An answered key sent again after the restart names the plant it named before the kill.
      for (const keyed of all.filter((k) => k.location !== undefined).slice(-20)) {
        const res = await create(retry, server.port, token, keyed);
        expect([res.status, res.headers.location, res.headers['idempotent-replayed']]).toEqual([
          201,
          keyed.location,
          'true',
        ]);
      }
      retry.destroy();
    }
    const listed = await listAll(server.url, token);
    const byName = new Map<string, number[]>();
    for (const plant of listed.values()) byName.set(plant.name, [...(byName.get(plant.name) ?? []), plant.id]);
    for (const keyed of all) {
      const ids = byName.get(keyed.name) ?? [];
      if (keyed.location === undefined) {
        // Sent when the load stopped and never answered nor retried: cannot happen (every unanswered one is retried).
        expect.fail(`${keyed.key} has no answer`);
      }
      expect(ids, `${keyed.key}: one plant, the one its answers named`).toEqual([Number(keyed.location.split('/')[2])]);
    }
  } finally {
    await server.stop('SIGKILL');
  }
  return tally;
};

const seedOf = (): number => Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);
const maxRounds = Math.max(3, Math.ceil(knobs.rounds / 2));
const report = (label: string, seed: number, t: Tally): string =>
  `idempotent-retry ${label}: ${t.rounds} SIGKILL rounds, ${t.answered} keyed creates answered, ${t.retried} unanswered retried after the restart, ` +
  `${t.replayedAfterRestart} of them committed before the kill and replayed; one plant per key (seed ${seed})`;

describe('keyed creates retried across a SIGKILL, SQLite', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('keys');
  });
  afterAll(async () => {
    await dir?.remove();
  });

  it('gives every unanswered keyed create its original 201 or its first, and one plant per key', async () => {
    const seed = seedOf();
    const tally = await retryRounds(`sqlite:${join(dir.path, 'plant-store.db')}`, 'sqlite', maxRounds, seed);
    console.log(report('sqlite', seed, tally));
    expect(tally.replayedAfterRestart, 'no round killed the server between a commit and its answer').toBeGreaterThan(0);
  });
});

describePostgres('keyed creates retried across a SIGKILL, PostgreSQL', () => {
  let database: FreshPostgres;
  beforeAll(async () => {
    database = await freshPostgresUrl();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('gives every unanswered keyed create its original 201 or its first, and one plant per key', async () => {
    const seed = seedOf();
    const tally = await retryRounds(database.url, 'postgres', maxRounds, seed);
    console.log(report('postgres', seed, tally));
    expect(tally.replayedAfterRestart, 'no round killed the server between a commit and its answer').toBeGreaterThan(0);
  });
});
