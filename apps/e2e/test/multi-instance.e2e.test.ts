import { createPlantStoreClient, NotFoundError, ConflictError, PreconditionFailedError } from '@plant-store/client';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

/**
 * Several stateless instances over one PostgreSQL database: what one instance acknowledges, the
 * other sees, and races across instances end exactly as docs/reference/api.md says.
 */
describePostgres('two server processes over one PostgreSQL database', () => {
  let database: FreshPostgres;
  let servers: ServerProcess[] = [];
  let token: string;

  beforeAll(async () => {
    database = await freshPostgresUrl();
    // both instances start at once: migrations must be safe under the race
    servers = await Promise.all([
      startServer({ DATABASE_URL: database.url }),
      startServer({ DATABASE_URL: database.url }),
    ]);
    // a token made with the CLI works on every instance
    token = await createToken(database.url, 'multi');
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  const clientOf = (index: number) =>
    createPlantStoreClient({ baseUrl: servers[index]!.url, token, retry: { limit: 0 } }).plants;

  it('a plant created through one instance is read and deleted through the other', async () => {
    const created = await clientOf(0).create({ name: 'Shared', tag: 'pg' });
    expect(await clientOf(1).get(created.id)).toEqual(created);
    await clientOf(1).delete(created.id);
    await expect(clientOf(0).get(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('server-assigned ids from both instances never collide with each other or with chosen ids', async () => {
    await clientOf(0).create({ id: 5_000_000, name: 'Chosen' });
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => clientOf(i % 2).create({ name: `auto ${i}` })));
    const ids = new Set<number>(made.map((plant) => plant.id));
    expect(ids.size).toBe(40);
    expect(ids.has(5_000_000)).toBe(false);
  });

  it('concurrent creates of one id across both → exactly one 201, the rest 409', async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => clientOf(i % 2).create({ id: 8_000_001, name: `racer ${i}` })),
    );
    const won = attempts.filter((a) => a.status === 'fulfilled');
    const lost = attempts.filter((a) => a.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(49);
    for (const a of lost) expect((a as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    const stored = await clientOf(1).get(8_000_001);
    expect(stored).toEqual((won[0] as PromiseFulfilledResult<unknown>).value);
  });

  it('concurrent patches of one plant with the same ETag across both → exactly one 200, the rest 412', async () => {
    const created = await clientOf(0).create({ id: 8_000_003, name: 'Contested', tag: 'v1' });
    const etag = created.etag as string;
    expect(etag).toMatch(/^"[0-9a-z]+"$/);
    // The ETag of the 201 is the one the other instance shows.
    expect((await clientOf(1).get(8_000_003)).etag).toBe(etag);
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        clientOf(i % 2).update(8_000_003, { name: `writer ${i}` }, { ifMatch: etag }),
      ),
    );
    const won = attempts.filter((a) => a.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const a of attempts.filter((a) => a.status === 'rejected')) {
      expect((a as PromiseRejectedResult).reason).toBeInstanceOf(PreconditionFailedError);
    }
    const winner = (won[0] as PromiseFulfilledResult<{ name: string; etag: string }>).value;
    const stored = await clientOf(1).get(8_000_003);
    expect(stored).toEqual({ id: 8_000_003, name: winner.name, tag: 'v1' });
    expect(stored.etag).toBe(winner.etag);
    expect(winner.etag).not.toBe(etag);
  });

  it('concurrent deletes of one plant across both → exactly one 204, the rest 404', async () => {
    await clientOf(0).create({ id: 8_000_002, name: 'Doomed' });
    const attempts = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => clientOf(i % 2).delete(8_000_002)));
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    const lost = attempts.filter((a) => a.status === 'rejected');
    expect(lost).toHaveLength(19);
    for (const a of lost) expect((a as PromiseRejectedResult).reason).toBeInstanceOf(NotFoundError);
  });

  it('concurrent PUTs of one new id across both → exactly one creates it, every answer a state it had', async () => {
    const puts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => clientOf(i % 2).put(8_000_004, { name: `writer ${i}` })),
    );
    expect(puts.filter((p) => p.created)).toHaveLength(1);
    puts.forEach((p, i) => expect(p).toEqual({ id: 8_000_004, name: `writer ${i}` }));
    // In change order, the last answer is what both instances hold.
    const last = puts.reduce((a, b) => ((a.changeSeq ?? 0) > (b.changeSeq ?? 0) ? a : b));
    expect(new Set(puts.map((p) => p.changeSeq)).size).toBe(20);
    for (const index of [0, 1]) {
      const stored = await clientOf(index).get(8_000_004);
      expect(stored).toEqual(last);
      expect(stored.etag).toBe(last.etag);
    }
  });
});
