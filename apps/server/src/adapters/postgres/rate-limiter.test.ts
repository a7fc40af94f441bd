import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describePostgres, freshPostgresUrl, openAdminSql, type FreshPostgres, until } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../logger.js';
import {
  createRateLimiter,
  rateLimitPolicy,
  type RateLimitBackendName,
  type RateLimiter,
} from '../../rate-limit/rate-limiter.js';
import { openPostgresRateLimiter, RATE_LIMIT_TABLE } from './rate-limiter.js';

const quietLogger = () =>
  createLogger({
    level: 'warn',
    destination: new Writable({
      write: (_chunk, _encoding, callback) => callback(),
    }),
  });

describePostgres("the PostgreSQL rate limiter (RateLimiterPostgres over the store's driver)", () => {
  const policy = rateLimitPolicy(5, 10);
  let pg: FreshPostgres;
  let a: RateLimiter;
  let b: RateLimiter;
  const storeErrors: RateLimitBackendName[] = [];

  beforeAll(async () => {
    pg = await freshPostgresUrl();
    // Two limiters, two pools: as two instances of the server would have.
    const open = async () =>
      createRateLimiter({
        policy,
        backend: await openPostgresRateLimiter({ url: pg.url, policy }),
        logger: quietLogger(),
        onStoreError: (backend) => void storeErrors.push(backend),
      });
    [a, b] = await Promise.all([open(), open()]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pg?.drop();
  });

  it('creates its table in the schema DATABASE_URL selects', async () => {
    const admin = openAdminSql();
    try {
      const rows =
        await admin`select 1 from information_schema.tables where table_schema = ${pg.schema} and table_name = ${RATE_LIMIT_TABLE}`;
      expect(rows).toHaveLength(1);
    } finally {
      await admin.end();
    }
  });

  it('shares one quota between two limiters on one database', async () => {
    const principal = `p-${randomUUID()}`;
    const decisions = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? a : b).take(principal)));
    expect(decisions.filter((d) => d.kind === 'allowed')).toHaveLength(10);
    expect(decisions.filter((d) => d.kind === 'limited')).toHaveLength(6);
    const remaining = decisions.flatMap((d) => (d.kind === 'allowed' ? [d.remaining] : [])).sort((x, y) => x - y);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const d of decisions) if (d.kind === 'limited') expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
    // Another principal is untouched.
    expect(await b.take(`q-${randomUUID()}`)).toMatchObject({ kind: 'allowed', remaining: 9 });
    expect(storeErrors).toEqual([]);
  });

  it('fails open when its table is gone: requests are allowed unchecked and onStoreError says so', async () => {
    const admin = openAdminSql();
    try {
      await admin.unsafe(`drop table "${pg.schema}"."${RATE_LIMIT_TABLE}"`);
    } finally {
      await admin.end();
    }
    const principal = `r-${randomUUID()}`;
    for (let i = 0; i < 12; i++) expect(await a.take(principal)).toEqual({ kind: 'unchecked' });
    expect(storeErrors).toEqual(Array.from({ length: 12 }, () => 'postgres'));
  });
});

describePostgres('the PostgreSQL rate limiter when a statement does not answer', () => {
  it('gives up on it within its timeout and checks again on fresh connections once the table is free', async () => {
    const fresh = await freshPostgresUrl();
    const policy = rateLimitPolicy(5, 10);
    const backend = await openPostgresRateLimiter({ url: fresh.url, policy, timeoutMs: 300 });
    const admin = openAdminSql();
    try {
      const key = `k-${randomUUID()}`;
      await backend.consume(key);
      // A transaction holding the table: the next upsert waits for it, as it would for a
      // database that no longer answers.
      let locked = false;
      let released = false;
      const held = admin
        .begin(async (tx) => {
          await tx.unsafe(`lock table "${fresh.schema}"."${RATE_LIMIT_TABLE}" in access exclusive mode`);
          locked = true;
          // Held five times the limiter's timeout: the subject of the test is the limiter giving up first.
          await new Promise((resolve) => setTimeout(resolve, 1500));
        })
        .finally(() => (released = true));
      await until('the table lock', () => locked);
      const blocked = await backend.consume(key).then(
        () => 'answered',
        (error: unknown) => (error as { code?: string }).code,
      );
      expect(blocked).toBe('QUERY_TIMEOUT');
      // It gave up while the table was still held, not once the lock was gone.
      expect(released).toBe(false);
      await held;
      // The limiter connects afresh and counts on. The abandoned upsert may still land once the
      // lock is free (the server learns of the cut only when it answers): 2 or 3 taken of 10.
      const next = await backend.consume(key);
      expect([7, 8]).toContain(next.remainingPoints);
    } finally {
      await admin.end();
      await backend.close();
      await fresh.drop();
    }
  });
});

describePostgres('the PostgreSQL rate limiter when instances start together', () => {
  it('opens in each of six instances starting at once on a new schema, five times over', async () => {
    for (let round = 0; round < 5; round += 1) {
      const fresh = await freshPostgresUrl();
      try {
        const opened = await Promise.allSettled(
          Array.from({ length: 6 }, () => openPostgresRateLimiter({ url: fresh.url, policy: rateLimitPolicy(1, 1) })),
        );
        for (const o of opened) if (o.status === 'fulfilled') await o.value.close();
        expect(opened.map((o) => (o.status === 'rejected' ? String((o.reason as Error).cause) : 'open'))).toEqual(
          Array.from({ length: 6 }, () => 'open'),
        );
      } finally {
        await fresh.drop();
      }
    }
  });
});

describePostgres('the PostgreSQL rate limiter when PostgreSQL is not there', () => {
  it('refuses to open (start-up stops, as it does for the store)', async () => {
    await expect(
      openPostgresRateLimiter({
        url: 'postgres://postgres@127.0.0.1:1/test',
        policy: rateLimitPolicy(1, 1),
        timeoutMs: 500,
      }),
    ).rejects.toThrow(/could not prepare the rate limiter table/);
  });
});
