import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/http/rate-limiter.js';
import { bearer, createPlant, expectError, request, startTestServer, type Reply, type TestServer } from './support.js';

/**
 * Rate limiting over the real app on a listening socket and a real SQLite file. The limiter's
 * clock is a fake one the tests move, so nothing sleeps and nothing depends on the machine's speed.
 */
describe('rate limiting (RATE_LIMIT_PER_SECOND=1, RATE_LIMIT_BURST=2)', () => {
  let server: TestServer;
  let ms = 0;
  const advance = (by: number) => void (ms += by);
  /** Refills every bucket: long past the burst at 1 token per second. */
  const refillAll = () => advance(10_000);

  beforeAll(async () => {
    server = await startTestServer({ rateLimiter: createRateLimiter({ ratePerSecond: 1, burst: 2, now: () => ms }) });
  });
  afterAll(() => server.close());

  const list = (token: string): Promise<Reply> => request(server, '/plants', { headers: bearer(token) });

  const expectRateLimited = (reply: Reply, retryAfter: string) => {
    expectError(reply, 429, `rate limit of 1 requests per second exceeded; retry after ${retryAfter} s`);
    expect(reply.headers['retry-after']).toBe(retryAfter);
  };

  it('lets a burst through, then answers 429 with a JSON body and Retry-After', async () => {
    refillAll();
    expect((await list(server.tokens.all)).status).toBe(200);
    expect((await list(server.tokens.all)).status).toBe(200);
    const limited = await list(server.tokens.all);
    expectRateLimited(limited, '1');
    expect(limited.headers['link']).toBeUndefined();
  });

  it('counts reads and writes of one principal in one bucket, and a 429 stores nothing', async () => {
    refillAll();
    expect((await createPlant(server, { id: 7001, name: 'first' })).status).toBe(201);
    expect((await request(server, '/plants/7001', { headers: bearer(server.tokens.all) })).status).toBe(200);
    expectRateLimited(await createPlant(server, { id: 7002, name: 'refused' }), '1');
    expectRateLimited(await request(server, '/plants/7001', { method: 'DELETE', headers: bearer(server.tokens.all) }), '1');
    refillAll();
    expect((await request(server, '/plants/7002', { headers: bearer(server.tokens.all) })).status).toBe(404);
    expect((await request(server, '/plants/7001', { headers: bearer(server.tokens.all) })).status).toBe(200);
  });

  it('leaves other principals alone', async () => {
    refillAll();
    await list(server.tokens.all);
    await list(server.tokens.all);
    expectRateLimited(await list(server.tokens.all), '1');
    expect((await list(server.tokens.read)).status).toBe(200);
    expect((await list(server.tokens.read)).status).toBe(200);
    expectRateLimited(await list(server.tokens.read), '1');
  });

  it('recovers as tokens come back at the rate', async () => {
    refillAll();
    await list(server.tokens.all);
    await list(server.tokens.all);
    expectRateLimited(await list(server.tokens.all), '1');
    advance(500);
    expectRateLimited(await list(server.tokens.all), '1');
    advance(500);
    expect((await list(server.tokens.all)).status).toBe(200);
    expectRateLimited(await list(server.tokens.all), '1');
    advance(2_000);
    expect((await list(server.tokens.all)).status).toBe(200);
    expect((await list(server.tokens.all)).status).toBe(200);
  });

  it('still answers 401 and 403 to callers it cannot let in, and those do not use up a bucket', async () => {
    refillAll();
    for (let i = 0; i < 5; i++) {
      expectError(await request(server, '/plants'), 401);
      expectError(await list(server.tokens.revoked), 401);
      expectError(await list('pst_unknown_token_0123456789'), 401);
      // the write-only token lacks plants:read: 403, nothing taken from its bucket
      expectError(await list(server.tokens.write), 403);
    }
    expect((await createPlant(server, { name: 'after the 403s' }, server.tokens.write)).status).toBe(201);
    expect((await createPlant(server, { name: 'still in the burst' }, server.tokens.write)).status).toBe(201);
    expectRateLimited(await createPlant(server, { name: 'over' }, server.tokens.write), '1');
  });

  it('checks the route and method before the limit: 404 and 405 are not rate limited', async () => {
    refillAll();
    await list(server.tokens.all);
    await list(server.tokens.all);
    expectError(await request(server, '/nowhere', { headers: bearer(server.tokens.all) }), 404);
    expectError(await request(server, '/plants', { method: 'PUT', headers: bearer(server.tokens.all) }), 405);
    expect((await request(server, '/healthz')).status).toBe(200);
  });

  it('logs a 429 as an ordinary request line', async () => {
    refillAll();
    await list(server.tokens.all);
    await list(server.tokens.all);
    const limited = await list(server.tokens.all);
    const line = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['reqId'] === limited.headers['x-request-id']);
    expect(line).toMatchObject({ level: 30, msg: 'request', status: 429, route: '/plants' });
  });
});
