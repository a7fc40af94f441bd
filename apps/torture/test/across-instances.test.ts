import http from 'node:http';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorBodyProblems, send, type SimpleResponse } from './support/http.js';
import { knobs } from './support/knobs.js';
import { startServer, type ServerProcess } from './support/processes.js';
import { readPostgres } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * Across instances: two server processes over one PostgreSQL database; rounds of
 * duplicate-id creates and then deletes race across both. docs/reference/api.md: exactly one create gets 201
 * (the rest 409, nothing changed) and exactly one delete gets 204 (the rest 404).
 */

const RACERS = 16;

describePostgres('duplicate-id races across two instances over one PostgreSQL', () => {
  let database: FreshPostgres;
  let servers: ServerProcess[] = [];
  let token: string;
  const agents = [
    new http.Agent({ keepAlive: true, maxSockets: RACERS }),
    new http.Agent({ keepAlive: true, maxSockets: RACERS }),
  ];

  beforeAll(async () => {
    database = await freshPostgresUrl();
    token = await createToken(database.url, 'across');
    servers = await Promise.all([
      startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }),
      startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' }),
    ]);
  });

  afterAll(async () => {
    for (const agent of agents) agent.destroy();
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  const rounds = Math.max(5, knobs.rounds * 2);

  it(`${rounds} rounds: exactly one 201 (rest 409) and exactly one 204 (rest 404) per id`, async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const on = (i: number) => ({ agent: agents[i % 2] as http.Agent, port: (servers[i % 2] as ServerProcess).port });
    const problems: string[] = [];
    const kept = new Map<number, string>();
    let requests = 0;
    const statusesOf = (responses: readonly SimpleResponse[]) =>
      responses
        .map((r) => r.status)
        .sort()
        .join(',');

    for (let round = 1; round <= rounds; round++) {
      const id = 7_000_000 + round;
      const creates = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          send({
            ...on(i),
            method: 'POST',
            path: '/plants',
            headers,
            body: JSON.stringify({ id, name: `racer ${round}.${i}` }),
          }),
        ),
      );
      requests += creates.length;
      const won = creates.filter((r) => r.status === 201);
      const conflicts = creates.filter((r) => r.status === 409);
      if (won.length !== 1 || conflicts.length !== RACERS - 1)
        problems.push(`round ${round} creates: ${statusesOf(creates)}`);
      for (const r of conflicts)
        problems.push(
          ...errorBodyProblems(409, r.headers['content-type'], r.body).map((p) => `round ${round} 409: ${p}`),
        );
      const winner = won[0];
      if (winner === undefined) continue;
      if (winner.headers.location !== `/plants/${id}`)
        problems.push(`round ${round}: Location ${winner.headers.location}`);
      const winnerName = (JSON.parse(winner.body) as { name: string }).name;

      // both instances see the winner, not one of the losers
      for (let i = 0; i < 2; i++) {
        const read = await send({ ...on(i), method: 'GET', path: `/plants/${id}`, headers });
        requests++;
        if (read.status !== 200 || (JSON.parse(read.body) as { name: string }).name !== winnerName) {
          problems.push(`round ${round}: instance ${i} reads ${read.status} ${read.body}, winner was ${winnerName}`);
        }
      }

      if (round % 5 === 0) {
        kept.set(id, winnerName); // every fifth plant stays, to check the table at the end
        continue;
      }
      const deletes = await Promise.all(
        Array.from({ length: RACERS }, (_, i) => send({ ...on(i), method: 'DELETE', path: `/plants/${id}`, headers })),
      );
      requests += deletes.length;
      const removed = deletes.filter((r) => r.status === 204);
      const missing = deletes.filter((r) => r.status === 404);
      if (removed.length !== 1 || missing.length !== RACERS - 1)
        problems.push(`round ${round} deletes: ${statusesOf(deletes)}`);
      for (const r of missing)
        problems.push(
          ...errorBodyProblems(404, r.headers['content-type'], r.body).map((p) => `round ${round} 404: ${p}`),
        );
    }

    expect(problems.slice(0, 20), `${problems.length} problems`).toEqual([]);
    const stored = await readPostgres(database.url);
    expect(new Map([...stored].map(([id, p]) => [id, p.name]))).toEqual(kept);
    console.log(
      `across-instances: ${rounds} rounds of ${RACERS} creates + ${RACERS} deletes of one id over 2 instances (${requests} requests): ` +
        `every round exactly one 201 and one 204, ${kept.size} winners kept and found`,
    );
  });
});
