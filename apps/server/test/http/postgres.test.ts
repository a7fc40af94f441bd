/**
 * The app over PostgreSQL, as deployed behind a load balancer: two instances (each its own Store
 * and pool, opened through openStore like main.ts does) over one fresh schema.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/adapters/open-store.js';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import { bearer, createPlant, expectError, request, startTestServer, type TestServer } from './support.js';

describePostgres('two instances over one PostgreSQL store', () => {
  let pg: FreshPostgres;
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    pg = await freshPostgresUrl();
    a = await startTestServer({ open: () => openStore({ kind: 'postgres', url: pg.url }), tokenPrefix: 'a-' });
    b = await startTestServer({ open: () => openStore({ kind: 'postgres', url: pg.url }), tokenPrefix: 'b-' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await pg?.drop();
  });

  it('serves what the other instance wrote, with tokens the other instance issued', async () => {
    const created = await createPlant(a, { name: 'Shared', tag: 'pg' });
    expect(created.status).toBe(201);
    const read = await request(b, created.headers.location as string, { headers: bearer(a.tokens.read) });
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ name: 'Shared', tag: 'pg' });
    expect(
      (await request(b, created.headers.location as string, { method: 'DELETE', headers: bearer(a.tokens.write) }))
        .status,
    ).toBe(204);
    expectError(await request(a, created.headers.location as string, { headers: bearer(b.tokens.read) }), 404);
  });

  it('rejects at one instance a token revoked through the other', async () => {
    expect((await request(a, '/plants', { headers: bearer(b.tokens.all) })).status).toBe(200);
    expectError(await request(a, '/plants', { headers: bearer(b.tokens.revoked) }), 401, 'revoked');
    expectError(await request(b, '/plants', { headers: bearer(a.tokens.expired) }), 401, 'expired');
  });

  it('50 concurrent creates of one id across both: exactly one 201, the others 409', async () => {
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => createPlant(i % 2 === 0 ? a : b, { id: 777, name: `racer ${i}` })),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
  });

  it('20 concurrent deletes of one plant across both: exactly one 204, the others 404', async () => {
    expect((await createPlant(a, { id: 888, name: 'target' })).status).toBe(201);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(i % 2 === 0 ? a : b, '/plants/888', { method: 'DELETE', headers: bearer(a.tokens.all) }),
      ),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    expect(statuses.filter((s) => s === 404)).toHaveLength(19);
  });

  it('20 concurrent creates with one Idempotency-Key across both: one plant; each answer its 201 or the in-flight 409', async () => {
    const post = (server: TestServer) =>
      request(server, '/plants', {
        method: 'POST',
        headers: { ...bearer(a.tokens.all), 'content-type': 'application/json', 'idempotency-key': 'across-instances' },
        body: JSON.stringify({ name: 'once across instances' }),
      });
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 === 0 ? a : b)));
    const created = replies.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.headers.location)).size).toBe(1);
    expect(created.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 201)) {
      expectError(reply, 409, 'is still in progress');
      expect(reply.headers['retry-after']).toBe('1');
    }
    const all = (await request(b, '/plants?limit=1000', { headers: bearer(a.tokens.all) })).json as { name: string }[];
    expect(all.filter((p) => p.name === 'once across instances')).toHaveLength(1);
  });

  it('answers /readyz 200 on both', async () => {
    expect((await request(a, '/readyz')).status).toBe(200);
    expect((await request(b, '/readyz')).status).toBe(200);
  });
});
