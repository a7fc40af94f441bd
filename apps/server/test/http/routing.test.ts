import net from 'node:net';
import { openApiDocument } from '@plant-store/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, expectError, request, startTestServer, type TestServer } from './support.js';

let server: TestServer;
let shuttingDown = false;
beforeAll(async () => {
  server = await startTestServer({
    isShuttingDown: () => shuttingDown,
    timeouts: { headersTimeoutMs: 500, connectionsCheckingIntervalMs: 100 },
  });
});
afterAll(() => server.close());

/** Sends raw bytes on a fresh socket and resolves with everything the server wrote before closing. */
const raw = (bytes: string | Buffer): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    const parts: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => parts.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(parts).toString('utf8')));
    socket.on('error', reject);
    socket.write(bytes);
  });

const parseRaw = (text: string) => {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { statusLine, headers, body: JSON.parse(body) as unknown };
};

describe('routing', () => {
  it('answers an unknown route with a JSON 404', async () => {
    expectError(await request(server, '/nowhere'), 404, 'no route GET /nowhere');
    expectError(await request(server, '/plants/1/leaves', { headers: bearer(server.tokens.all) }), 404);
  });

  it.each([
    ['PUT', '/plants', 'GET, HEAD, POST, OPTIONS'],
    ['POST', '/plants/1', 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
    ['PATCH', '/plants', 'GET, HEAD, POST, OPTIONS'],
    ['DELETE', '/plants', 'GET, HEAD, POST, OPTIONS'],
    ['POST', '/healthz', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/openapi.json', 'GET, HEAD, OPTIONS'],
    ['PROPFIND', '/plants', 'GET, HEAD, POST, OPTIONS'],
  ])('answers %s %s with 405 and Allow, before authentication', async (method, path, allow) => {
    const reply = await request(server, path, { method });
    expectError(reply, 405, `method ${method} is not allowed`);
    expect(reply.headers.allow).toBe(allow);
    expect(reply.headers['www-authenticate']).toBeUndefined();
  });

  it('answers OPTIONS with 204 and Allow, without authentication', async () => {
    const reply = await request(server, '/plants/5', { method: 'OPTIONS' });
    expect(reply.status).toBe(204);
    expect(reply.headers.allow).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    expect(reply.text).toBe('');
  });

  it('answers HEAD like GET without a body (authentication included)', async () => {
    const health = await request(server, '/healthz', { method: 'HEAD' });
    expect([health.status, health.text]).toEqual([200, '']);
    const unauthorised = await request(server, '/plants', { method: 'HEAD' });
    expect([unauthorised.status, unauthorised.text, unauthorised.headers['www-authenticate']]).toEqual([
      401,
      '',
      'Bearer realm="plant-store"',
    ]);
    expect((await request(server, '/plants', { method: 'HEAD', headers: bearer(server.tokens.read) })).status).toBe(
      200,
    );
  });
});

describe('X-Request-Id', () => {
  it('echoes an acceptable caller id on success and on errors', async () => {
    for (const id of ['abc-123', 'A.b_c:d-9', 'x'.repeat(128)]) {
      expect((await request(server, '/healthz', { headers: { 'x-request-id': id } })).headers['x-request-id']).toBe(id);
      expect((await request(server, '/plants', { headers: { 'x-request-id': id } })).headers['x-request-id']).toBe(id);
    }
  });

  it.each(['x'.repeat(129), 'has space', 'semi;colon', 'ünïcode', 'a/b'])(
    'replaces the unacceptable id %j with a new one',
    async (id) => {
      const reply = await request(server, '/healthz', {
        headers: { 'x-request-id': Buffer.from(id).toString('latin1') },
      });
      expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  it('gives every request a fresh id when none is sent', async () => {
    const a = await request(server, '/healthz');
    const b = await request(server, '/healthz');
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it('writes one JSON log line per request with method, route, status, duration and the same id', async () => {
    await request(server, '/plants/12', {
      headers: { 'x-request-id': 'log-line-check', ...bearer(server.tokens.read) },
    });
    const lines = server.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['reqId'] === 'log-line-check');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'GET', route: '/plants/{id}', status: 404, msg: 'request' });
    expect(typeof lines[0]?.['ms']).toBe('number');
  });
});

describe('health and documents', () => {
  it('GET /healthz → 200 {status: ok}', async () => {
    const reply = await request(server, '/healthz');
    expect([reply.status, reply.json]).toEqual([200, { status: 'ok' }]);
  });

  it('GET /readyz → 200 while the store answers, 503 while shutting down', async () => {
    const ready = await request(server, '/readyz');
    expect([ready.status, ready.json]).toEqual([200, { status: 'ok' }]);
    shuttingDown = true;
    try {
      expectError(await request(server, '/readyz'), 503, 'not ready: shutting down');
    } finally {
      shuttingDown = false;
    }
  });

  it('GET /openapi.json → the domain document, without authentication', async () => {
    const reply = await request(server, '/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.json).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });
});

describe("errors Node's parser answers (clientError)", () => {
  it('400 JSON for a malformed request line', async () => {
    const { statusLine, headers, body } = parseRaw(await raw('GARBAGE\r\n\r\n'));
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).toEqual({ error: 400, message: 'malformed HTTP request' });
  });

  it('400 JSON for an invalid header', async () => {
    const { statusLine, body } = parseRaw(await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'));
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(body).toEqual({ error: 400, message: 'malformed HTTP request' });
  });

  it('431 JSON for headers over 16 KiB', async () => {
    const { statusLine, headers, body } = parseRaw(
      await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).toEqual({ error: 431, message: 'request headers too large' });
  });

  it('408 JSON when the headers do not arrive in time', async () => {
    const { statusLine, body } = parseRaw(await raw('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
    expect(statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(body).toEqual({ error: 408, message: 'request not received in time' });
  });
});

describe('failures of the store', () => {
  it('answers 503 with a generic message when the store is gone, and /readyz turns 503', async () => {
    const doomed = await startTestServer();
    try {
      expect((await createPlant(doomed, { name: 'Before' })).status).toBe(201);
      await doomed.store.close();
      const reply = await createPlant(doomed, { name: 'After' });
      expectError(reply, 503, 'the store is unavailable; try again');
      expectError(await request(doomed, '/readyz'), 503, 'not ready: the store does not answer');
      const failed = doomed.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line['status'] === 503);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed[0]?.['err']).toBeDefined();
    } finally {
      await doomed.close();
    }
  });

  it('answers a defect with a generic 500 and logs it with its cause', async () => {
    const broken = await startTestServer({
      auth: () => ({
        authenticate: () => () => Promise.reject(new TypeError('broken invariant', { cause: new Error('root cause') })),
      }),
    });
    try {
      const reply = await request(broken, '/plants', {
        headers: { ...bearer('whatever'), 'x-request-id': 'defect-1' },
      });
      expectError(reply, 500, 'internal server error');
      expect(reply.text).not.toContain('broken invariant');
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.headers['cache-control']).toBe('no-store');
      const line = broken.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['reqId'] === 'defect-1');
      expect(line).toMatchObject({ status: 500, level: 50 });
      expect(JSON.stringify(line?.['err'])).toContain('root cause');
    } finally {
      await broken.close();
    }
  });
});
