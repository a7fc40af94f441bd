import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCeilingServer, type CeilingServer } from '../src/ceiling-server.js';

const TOKEN = 'ceiling-test-token-0123456789';
let ceiling: CeilingServer;
let base: string;

beforeAll(async () => {
  ceiling = createCeilingServer(TOKEN);
  await new Promise<void>((resolve) => ceiling.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(ceiling.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  ceiling.server.closeAllConnections();
  await new Promise<void>((resolve) => ceiling.server.close(() => resolve()));
});

const auth = { authorization: `Bearer ${TOKEN}` };
const create = (body: unknown, headers: Record<string, string> = auth) =>
  fetch(`${base}/plants`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('createCeilingServer', () => {
  it('creates a plant with 201, Location and name and tag only', async () => {
    const res = await create({ id: 7, name: 'Monstera', tag: 'aroid' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/plants/7');
    expect(await res.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
  });

  it('answers 409 for a taken id and keeps the first plant', async () => {
    await create({ id: 8, name: 'first' });
    const again = await create({ id: 8, name: 'second' });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 409 });
    expect(await (await fetch(`${base}/plants/8`, { headers: auth })).json()).toEqual({ id: 8, name: 'first' });
  });

  it('assigns an id above the largest when none is sent', async () => {
    await create({ id: 1000, name: 'high' });
    const res = await create({ name: 'assigned' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/plants/1001');
  });

  it('rejects bodies CreatePlantRequest rejects, naming the field', async () => {
    const unknownMember = await create({ name: 'x', colour: 'green' });
    expect(unknownMember.status).toBe(400);
    expect((await unknownMember.json()) as { message: string }).toMatchObject({
      error: 400,
      message: expect.stringContaining('colour'),
    });
    expect((await create({ name: '' })).status).toBe(400);
    expect((await create({ name: 'x', id: 1.5 })).status).toBe(400);
    expect((await create('{not json')).status).toBe(400);
  });

  it('checks the bearer token before anything else', async () => {
    const none = await create({ name: 'x' }, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
    const wrong = await create({ name: 'x' }, { authorization: 'Bearer not-the-token-at-all' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('invalid_token');
    expect((await fetch(`${base}/plants/999999`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
  });

  it('gets, lists in id order with a next link on a full page, and deletes', async () => {
    for (const id of [503, 501, 502]) await create({ id, name: `p${id}` });
    const page = await fetch(`${base}/plants?limit=2&after=500`, { headers: auth });
    expect(page.status).toBe(200);
    expect(await page.json()).toEqual([
      { id: 501, name: 'p501' },
      { id: 502, name: 'p502' },
    ]);
    expect(page.headers.get('link')).toBe('</plants?limit=2&after=502>; rel="next"');
    expect((await fetch(`${base}/plants?limit=0`, { headers: auth })).status).toBe(400);

    const del = await fetch(`${base}/plants/502`, { method: 'DELETE', headers: auth });
    expect(del.status).toBe(204);
    expect((await fetch(`${base}/plants/502`, { method: 'DELETE', headers: auth })).status).toBe(404);
    expect((await fetch(`${base}/plants/502`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${base}/plants/0502`, { headers: auth })).status).toBe(400);
  });

  it('answers 405 with Allow for a method the route lacks', async () => {
    const res = await fetch(`${base}/plants`, { method: 'PUT', headers: auth });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    const item = await fetch(`${base}/plants/1`, { method: 'PUT', headers: auth });
    expect(item.status).toBe(405);
    expect(item.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });

  const patch = (id: number, body: unknown, contentType = 'application/merge-patch+json') =>
    fetch(`${base}/plants/${id}`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('patches name and tag as a JSON Merge Patch and answers 200 with the plant', async () => {
    await create({ id: 601, name: 'before', tag: 'old' });
    const renamed = await patch(601, { name: 'after' });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toEqual({ id: 601, name: 'after', tag: 'old' });
    expect(await (await patch(601, { tag: 'new' }, 'application/json')).json()).toEqual({
      id: 601,
      name: 'after',
      tag: 'new',
    });
    expect(await (await patch(601, { tag: null })).json()).toEqual({ id: 601, name: 'after' });
    expect(await (await fetch(`${base}/plants/601`, { headers: auth })).json()).toEqual({ id: 601, name: 'after' });
  });

  it('rejects a patch UpdatePlantRequest rejects, of an unknown plant, or of another media type', async () => {
    await create({ id: 602, name: 'kept' });
    const withId = await patch(602, { id: 9, name: 'x' });
    expect(withId.status).toBe(400);
    expect((await withId.json()) as { message: string }).toMatchObject({ message: expect.stringContaining('id') });
    expect((await patch(602, { name: null })).status).toBe(400);
    expect((await patch(602, { name: 'x' }, 'text/plain')).status).toBe(415);
    expect((await patch(999_999, { name: 'x' })).status).toBe(404);
    expect(await (await fetch(`${base}/plants/602`, { headers: auth })).json()).toEqual({ id: 602, name: 'kept' });
  });

  it('filters a list page by exact tag, following patches and deletes, with the tag in the next link', async () => {
    for (const id of [701, 702, 703, 704]) await create({ id, name: `t${id}`, tag: id % 2 === 0 ? 'even' : 'odd' });
    await patch(703, { tag: 'even' });
    await fetch(`${base}/plants/702`, { method: 'DELETE', headers: auth });
    const page = await fetch(`${base}/plants?tag=even&limit=1&after=700`, { headers: auth });
    expect(await page.json()).toEqual([{ id: 703, name: 't703', tag: 'even' }]);
    expect(page.headers.get('link')).toBe('</plants?limit=1&after=703&tag=even>; rel="next"');
    const rest = await fetch(`${base}/plants?tag=even&limit=10&after=703`, { headers: auth });
    expect(await rest.json()).toEqual([{ id: 704, name: 't704', tag: 'even' }]);
    expect(await (await fetch(`${base}/plants?tag=odd&after=700`, { headers: auth })).json()).toEqual([
      { id: 701, name: 't701', tag: 'odd' },
    ]);
    expect(rest.headers.get('link')).toBeNull();
    expect(await (await fetch(`${base}/plants?tag=none-such`, { headers: auth })).json()).toEqual([]);
  });
});
