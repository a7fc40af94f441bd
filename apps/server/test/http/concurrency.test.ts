import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, request, startTestServer, type TestServer } from './support.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const countBy = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

describe('concurrency', () => {
  it('50 concurrent creates of one id: exactly one 201, the others 409', async () => {
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => createPlant(server, { id: 31337, name: `racer ${i}` })),
    );
    expect(countBy(replies.map((r) => r.status))).toEqual({ 201: 1, 409: 49 });
    const winner = replies.find((r) => r.status === 201);
    const stored = await request(server, '/plants/31337', { headers: bearer(server.tokens.all) });
    expect(stored.json).toEqual({ id: 31337, name: (winner?.json as { name: string }).name });
  });

  it('20 concurrent deletes of one plant: exactly one 204, the others 404', async () => {
    expect((await createPlant(server, { id: 4040, name: 'target' })).status).toBe(201);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(server, '/plants/4040', { method: 'DELETE', headers: bearer(server.tokens.all) }),
      ),
    );
    expect(countBy(replies.map((r) => r.status))).toEqual({ 204: 1, 404: 19 });
  });

  it('100 concurrent creates without ids get 100 distinct ids', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) => createPlant(server, { name: `bulk ${i}` })),
    );
    expect(replies.every((r) => r.status === 201)).toBe(true);
    expect(new Set(replies.map((r) => r.headers.location)).size).toBe(100);
  });
});
