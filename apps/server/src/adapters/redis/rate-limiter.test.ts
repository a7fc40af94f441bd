import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { until } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeRedis, redisTestUrl } from '../../../test/support/redis.js';
import { createLogger } from '../../logger.js';
import {
  createRateLimiter,
  rateLimitPolicy,
  type RateLimitBackendName,
  type RateLimiter,
} from '../../rate-limit/rate-limiter.js';
import { openRedisRateLimiter } from './rate-limiter.js';

const capture = () => {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      callback();
    },
  });
  return { lines, logger: createLogger({ level: 'warn', destination }) };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeRedis('the Redis rate limiter (RateLimiterRedis over ioredis)', () => {
  const policy = rateLimitPolicy(3, 6);
  let a: RateLimiter;
  let b: RateLimiter;
  beforeAll(async () => {
    a = createRateLimiter({
      policy,
      backend: openRedisRateLimiter({ url: redisTestUrl, policy }),
      logger: capture().logger,
    });
    b = createRateLimiter({
      policy,
      backend: openRedisRateLimiter({ url: redisTestUrl, policy }),
      logger: capture().logger,
    });
    // Connected (a check before that is served unchecked, by design).
    await until(
      'both limiters connected to Redis',
      async () => (await a.take('warm-up')).kind !== 'unchecked' && (await b.take('warm-up')).kind !== 'unchecked',
    );
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('shares one quota between two clients of one Redis, with the window in seconds', async () => {
    const principal = `p-${randomUUID()}`;
    const decisions = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).take(principal)));
    expect(decisions.filter((d) => d.kind === 'allowed')).toHaveLength(6);
    const limited = decisions.filter((d) => d.kind === 'limited');
    expect(limited).toHaveLength(4);
    for (const d of limited) expect(d.resetSeconds === 1 || d.resetSeconds === 2).toBe(true);
    const remaining = decisions.flatMap((d) => (d.kind === 'allowed' ? [d.remaining] : [])).sort((x, y) => x - y);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('gives the quota back when the window ends', async () => {
    const principal = `q-${randomUUID()}`;
    for (let i = 0; i < 6; i++) expect((await a.take(principal)).kind).toBe('allowed');
    expect((await b.take(principal)).kind).toBe('limited');
    await sleep(2100); // the 2 s window running out is what this test is about
    expect(await b.take(principal)).toMatchObject({ kind: 'allowed', remaining: 5 });
  });
});

describeRedis('the Redis rate limiter when Redis is not there (fail open)', () => {
  it('serves every check unchecked at once, calls onStoreError each time and logs one line', async () => {
    const { lines, logger } = capture();
    const policy = rateLimitPolicy(1, 1);
    const errors: RateLimitBackendName[] = [];
    // Nothing listens on port 1.
    const limiter = createRateLimiter({
      policy,
      backend: openRedisRateLimiter({ url: 'redis://127.0.0.1:1', policy }),
      logger,
      onStoreError: (backend) => void errors.push(backend),
    });
    try {
      for (let i = 0; i < 5; i++) expect(await limiter.take('someone')).toEqual({ kind: 'unchecked' });
      expect(errors).toEqual(['redis', 'redis', 'redis', 'redis', 'redis']);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        level: 40,
        rateLimitStore: 'redis',
        msg: expect.stringContaining('fail open'),
      });
    } finally {
      await limiter.close();
    }
  });

  it('fails each check at once while the connection is not ready, never by waiting for it', async () => {
    // A listener that accepts and never answers: the client stays connecting (its ready check
    // unanswered). A check that waited for the connection would end only by the limiter's own time
    // limit, as a StoreTimeout; one that fails at once ends with the client's error. How long a
    // check takes is the bench's to measure (the `sqlite FULL +redis down` row).
    const accepted: Socket[] = [];
    const silent = createServer((socket) => void accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const policy = rateLimitPolicy(1, 1);
    const errors: unknown[] = [];
    const limiter = createRateLimiter({
      policy,
      backend: openRedisRateLimiter({ url: `redis://127.0.0.1:${port}`, policy, timeoutMs: 60_000 }),
      logger: capture().logger,
      onStoreError: (_backend, error) => void errors.push(error),
    });
    try {
      await expect.poll(() => accepted.length).toBe(1);
      for (let i = 0; i < 5; i++) expect(await limiter.take('someone')).toEqual({ kind: 'unchecked' });
      expect(errors.map((e) => (e instanceof Error ? e.name : typeof e))).not.toContain('StoreTimeout');
      expect(errors).toHaveLength(5);
    } finally {
      await limiter.close();
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
