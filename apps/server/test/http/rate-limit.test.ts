import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openRateLimiter } from '../../src/adapters/open-rate-limiter.js';
import { createLogger } from '../../src/logger.js';
import { createMemoryBackend } from '../../src/rate-limit/local-backends.js';
import {
  createRateLimiter,
  rateLimitPolicy,
  type RateLimitBackendName,
  type RateLimitDecision,
  type RateLimiter,
} from '../../src/rate-limit/rate-limiter.js';
import { readDocument, type Schema } from '../conformance/document.js';
import { responseProblems } from '../conformance/responses.js';
import { bearer, createPlant, expectError, request, startTestServer, type Reply, type TestServer } from './support.js';

const quiet = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, callback) => callback() }) });

/** A limiter whose memory is replaced before each test, so each starts with whole quotas and nothing sleeps between tests. */
const swappable = (make: () => RateLimiter): RateLimiter & { reset(): void } => {
  let current = make();
  return {
    get policy() {
      return current.policy;
    },
    get backend() {
      return current.backend;
    },
    take: (principal: string): Promise<RateLimitDecision> => current.take(principal),
    close: () => current.close(),
    reset: () => void (current = make()),
  };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Rate limiting over the real app on a listening socket and a real store, with the in-memory
 * rate-limiter-flexible backend (the shared stores: rate-limit-shared.test.ts and the adapters'
 * tests). The policy: RATE_LIMIT_PER_SECOND=1, RATE_LIMIT_BURST=2, i.e. 2 requests per 2-second
 * window. Each test gets fresh counters; a test's own requests take far less than the window.
 */
describe('rate limiting (RATE_LIMIT_PER_SECOND=1, RATE_LIMIT_BURST=2)', () => {
  let server: TestServer;
  const policy = rateLimitPolicy(1, 2);
  const limiter = swappable(() => createRateLimiter({ policy, backend: createMemoryBackend(policy), logger: quiet }));

  beforeAll(async () => {
    server = await startTestServer({ rateLimiter: limiter });
  });
  beforeEach(() => limiter.reset());
  afterAll(() => server.close());

  const list = (token: string): Promise<Reply> => request(server, '/plants', { headers: bearer(token) });

  const expectRateLimited = (reply: Reply) => {
    const retryAfter = reply.headers['retry-after'];
    expect(retryAfter === '1' || retryAfter === '2', `Retry-After ${String(retryAfter)}`).toBe(true);
    expectError(reply, 429, `rate limit of 1 requests per second exceeded; retry after ${retryAfter} s`);
    expect(reply.headers['ratelimit-policy']).toBe('"default";q=2;w=2');
    // The draft: on a 429, the reset equals Retry-After.
    expect(reply.headers['ratelimit']).toBe(`"default";r=0;t=${retryAfter}`);
  };

  it('lets the burst through with the RateLimit fields counting down, then answers 429 with a JSON body and Retry-After', async () => {
    const first = await list(server.tokens.all);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"default";q=2;w=2');
    expect(first.headers['ratelimit']).toMatch(/^"default";r=1;t=[12]$/);
    const second = await list(server.tokens.all);
    expect(second.status).toBe(200);
    expect(second.headers['ratelimit']).toMatch(/^"default";r=0;t=[12]$/);
    const limited = await list(server.tokens.all);
    expectRateLimited(limited);
    expect(limited.headers['link']).toBeUndefined();
  });

  it('puts the fields on every /plants answer of a checked principal: 201, 204, 404, 400', async () => {
    const created = await createPlant(server, { id: 7101, name: 'counted' });
    expect(created.status).toBe(201);
    expect(created.headers['ratelimit']).toMatch(/^"default";r=1;t=[12]$/);
    const bad = await request(server, '/plants/0', { headers: bearer(server.tokens.all) });
    expectError(bad, 400);
    expect(bad.headers['ratelimit-policy']).toBe('"default";q=2;w=2');
    expect(bad.headers['ratelimit']).toMatch(/^"default";r=0;t=[12]$/);
  });

  it('counts reads and writes of one principal in one quota, and a 429 stores nothing', async () => {
    expect((await createPlant(server, { id: 7001, name: 'first' })).status).toBe(201);
    expect((await request(server, '/plants/7001', { headers: bearer(server.tokens.all) })).status).toBe(200);
    expectRateLimited(await createPlant(server, { id: 7002, name: 'refused' }));
    expectRateLimited(await request(server, '/plants/7001', { method: 'DELETE', headers: bearer(server.tokens.all) }));
    limiter.reset();
    expect((await request(server, '/plants/7002', { headers: bearer(server.tokens.all) })).status).toBe(404);
    expect((await request(server, '/plants/7001', { headers: bearer(server.tokens.all) })).status).toBe(200);
  });

  it('leaves other principals alone', async () => {
    await list(server.tokens.all);
    await list(server.tokens.all);
    expectRateLimited(await list(server.tokens.all));
    expect((await list(server.tokens.read)).status).toBe(200);
    expect((await list(server.tokens.read)).status).toBe(200);
    expectRateLimited(await list(server.tokens.read));
  });

  it('gives the quota back when the window ends, after about Retry-After seconds', async () => {
    await list(server.tokens.all);
    await list(server.tokens.all);
    const limited = await list(server.tokens.all);
    expectRateLimited(limited);
    // Waits out Retry-After as a client would: that it is enough is what this test is about.
    await sleep(Number(limited.headers['retry-after']) * 1000 + 100);
    const again = await list(server.tokens.all);
    expect(again.status).toBe(200);
    expect(again.headers['ratelimit']).toMatch(/^"default";r=1;t=[12]$/);
  });

  it('still answers 401 and 403 to callers it cannot let in, without RateLimit fields, and those do not use up a quota', async () => {
    for (let i = 0; i < 5; i++) {
      expectError(await request(server, '/plants'), 401);
      expectError(await list(server.tokens.revoked), 401);
      expectError(await list('pst_unknown_token_0123456789'), 401);
      // the write-only token lacks plants:read: 403, nothing taken from its quota
      const forbidden = await list(server.tokens.write);
      expectError(forbidden, 403);
      expect(forbidden.headers['ratelimit']).toBeUndefined();
      expect(forbidden.headers['ratelimit-policy']).toBeUndefined();
    }
    expect((await createPlant(server, { name: 'after the 403s' }, server.tokens.write)).status).toBe(201);
    expect((await createPlant(server, { name: 'still in the burst' }, server.tokens.write)).status).toBe(201);
    expectRateLimited(await createPlant(server, { name: 'over' }, server.tokens.write));
  });

  it('checks the route and method before the limit: 404 and 405 are not rate limited', async () => {
    await list(server.tokens.all);
    await list(server.tokens.all);
    expectError(await request(server, '/nowhere', { headers: bearer(server.tokens.all) }), 404);
    expectError(await request(server, '/plants', { method: 'PUT', headers: bearer(server.tokens.all) }), 405);
    const health = await request(server, '/healthz');
    expect(health.status).toBe(200);
    expect(health.headers['ratelimit']).toBeUndefined();
  });

  it('answers 429s that the served document describes, RateLimit fields and Retry-After included', async () => {
    const doc = readDocument((await request(server, '/openapi.json')).json as Schema);
    const listOp = doc.operations.find((op) => op.id === 'listPlants');
    const deleteOp = doc.operations.find((op) => op.id === 'deletePlant');
    if (listOp === undefined || deleteOp === undefined)
      throw new Error('listPlants or deletePlant is not in the document');
    expect(listOp.responses['429']?.headers['ratelimit-policy']).toBeDefined();
    await list(server.tokens.all);
    await list(server.tokens.all);
    const limitedList = await list(server.tokens.all);
    const limitedDelete = await request(server, '/plants/1', { method: 'DELETE', headers: bearer(server.tokens.all) });
    for (const [op, reply] of [
      [listOp, limitedList],
      [deleteOp, limitedDelete],
    ] as const) {
      expect(reply.status).toBe(429);
      expect(responseProblems(doc, op, { status: reply.status, headers: reply.headers, text: reply.text })).toEqual([]);
    }
  });

  it('logs a 429 as an ordinary request line', async () => {
    await list(server.tokens.all);
    await list(server.tokens.all);
    const limited = await list(server.tokens.all);
    const line = server.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['reqId'] === limited.headers['x-request-id']);
    expect(line).toMatchObject({ level: 30, msg: 'request', status: 429, route: '/plants' });
  });
});

describe('rate limiting without rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('sends no RateLimit fields', async () => {
    const reply = await request(server, '/plants', { headers: bearer(server.tokens.all) });
    expect(reply.status).toBe(200);
    expect(reply.headers['ratelimit']).toBeUndefined();
    expect(reply.headers['ratelimit-policy']).toBeUndefined();
  });
});

describe("rate limiting when the limiter's store cannot be reached (fail open)", () => {
  let server: TestServer;
  const storeErrors: RateLimitBackendName[] = [];
  const limited: RateLimitBackendName[] = [];

  beforeAll(async () => {
    // REDIS_URL names a port nothing listens on: every check fails at once.
    const rateLimiter = await openRateLimiter({
      config: { perSecond: 1, burst: 1, store: 'redis', redisUrl: 'redis://127.0.0.1:1' },
      storeLocation: { kind: 'sqlite', file: ':memory:' },
      logger: quiet,
      onStoreError: (backend) => void storeErrors.push(backend),
      onLimited: (backend) => void limited.push(backend),
    });
    server = await startTestServer({ rateLimiter });
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves every request, with the policy but no RateLimit field, and reports each failed check', async () => {
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await request(server, '/plants', { headers: bearer(server.tokens.all) }));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const reply of replies) {
      expect(reply.headers['ratelimit-policy']).toBe('"default";q=1;w=1');
      expect(reply.headers['ratelimit']).toBeUndefined();
    }
    expect((await createPlant(server, { name: 'served unchecked' })).status).toBe(201);
    expect(storeErrors).toEqual(Array.from({ length: 7 }, () => 'redis'));
    expect(limited).toEqual([]);
  });
});
