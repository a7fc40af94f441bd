import http from 'node:http';
import { describePostgres, freshPostgresUrl, type FreshPostgres, until } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ChangeWatch, logProblems, readLog } from './support/change-watch.js';
import { send } from './support/http.js';
import { seeded } from './support/ledger.js';
import { startServer, type ServerProcess } from './support/processes.js';
import { readPostgres } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * The change feed across instances (CONTRACT part 5, "The change log"): two server processes over
 * one PostgreSQL database, 16 writers creating, patching and deleting through both at once, and a
 * watcher on each instance's stream. The two watchers read the same changes, number for number
 * and byte for byte, numbered 1, 2, 3… in commit order: every acknowledged write is among them,
 * and replaying them gives the store.
 */

const WRITERS = 16;
const DURATION_MS = 4000;

describePostgres('the change feed on two instances over one PostgreSQL', () => {
  let database: FreshPostgres;
  let servers: ServerProcess[] = [];
  let token: string;

  beforeAll(async () => {
    database = await freshPostgresUrl();
    token = await createToken(database.url, 'changes-across');
    servers = await Promise.all([
      startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }),
      startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  it(`${WRITERS} writers on both: the watchers of both read the same changes, every acknowledged one`, async () => {
    const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);
    const rand = seeded(seed);
    const watches = servers.map(() => new ChangeWatch(0));
    await Promise.all(watches.map((watch, i) => watch.follow((servers[i] as ServerProcess).port, token)));
    const agents = servers.map(() => new http.Agent({ keepAlive: true, maxSockets: WRITERS }));
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    /** What each acknowledged write must show in the log: its plant's id and the change's type. */
    const acknowledged: { readonly id: number; readonly type: string }[] = [];
    const started = Date.now();
    let next = 1;
    const writer = async (w: number): Promise<void> => {
      const mine: number[] = [];
      const target = { agent: agents[w % 2] as http.Agent, port: (servers[w % 2] as ServerProcess).port };
      while (Date.now() - started < DURATION_MS) {
        const roll = rand();
        const id = mine[Math.floor(rand() * mine.length)];
        if (id === undefined || roll < 0.5) {
          const created = next++;
          const answer = await send({
            ...target,
            method: 'POST',
            path: '/plants',
            headers,
            body: JSON.stringify({ id: created, name: `across ${created}` }),
          });
          expect(answer.status).toBe(201);
          mine.push(created);
          acknowledged.push({ id: created, type: 'plant.created' });
        } else if (roll < 0.8) {
          const answer = await send({
            ...target,
            method: 'PATCH',
            path: `/plants/${id}`,
            headers: { ...headers, 'content-type': 'application/merge-patch+json' },
            body: JSON.stringify({ tag: `t${Math.floor(rand() * 1000)}` }),
          });
          expect(answer.status).toBe(200);
          acknowledged.push({ id, type: 'plant.updated' });
        } else {
          const answer = await send({ ...target, method: 'DELETE', path: `/plants/${id}`, headers });
          expect(answer.status).toBe(204);
          mine.splice(mine.indexOf(id), 1);
          acknowledged.push({ id, type: 'plant.deleted' });
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    for (const agent of agents) agent.destroy();

    const log = await readLog((servers[0] as ServerProcess).url, token);
    await until(
      'both watchers at the newest change',
      () => watches.every((watch) => watch.position >= log.length),
      5000,
      {
        detail: () => `at ${watches.map((watch) => watch.position).join(', ')} of ${log.length}`,
      },
    ).finally(() => {
      for (const watch of watches) watch.stop();
    });

    expect(
      watches.map((watch) => watch.position),
      'both watchers reached the newest change',
    ).toEqual([log.length, log.length]);
    const [first, second] = watches.map((watch) => [...watch.seen]) as [[number, string][], [number, string][]];
    expect(second, 'the second instance streamed the first one’s changes, number for number and byte for byte').toEqual(
      first,
    );
    expect(
      watches.flatMap((w) => w.repeats),
      'changes a watcher was sent twice or out of order',
    ).toEqual([]);
    const plants = await readPostgres(database.url);
    expect(logProblems(log, plants, [watches[0]?.seen ?? new Map(), watches[1]?.seen ?? new Map()])).toEqual([]);
    // Every acknowledged write has its change (a patch to a tag it already had changes nothing).
    const logged = new Map<string, number>();
    for (const { type, data } of log) logged.set(`${type} ${data.id}`, (logged.get(`${type} ${data.id}`) ?? 0) + 1);
    const missing = acknowledged.filter(({ id, type }) => type !== 'plant.updated' && !logged.has(`${type} ${id}`));
    expect(missing, 'acknowledged creates and deletes without their change').toEqual([]);
    const patches = acknowledged.filter((a) => a.type === 'plant.updated').length;
    console.log(
      `changes-across-instances: ${acknowledged.length} acknowledged writes (${patches} patches) through 2 instances by ${WRITERS} writers in ${DURATION_MS} ms; ` +
        `log 1…${log.length}, both watchers read all ${log.length}, identical; its replay is the store (${plants.size} plants) (seed ${seed})`,
    );
  });
});
