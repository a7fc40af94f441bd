import { connect } from 'node:net';
import { expect, it } from 'vitest';

/** Where the suite sends its requests: one URL per instance, all serving one store. */
export interface Targets {
  readonly urls: readonly string[];
  readonly tokens: { readonly all: string; readonly read: string; readonly write: string };
}

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

const send = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
};

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** The error body every error answer carries, with its status and (when given) a message pattern. */
const expectError = (reply: Reply, status: number, message?: RegExp): void => {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.json).toEqual({ error: status, message: expect.any(String) });
  if (message !== undefined) expect((reply.json as { message: string }).message).toMatch(message);
};

/** Ids of this run's own, far from the server-assigned ones and from other runs on a shared store. */
let nextId = 1_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
const freshId = (): number => (nextId += 1);

/** A raw request line and headers, for what Node's HTTP parser answers before any middleware. */
const raw = (url: string, request: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
  });

/**
 * The core API over HTTP (docs/reference/api.md), against running instances that share one
 * store (a container, or two over one PostgreSQL): create, get, list, delete, authentication,
 * errors, request ids and the races. Requests alternate between the instances; what one instance
 * acknowledges is read through another.
 */
export const coreApi = (targets: () => Targets): void => {
  const at = (index: number): string => {
    const { urls } = targets();
    return urls[index % urls.length]!;
  };
  const create = (index: number, body: unknown, token = targets().tokens.all): Promise<Reply> =>
    send(`${at(index)}/plants`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const get = (index: number, path: string, token = targets().tokens.all): Promise<Reply> =>
    send(`${at(index)}${path}`, { headers: bearer(token) });

  it('creates: 201, Location, exactly {name, tag}; read back through another instance', async () => {
    const created = await create(0, { name: 'Monstera deliciosa', tag: 'tropical' });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual({ name: 'Monstera deliciosa', tag: 'tropical' });
    const location = created.headers.get('location') ?? '';
    expect(location).toMatch(/^\/plants\/[1-9][0-9]*$/);
    const read = await get(1, location);
    expect(read.status).toBe(200);
    expect(read.json).toEqual({ id: Number(location.split('/')[2]), name: 'Monstera deliciosa', tag: 'tropical' });

    const untagged = await create(1, { name: 'Ficus' });
    expect(untagged.json).toEqual({ name: 'Ficus' });
    const readUntagged = await get(0, untagged.headers.get('location')!);
    expect(readUntagged.text).not.toContain('tag');
  });

  it('keeps a chosen id, and a taken one is a 409 that changes nothing', async () => {
    const id = freshId();
    expect((await create(0, { id, name: 'First' })).headers.get('location')).toBe(`/plants/${id}`);
    expectError(await create(1, { id, name: 'Second' }), 409, new RegExp(`${id}`));
    expect((await get(0, `/plants/${id}`)).json).toEqual({ id, name: 'First' });
  });

  it('refuses bodies that break the rules with a 400 naming the field, and writes nothing', async () => {
    const before = await get(0, '/plants?limit=1000');
    for (const [body, field] of [
      [{ name: 'x', colour: 'green' }, /colour/],
      [{ name: null }, /name/],
      [{ name: 7 }, /name/],
      [{}, /name/],
      [{ name: 'x', id: 1.5 }, /id/],
      [{ name: 'x', id: '7' }, /id/],
      [{ name: 'x', id: 0 }, /id/],
      [{ name: 'x', id: -1 }, /id/],
      [{ name: 'x', id: 2 ** 53 }, /id/],
      [['name'], /object/],
    ] as const) {
      expectError(await create(0, body), 400, field);
    }
    expectError(
      await send(`${at(1)}/plants`, {
        method: 'POST',
        headers: { ...bearer(targets().tokens.all), 'content-type': 'application/json' },
        body: '{"name": "unfinished',
      }),
      400,
    );
    expect((await get(1, '/plants?limit=1000')).json).toEqual(before.json);
  });

  it('answers 415 for another media type and 413 above 16 KiB', async () => {
    const headers = bearer(targets().tokens.all);
    expectError(
      await send(`${at(0)}/plants`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/plain' },
        body: '{"name":"x"}',
      }),
      415,
    );
    expectError(
      await send(`${at(1)}/plants`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json; charset=UTF-8' },
        body: JSON.stringify({ name: 'x'.repeat(17 * 1024) }),
      }),
      413,
    );
  });

  it('deletes: 204 with no body, then 404 for the delete and the get', async () => {
    const location = (await create(0, { name: 'Short-lived' })).headers.get('location')!;
    const deleted = await send(`${at(1)}${location}`, { method: 'DELETE', headers: bearer(targets().tokens.all) });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectError(await send(`${at(0)}${location}`, { method: 'DELETE', headers: bearer(targets().tokens.all) }), 404);
    expectError(await get(0, location), 404);
  });

  it('refuses an id that is not plain decimal digits in range with a 400', async () => {
    for (const id of ['01', '-1', '0', 'abc', '1.5', '9007199254740992']) {
      expectError(await get(0, `/plants/${id}`), 400);
    }
  });

  it('lists in id order, a page at a time, with a Link to the next page while a page is full', async () => {
    const ids = [freshId(), freshId(), freshId()];
    for (const [i, id] of ids.entries()) await create(i, { id, name: `listed ${i}` });
    const first = await get(1, `/plants?limit=2&after=${ids[0]! - 1}`);
    expect(first.status).toBe(200);
    expect(first.json).toEqual([
      { id: ids[0], name: 'listed 0' },
      { id: ids[1], name: 'listed 1' },
    ]);
    expect(first.headers.get('link')).toBe(`</plants?limit=2&after=${ids[1]}>; rel="next"`);
    const next = await get(0, `/plants?limit=2&after=${ids[1]}`);
    expect((next.json as { id: number }[])[0]).toEqual({ id: ids[2], name: 'listed 2' });
    for (const query of ['limit=0', 'limit=1001', 'after=-1', 'limit=x'])
      expectError(await get(0, `/plants?${query}`), 400);
  });

  it('authenticates before anything else, as RFC 6750 says', async () => {
    const url = `${at(0)}/plants/1`;
    const none = await send(url);
    expectError(none, 401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
    expectError(await send(url, { headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 401);
    expectError(await send(`${url}?access_token=${targets().tokens.all}`), 401);
    const malformed = await send(url, { headers: { authorization: 'Bearer a b' } });
    expectError(malformed, 400);
    expect(malformed.headers.get('www-authenticate')).toBe('Bearer realm="plant-store", error="invalid_request"');
    const unknown = await send(url, { headers: bearer('pst_unknownunknownunknownunknown') });
    expectError(unknown, 401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="plant-store", error="invalid_token"');
    // a read-only token cannot write; the invalid body is never looked at
    const readOnly = await create(1, { bad: true }, targets().tokens.read);
    expectError(readOnly, 403);
    expect(readOnly.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="plants:write"/);
    expectError(await get(1, '/plants', targets().tokens.write), 403);
    expect((await get(1, '/plants?limit=1', targets().tokens.read)).status).toBe(200);
  });

  it('answers unknown routes 404, missing methods 405 with Allow, and every error as JSON', async () => {
    expectError(await get(0, '/nowhere'), 404);
    const wrongMethod = await send(`${at(1)}/plants`, { method: 'PUT' });
    expectError(wrongMethod, 405);
    expect(wrongMethod.headers.get('allow')).toMatch(/POST/);
    const malformed = await raw(at(0), 'NOT A REQUEST\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(malformed).toContain('{"error":400,');
    const oversized = await raw(at(1), `GET /plants HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(oversized).toMatch(/^HTTP\/1\.1 431 /);
    expect(oversized).toContain('{"error":431,');
  });

  it('echoes a well-formed X-Request-Id and makes one otherwise', async () => {
    const echoed = await send(`${at(0)}/plants`, { headers: { 'x-request-id': 'trace-me.1:2' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-me.1:2');
    const replaced = await send(`${at(1)}/plants`, { headers: { 'x-request-id': 'not ok' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(replaced.headers.get('x-request-id')).not.toBe('not ok');
  });

  it('serves health, readiness and the OpenAPI document without a token', async () => {
    expect((await send(`${at(0)}/healthz`)).status).toBe(200);
    expect((await send(`${at(1)}/readyz`)).status).toBe(200);
    const document = await send(`${at(0)}/openapi.json`);
    expect(document.status).toBe(200);
    expect(document.json).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./) });
  });

  it('races: one create of an id wins and the rest are 409; one delete wins and the rest are 404', async () => {
    const id = freshId();
    const creates = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i, { id, name: `racer ${i}` })));
    expect(creates.filter((reply) => reply.status === 201)).toHaveLength(1);
    expect(creates.filter((reply) => reply.status === 409)).toHaveLength(19);
    const deletes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(`${at(i)}/plants/${id}`, { method: 'DELETE', headers: bearer(targets().tokens.all) }),
      ),
    );
    expect(deletes.filter((reply) => reply.status === 204)).toHaveLength(1);
    expect(deletes.filter((reply) => reply.status === 404)).toHaveLength(19);
  });
};
