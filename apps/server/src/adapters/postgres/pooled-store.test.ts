import { randomUUID } from 'node:crypto';
import {
  describePostgres,
  describeUnlessMissing,
  freshPostgresDatabase,
  pgbouncerMissing,
  pgTestUrl,
  startPooler,
  type FreshPostgresDatabase,
  type Pooler,
} from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { plantStoreContract } from '../../../test/contract/plant-store-contract.js';
import { webhookStoreContract } from '../../../test/contract/webhook-store-contract.js';
import { recordingLogger } from '../../../test/support/postgres-store.js';
import { rateLimitPolicy } from '../../rate-limit/rate-limiter.js';
import { openPostgresStore } from './open.js';
import { openPostgresRateLimiter } from './rate-limiter.js';

// The store contract through Debian's PgBouncer in transaction pooling mode, started here in front
// of the test server, on a database of its own (a pooler refuses the `options` parameter that
// picks a schema per connection). The pooler restarted under load: apps/torture's pooler round.

const target = new URL(pgTestUrl);

describePostgres('PostgreSQL store through PgBouncer (transaction mode)', () => {
  describeUnlessMissing('PgBouncer', pgbouncerMissing(), 'through PgBouncer', () => {
    let db: FreshPostgresDatabase | undefined;
    let pooler: Pooler | undefined;
    const pooled = async (): Promise<Pooler> => {
      if (pooler !== undefined) return pooler;
      db = await freshPostgresDatabase();
      const started = await startPooler({
        host: target.hostname,
        port: Number(target.port || 5432),
        database: db.database,
      });
      if (typeof started === 'string') throw new Error(started);
      pooler = started;
      return pooler;
    };
    beforeAll(async () => {
      await pooled();
    });
    afterAll(async () => {
      await pooler?.close();
      await db?.drop();
    });

    // A pool bigger than PgBouncer's per-database pool of server connections would be the usual
    // deployment; 4 keeps the contract's concurrency tests contending all the same.
    plantStoreContract('PostgreSQL through PgBouncer', async () =>
      openPostgresStore({ url: (await pooled()).url, poolSize: 4 }),
    );
    webhookStoreContract('PostgreSQL through PgBouncer', async () =>
      openPostgresStore({ url: (await pooled()).url, poolSize: 4 }),
    );

    it('says at start-up that it found a pooler, and refuses a schema it cannot choose there', async () => {
      const logger = recordingLogger();
      const store = await openPostgresStore({ url: (await pooled()).url, poolSize: 2, logger });
      await store.close();
      expect(logger.lines.map((line) => line.msg)).toContainEqual(
        expect.stringMatching(/behind a pooler in transaction mode/),
      );
      await expect(openPostgresStore({ url: (await pooled()).url, schema: 'elsewhere' })).rejects.toThrow(
        /behind a pooler, where a schema cannot be chosen per connection/,
      );
    });

    it('migrates over DATABASE_DIRECT_URL when it is set, and says so when that cannot be reached', async () => {
      const through = (await pooled()).url;
      const store = await openPostgresStore({ url: through, directUrl: db?.url ?? '', poolSize: 2 });
      await store.close();
      await expect(
        openPostgresStore({
          url: through,
          directUrl: 'postgres://postgres@127.0.0.1:1/nowhere',
          poolSize: 2,
          acquireTimeoutMs: 500,
        }),
      ).rejects.toThrow(
        /migrating PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/nowhere \(DATABASE_DIRECT_URL\) failed/,
      );
    });

    it('counts rate limits through it, two limiters sharing one quota', async () => {
      const policy = rateLimitPolicy(5, 10);
      const url = (await pooled()).url;
      const [a, b] = await Promise.all([
        openPostgresRateLimiter({ url, policy }),
        openPostgresRateLimiter({ url, policy }),
      ]);
      try {
        const key = `k-${randomUUID()}`;
        const outcomes = await Promise.all(
          Array.from({ length: 14 }, (_, i) =>
            (i % 2 === 0 ? a : b).consume(key).then(
              () => 'allowed',
              (rejected: unknown) => (rejected instanceof Error ? rejected.message : 'limited'),
            ),
          ),
        );
        expect(outcomes.filter((o) => o === 'allowed')).toHaveLength(10);
        expect(outcomes.filter((o) => o === 'limited')).toHaveLength(4);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});
