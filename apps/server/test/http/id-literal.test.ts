import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, expectError, request, startTestServer, type TestServer } from './support.js';

/**
 * docs/reference/api.md: an id that is not an integer → 400 naming the field. JSON.parse rounds some
 * fractions to integers (`5.0000000000000001` → 5), so the server checks the id as written.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const expected = (literal: string): string => `id: expected an integer from 1 to 9007199254740991, got ${literal}`;

const stored = async (id: number): Promise<number> =>
  (await request(server, `/plants/${id}`, { headers: bearer(server.tokens.all) })).status;

describe('an id written as a fraction', () => {
  it.each([
    ['5.0000000000000001', 5],
    ['9007199254740990.9999999', 9007199254740991],
    ['123456789.00000000001', 123456789],
  ])('%s (parsed as %i) → 400 naming the field and the literal; nothing stored', async (literal, rounded) => {
    const reply = await createPlant(server, `{"id": ${literal}, "name": "rounded"}`);
    expectError(reply, 400);
    expect((reply.json as { message: string }).message).toBe(expected(literal));
    expect(await stored(rounded)).toBe(404);
  });

  it('1e-400 (parsed as 0) names the literal instead of 0', async () => {
    const reply = await createPlant(server, '{"id": 1e-400, "name": "tiny"}');
    expectError(reply, 400);
    expect((reply.json as { message: string }).message).toBe(expected('1e-400'));
  });

  it('an escaped key is the same member', async () => {
    const reply = await createPlant(server, '{"\\u0069d": 5.0000000000000001, "name": "escaped"}');
    expectError(reply, 400, expected('5.0000000000000001'));
  });

  it('is merged with the other field problems into one 400', async () => {
    const reply = await createPlant(server, '{"id": 5.0000000000000001, "name": "", "colour": "green"}');
    expectError(reply, 400);
    const message = (reply.json as { message: string }).message;
    expect(message).toContain('name: ');
    expect(message).toContain('colour');
    expect(message).toContain(expected('5.0000000000000001'));
    expect(message.split('; ').filter((line) => line.startsWith('id:'))).toHaveLength(1);
  });

  it.each([
    ['1.0', 1],
    ['7e0', 7],
    ['1E2', 100],
    ['1.5e1', 15],
    ['2.50e1', 25],
  ])('an integer written %s is accepted as %i', async (literal, id) => {
    const reply = await createPlant(server, `{"id": ${literal}, "name": "integral"}`);
    expect(reply.status).toBe(201);
    expect(reply.headers.location).toBe(`/plants/${id}`);
  });

  it('a nested id is no concern of the check (the codec refuses the unknown member)', async () => {
    const reply = await createPlant(server, '{"name": "n", "extra": {"id": 5.0000000000000001}}');
    expectError(reply, 400, /extra/);
    expect((reply.json as { message: string }).message).not.toContain('id:');
  });
});
