import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

/**
 * One rate budget for every worker of WORKERS=2 (the real server process): with the counters in
 * PostgreSQL (the default with a postgres:// DATABASE_URL) and in the cluster primary's memory
 * (RATE_LIMIT_STORE=cluster, asked over IPC). Each request goes on a new connection, so node:cluster
 * hands them to both workers in turn. RATE_LIMIT_PER_SECOND=10 RATE_LIMIT_BURST=20: 20 requests
 * per 2-second window, back to back under continuous demand. A run of 5.5 s begins three windows
 * (at about 0, 2 and 4 s) and ends half-way through the third, far from any boundary: 60 answers
 * with a 2xx — one budget per worker would give about twice that.
 */
const RATE = 10;
const BURST = 20;
const RUN_MS = 5_500;
const WINDOW_MS = (BURST / RATE) * 1000;

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
}

const get = (url: string, token: string): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = request(
      `${url}/plants?limit=1`,
      { agent: false, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });

const hammer = async (url: string, token: string): Promise<{ ok: number; limited: number; other: number[] }> => {
  const tally = { ok: 0, limited: 0, other: [] as number[] };
  const deadline = Date.now() + RUN_MS;
  const loop = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const reply = await get(url, token);
      if (reply.status === 200) tally.ok += 1;
      else if (reply.status === 429) tally.limited += 1;
      else tally.other.push(reply.status);
    }
  };
  await Promise.all(Array.from({ length: 6 }, loop));
  return tally;
};

const workersSuite = (store: 'postgres' | 'cluster') =>
  describePostgres(`WORKERS=2 with the rate counters in ${store}: one budget`, () => {
    let database: FreshPostgres;
    let server: ServerProcess;
    let token: string;

    beforeAll(async () => {
      database = await freshPostgresUrl();
      token = await createToken(database.url, `rate-${store}`);
      server = await startServer({
        DATABASE_URL: database.url,
        WORKERS: '2',
        RATE_LIMIT_PER_SECOND: String(RATE),
        RATE_LIMIT_BURST: String(BURST),
        ...(store === 'cluster' ? { RATE_LIMIT_STORE: 'cluster' } : {}),
      });
    });
    afterAll(async () => {
      await server?.stop('SIGKILL');
      await database?.drop();
    });

    it(`allows B per window across both workers, within 10 % (${store})`, async () => {
      // Both workers listening and answering with the fields (a worker still starting would refuse the connection).
      for (let i = 0; i < 4; i++)
        expect((await get(server.url, token)).headers['ratelimit-policy']).toBe('"default";q=20;w=2');
      // Waits out the 2 s window the probes above used, so the run starts on a fresh quota.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const tally = await hammer(server.url, token);
      const expected = BURST * Math.ceil(RUN_MS / WINDOW_MS);
      console.log(
        `WORKERS=2, ${store}: ${tally.ok} allowed, expected ≈ ${expected}; ${tally.limited} refused with 429`,
      );
      expect(tally.other).toEqual([]);
      expect(tally.limited).toBeGreaterThan(0);
      expect(Math.abs(tally.ok - expected)).toBeLessThanOrEqual(expected * 0.1);
      const listening = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"listening"'));
      expect(listening).toHaveLength(2);
      for (const line of listening)
        expect(line).toContain(`"rateLimit":{"perSecond":${RATE},"burst":${BURST},"store":"${store}"}`);
    });
  });

workersSuite('postgres');
workersSuite('cluster');
