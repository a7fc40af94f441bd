/**
 * One rate budget for the whole deployment (docs/guides/operations.md, rate limiting): two instances of the app —
 * each its own Store, its own limiter and pool, opened as main.ts opens them — over one PostgreSQL
 * schema (and, in the second suite, one Redis), hammered with one principal for a few seconds.
 *
 * The policy is 20 requests per second with bursts of 40: 40 per 2-second window, a window
 * starting with the first request after the last one ended. Under continuous demand the windows
 * follow one another, so a run of N seconds may get B × ⌈N / W⌉ answers with a 2xx — about R × N,
 * rounded up to whole windows. The run lasts 5.5 s: three windows begin (at about 0, 2 and 4 s),
 * and the last still has 1.5 s to be used up however slow the machine is, so 120 are expected;
 * two budgets, one per instance, would give about 240.
 */
import { Writable } from 'node:stream';
import { describePostgres, freshPostgresUrl, type FreshPostgres, until } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRateLimiter } from '../../src/adapters/open-rate-limiter.js';
import { openStore } from '../../src/adapters/open-store.js';
import type { RateLimitConfig } from '../../src/config/rate-limit.js';
import { createLogger } from '../../src/logger.js';
import type { RateLimitBackendName } from '../../src/rate-limit/rate-limiter.js';
import { describeRedis, redisTestUrl } from '../support/redis.js';
import { bearer, request, startTestServer, type TestServer } from './support.js';

const RATE = 20;
const BURST = 40;
const WINDOW_MS = (BURST / RATE) * 1000;
/** Three windows begin in the run; it ends half-way through the third one, far from any boundary. */
const RUN_MS = 5_500;
/** Requests in flight at any time, half at each instance. */
const CONCURRENCY = 8;

const quiet = () =>
  createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, callback) => callback() }) });

interface Tally {
  readonly ok: number[];
  readonly limited: number[];
  readonly other: number[];
  readonly elapsedMs: number;
}

/** Sends GET /plants with `token` from CONCURRENCY loops, alternating instances, for RUN_MS. */
const hammer = async (servers: readonly [TestServer, TestServer], token: string): Promise<Tally> => {
  const tally = { ok: [0, 0], limited: [0, 0], other: [0, 0] };
  const started = Date.now();
  const deadline = started + RUN_MS;
  const loop = async (which: 0 | 1): Promise<void> => {
    while (Date.now() < deadline) {
      const reply = await request(servers[which], '/plants?limit=1', { headers: bearer(token) });
      const bucket = reply.status === 200 ? tally.ok : reply.status === 429 ? tally.limited : tally.other;
      bucket[which] = (bucket[which] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => loop((i % 2) as 0 | 1)));
  return { ...tally, elapsedMs: Date.now() - started };
};

const sharedBudgetSuite = (store: 'postgres' | 'redis', databaseUrl: () => string) => {
  let a: TestServer;
  let b: TestServer;
  const storeErrors: RateLimitBackendName[] = [];

  beforeAll(async () => {
    const config: RateLimitConfig = {
      perSecond: RATE,
      burst: BURST,
      store,
      redisUrl: store === 'redis' ? redisTestUrl : undefined,
    };
    const open = async (prefix: string) =>
      startTestServer({
        open: () => openStore({ kind: 'postgres', url: databaseUrl() }),
        tokenPrefix: prefix,
        rateLimiter: await openRateLimiter({
          config,
          storeLocation: { kind: 'postgres', url: databaseUrl() },
          logger: quiet(),
          onStoreError: (backend) => void storeErrors.push(backend),
        }),
      });
    a = await open('a-');
    b = await open('b-');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it(`allows one principal B per window across both instances, within 10 % (${store})`, async () => {
    // A Redis client connects in the background; wait until a check is really made.
    await until(
      'a rate limit check made through the shared store',
      async () =>
        (await request(a, '/plants?limit=1', { headers: bearer(a.tokens.read) })).headers['ratelimit'] !== undefined,
    );
    storeErrors.length = 0;
    // The token the run uses has not been checked yet: its first window starts with the run.
    const tally = await hammer([a, b], a.tokens.all);
    const allowed = (tally.ok[0] ?? 0) + (tally.ok[1] ?? 0);
    const expected = BURST * Math.ceil(RUN_MS / WINDOW_MS);
    console.log(
      `shared budget (${store}): ${allowed} allowed (${tally.ok[0]} at A, ${tally.ok[1]} at B), expected ≈ ${expected}; ` +
        `${(tally.limited[0] ?? 0) + (tally.limited[1] ?? 0)} refused with 429, in ${tally.elapsedMs} ms`,
    );
    expect(tally.other).toEqual([0, 0]);
    expect(storeErrors).toEqual([]);
    // Far more was asked than allowed, at both instances, and both served part of the budget.
    expect(tally.limited[0]).toBeGreaterThan(0);
    expect(tally.limited[1]).toBeGreaterThan(0);
    expect(tally.ok[0]).toBeGreaterThan(0);
    expect(tally.ok[1]).toBeGreaterThan(0);
    expect(Math.abs(allowed - expected)).toBeLessThanOrEqual(expected * 0.1);
  });
};

describePostgres('one rate budget for two instances on one PostgreSQL', () => {
  let pg: FreshPostgres;
  beforeAll(async () => {
    pg = await freshPostgresUrl();
  });
  afterAll(async () => {
    await pg?.drop();
  });
  sharedBudgetSuite('postgres', () => pg.url);
});

// The two instances share their tokens through PostgreSQL; their rate counters are in Redis.
describePostgres('one rate budget for two instances on one Redis', () => {
  let pg: FreshPostgres;
  beforeAll(async () => {
    pg = await freshPostgresUrl();
  });
  afterAll(async () => {
    await pg?.drop();
  });
  describeRedis('with REDIS_URL', () => sharedBudgetSuite('redis', () => pg.url));
});
