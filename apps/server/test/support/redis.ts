/**
 * Redis for tests, with testkit's skip-or-fail rule (describeUnlessMissing): when no Redis
 * answers at REDIS_TEST_URL (default redis://127.0.0.1:6379), the suite is skipped with one line
 * outside CI and fails with the reason when CI=true.
 */
import { Redis } from 'ioredis';
import { describeUnlessMissing } from '@plant-store/testkit';

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

export const describeRedis = (name: string, fn: () => void): void =>
  describeUnlessMissing(
    'Redis',
    reachable ? undefined : `no Redis reachable at ${redisTestUrl} (set REDIS_TEST_URL or start Redis)`,
    name,
    fn,
  );
