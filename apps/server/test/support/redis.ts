/**
 * Redis for tests, with PostgreSQL's skip-or-fail rule (testkit's describePostgres): when no Redis
 * answers at REDIS_TEST_URL (default redis://127.0.0.1:6379), the suite is skipped with one line
 * outside CI and fails with the reason when CI=true.
 */
import { Redis } from 'ioredis';
import { describe, it } from 'vitest';

export const redisTestUrl: string = process.env['REDIS_TEST_URL'] ?? 'redis://127.0.0.1:6379';

const probe = async (): Promise<boolean> => {
  const client = new Redis(redisTestUrl, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
};

const reachable = await probe();
const inCi = process.env['CI'] === 'true';

export const describeRedis = (name: string, fn: () => void): void => {
  if (reachable) {
    describe(name, fn);
  } else if (inCi) {
    describe(name, () => {
      it('needs Redis (CI=true, so this fails instead of skipping)', () => {
        throw new Error(`Redis is not reachable at ${redisTestUrl}; set REDIS_TEST_URL or start Redis`);
      });
    });
  } else {
    console.log(
      `Redis tests skipped: no Redis reachable at ${redisTestUrl} (set REDIS_TEST_URL; CI=true fails instead)`,
    );
    describe.skip(name, fn);
  }
};
