import http from 'node:http';
import { join } from 'node:path';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logProblems, readLog } from './support/change-watch.js';
import { RequestFailed, send } from './support/http.js';
import { knobs } from './support/knobs.js';
import { seeded } from './support/ledger.js';
import { startServer, tempDir, type ServerProcess } from './support/processes.js';
import { backendsGone, listAll, readPostgres, readSqlite, type StoredPlant } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * Arrays of creates under SIGKILL (issue 56): clients post arrays of 1–400 plants to
 * POST /plants/batch (half of them with an Idempotency-Key) and single creates to POST /plants
 * beside them, and the server is killed at a random moment, then restarted on the same store.
 * Every plant of an array carries the array's own tag, so the store read directly after the kill
 * shows what became of each array: every acknowledged array is there whole, with the ids, names
 * and tags its 201 gave, and its X-Change-Seq is the highest change number of its plants; every
 * unacknowledged array is there whole or not at all; nothing is there that no request asked for.
 * After the restart each unacknowledged keyed array is sent again with its key: it is created
 * now, or answered from its saved outcome, never twice. At the end the change log is numbered
 * 1, 2, 3… with no gap and replays to the store, with one `plant.created` per plant.
 */

const CLIENTS = 8;
const MAX_ROUND_MS = 10_000;
const MAX_ARRAY = 400;

interface Sent {
  readonly tag: string;
  readonly plants: readonly { readonly name: string; readonly tag: string }[];
  readonly key: string | undefined;
  readonly path: '/plants/batch' | '/plants';
}

interface Acknowledged extends Sent {
  readonly ids: readonly number[];
  readonly seq: number | undefined;
}

interface Tally {
  arrays: number;
  plants: number;
  acknowledged: number;
  unknown: number;
  unknownCommitted: number;
  resent: number;
  resentReplayed: number;
  singles: number;
}

interface Target {
  readonly label: string;
  readonly databaseUrl: string;
  read(): Promise<ReadonlyMap<number, StoredPlant>>;
  settled(): Promise<void>;
}

const body = (sent: Sent): string =>
  sent.path === '/plants' ? JSON.stringify(sent.plants[0]) : JSON.stringify(sent.plants);

/** The plants of the store by the array tag they carry. */
const byTag = (plants: ReadonlyMap<number, StoredPlant>): Map<string, StoredPlant[]> => {
  const tags = new Map<string, StoredPlant[]>();
  for (const plant of plants.values()) {
    if (plant.tag === undefined) continue;
    const list = tags.get(plant.tag) ?? [];
    list.push(plant);
    tags.set(plant.tag, list);
  }
  return tags;
};

const crashRounds = async (target: Target, rounds: number, seed: number) => {
  const token = await createToken(target.databaseUrl, `batch-torture-${target.label}`);
  const rand = seeded(seed);
  const tally: Tally = {
    arrays: 0,
    plants: 0,
    acknowledged: 0,
    unknown: 0,
    unknownCommitted: 0,
    resent: 0,
    resentReplayed: 0,
    singles: 0,
  };
  const acknowledged: Acknowledged[] = [];
  const violations: string[] = [];
  let server: ServerProcess = await startServer({ DATABASE_URL: target.databaseUrl, LOG_LEVEL: 'warn' });
  let counter = 0;
  try {
    for (let round = 1; round <= rounds; round++) {
      const victim = server;
      const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
      const killAfterMs = 100 + Math.floor(rand() * 1_400);
      const started = Date.now();
      let stop = false;
      const unknown: Sent[] = [];
      const killer = setTimeout(() => {
        victim.child.kill('SIGKILL');
        stop = true;
      }, killAfterMs);
      const post = async (sent: Sent): Promise<void> => {
        try {
          const res = await send({
            agent,
            port: victim.port,
            method: 'POST',
            path: sent.path,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              ...(sent.key === undefined ? {} : { 'idempotency-key': sent.key }),
            },
            body: body(sent),
          });
          if (res.status !== 201) {
            violations.push(`POST ${sent.path} (${sent.tag}) → ${res.status} ${res.body.slice(0, 200)}`);
            return;
          }
          const ids =
            sent.path === '/plants'
              ? [Number(/^\/plants\/([1-9][0-9]*)$/.exec(String(res.headers.location))?.[1])]
              : (JSON.parse(res.body) as { id: number; name: string; tag: string }[]).map((p, i) => {
                  const asked = sent.plants[i];
                  if (asked === undefined || p.name !== asked.name || p.tag !== asked.tag)
                    violations.push(
                      `${sent.tag}: the 201 lists ${JSON.stringify(p)} at ${i} for ${JSON.stringify(asked)}`,
                    );
                  return p.id;
                });
          const seq = res.headers['x-change-seq'] === undefined ? undefined : Number(res.headers['x-change-seq']);
          acknowledged.push({ ...sent, ids, seq });
          tally.acknowledged++;
        } catch (error) {
          if (!(error instanceof RequestFailed)) throw error;
          if (error.phase === 'truncated') violations.push(`${sent.tag}: a truncated answer (${error.code})`);
          unknown.push(sent);
        }
      };
      const worker = async (): Promise<void> => {
        while (!stop && Date.now() - started < MAX_ROUND_MS) {
          counter++;
          const tag = `r${round} a${counter}`;
          const single = rand() < 0.25;
          const size = single ? 1 : 1 + Math.floor(rand() * MAX_ARRAY);
          const plants = Array.from({ length: size }, (_, i) => ({
            name: i % 50 === 0 ? `${tag} #${i} 🌵 ${'é'.repeat(Math.floor(rand() * 150))}` : `${tag} #${i}`,
            tag,
          }));
          const sent: Sent = {
            tag,
            plants,
            key: single || rand() < 0.5 ? undefined : `batch-torture-${seed}-${counter}`,
            path: single ? '/plants' : '/plants/batch',
          };
          if (single) tally.singles++;
          else tally.arrays++;
          tally.plants += size;
          await post(sent);
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, worker));
      clearTimeout(killer);
      victim.child.kill('SIGKILL');
      const { signal } = await victim.exited;
      agent.destroy();
      expect(signal, `round ${round}: the server died of something other than our SIGKILL:\n${victim.output()}`).toBe(
        'SIGKILL',
      );
      expect(violations, `round ${round} (seed ${seed}): answers that break the contract`).toEqual([]);

      await target.settled();
      const stored = byTag(await target.read());
      const problems: string[] = [];
      for (const array of acknowledged) {
        const found = stored.get(array.tag) ?? [];
        const ids = new Set(found.map((p) => p.id));
        if (found.length !== array.plants.length || array.ids.some((id) => !ids.has(id)))
          problems.push(`acknowledged ${array.tag} (${array.plants.length} plants): ${found.length} in the store`);
      }
      const sentTags = new Set([...acknowledged, ...unknown].map((a) => a.tag));
      for (const array of unknown) {
        const found = stored.get(array.tag) ?? [];
        if (found.length !== 0 && found.length !== array.plants.length)
          problems.push(
            `unacknowledged ${array.tag}: ${found.length} of its ${array.plants.length} plants in the store`,
          );
        if (found.length > 0) tally.unknownCommitted++;
        const names = new Set(array.plants.map((p) => p.name));
        for (const plant of found)
          if (!names.has(plant.name)) problems.push(`${array.tag}: ${plant.name} was never sent`);
      }
      for (const tag of stored.keys()) if (!sentTags.has(tag)) problems.push(`plants tagged ${tag}, which nobody sent`);
      expect(
        problems.slice(0, 20),
        `round ${round} (seed ${seed}, killed after ${killAfterMs} ms): the store after SIGKILL`,
      ).toEqual([]);
      tally.unknown += unknown.length;

      server = await startServer({ DATABASE_URL: target.databaseUrl, LOG_LEVEL: 'warn' });
      // The unacknowledged keyed arrays again, with their keys: created now, or replayed; never twice.
      const agentAfter = new http.Agent({ keepAlive: false });
      for (const array of unknown.filter((a) => a.key !== undefined)) {
        const res = await send({
          agent: agentAfter,
          port: server.port,
          method: 'POST',
          path: array.path,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': array.key as string,
          },
          body: body(array),
        });
        expect(res.status, `${array.tag} sent again: ${res.body.slice(0, 200)}`).toBe(201);
        const committed = (stored.get(array.tag) ?? []).length > 0;
        expect(res.headers['idempotent-replayed'] === 'true', `${array.tag} sent again`).toBe(committed);
        const ids = (JSON.parse(res.body) as { id: number }[]).map((p) => p.id);
        acknowledged.push({ ...array, ids, seq: Number(res.headers['x-change-seq']) });
        tally.resent++;
        if (committed) tally.resentReplayed++;
      }
      agentAfter.destroy();
      // The rest of the unacknowledged: as the store holds them (their plants now count as sent).
      for (const array of unknown.filter((a) => a.key === undefined)) {
        const found = stored.get(array.tag) ?? [];
        if (found.length > 0) acknowledged.push({ ...array, ids: found.map((p) => p.id), seq: undefined });
      }
      const listed = byTag(await listAll(server.url, token));
      for (const array of acknowledged) {
        const found = listed.get(array.tag) ?? [];
        expect(found.length, `${array.tag} after the restart`).toBe(array.plants.length);
      }
    }
    // The change log across every kill: numbered 1, 2, 3…, its replay is the store, one creation
    // per plant; each acknowledged array's X-Change-Seq is the highest number of its changes.
    const log = await readLog(server.url, token);
    const plants = await listAll(server.url, token);
    expect(logProblems(log, plants, []), `the change log (seed ${seed})`).toEqual([]);
    expect(log.filter((c) => c.type === 'plant.created').length).toBe(plants.size);
    const seqOf = new Map(log.map((c) => [c.data.id, c.seq]));
    const seqProblems: string[] = [];
    for (const array of acknowledged) {
      if (array.seq === undefined || array.path !== '/plants/batch') continue;
      const highest = Math.max(...array.ids.map((id) => seqOf.get(id) ?? -1));
      if (highest !== array.seq)
        seqProblems.push(`${array.tag}: X-Change-Seq ${array.seq}, its changes up to ${highest}`);
    }
    expect(seqProblems.slice(0, 20), `X-Change-Seq of the arrays (seed ${seed})`).toEqual([]);
    return { tally, log: log.length, plants: plants.size };
  } finally {
    await server.stop('SIGKILL');
  }
};

const seedOf = (): number => Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);

const summary = (label: string, rounds: number, seed: number, r: Awaited<ReturnType<typeof crashRounds>>): string =>
  `batch-crash ${label}: ${rounds}/${rounds} rounds survived SIGKILL, ${r.tally.arrays} arrays + ${r.tally.singles} single creates sent ` +
  `(${r.tally.plants} plants), ${r.tally.acknowledged} acknowledged and whole, ${r.tally.unknown} without an answer ` +
  `(${r.tally.unknownCommitted} found whole, the rest absent), ${r.tally.resent} keyed ones sent again ` +
  `(${r.tally.resentReplayed} replayed, the rest created once); change log 1…${r.log} with no gap, ${r.plants} plants (seed ${seed})`;

describe('arrays of creates under SIGKILL on SQLite', () => {
  let dir: { path: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('batch-crash');
  });
  afterAll(async () => {
    await dir?.remove();
  });

  const rounds = Math.max(3, Math.ceil(knobs.rounds / 4));
  it(`keeps every acknowledged array whole and every other one whole or absent, over ${rounds} kills`, async () => {
    const file = join(dir.path, 'plant-store.db');
    const seed = seedOf();
    const target: Target = {
      label: 'sqlite',
      databaseUrl: `sqlite:${file}`,
      read: async () => {
        const { plants, integrity } = readSqlite(file);
        expect(integrity).toBe('ok');
        return plants;
      },
      settled: async () => undefined,
    };
    const result = await crashRounds(target, rounds, seed);
    console.log(summary('sqlite', rounds, seed, result));
    expect(result.tally.acknowledged).toBeGreaterThan(rounds);
  });
});

describePostgres('arrays of creates under SIGKILL on PostgreSQL', () => {
  let database: FreshPostgres;
  beforeAll(async () => {
    database = await freshPostgresUrl();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const rounds = Math.max(2, Math.ceil(knobs.rounds / 8));
  it(`keeps every acknowledged array whole and every other one whole or absent, over ${rounds} kills`, async () => {
    const seed = seedOf();
    const target: Target = {
      label: 'postgres',
      databaseUrl: database.url,
      read: () => readPostgres(database.url),
      settled: () => backendsGone(database.schema),
    };
    const result = await crashRounds(target, rounds, seed);
    console.log(summary('postgres', rounds, seed, result));
    expect(result.tally.acknowledged).toBeGreaterThan(rounds);
  });
});
