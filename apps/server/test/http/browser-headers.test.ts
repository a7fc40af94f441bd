import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, jsonHeaders, request, startTestServer, type Reply, type TestServer } from './support.js';

/**
 * docs/reference/api.md, headers and CORS: the OWASP REST headers on success and
 * on every kind of error, those Node's parser answers included; CORS off by default and, with
 * CORS_ORIGINS, on for exactly those origins.
 */

const CSP = "default-src 'none'; frame-ancestors 'none'";
const ALLOWED = 'http://allowed.example:8080';

let plain: TestServer;
let withCors: TestServer;
beforeAll(async () => {
  plain = await startTestServer();
  withCors = await startTestServer({ corsOrigins: [ALLOWED, 'https://second.example'] });
});
afterAll(async () => {
  await plain?.close();
  await withCors?.close();
});

/** Sends raw bytes and parses the one answer (the server closes these connections). */
const raw = (server: TestServer, bytes: string): Promise<{ status: number; headers: Record<string, string> }> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => {
      const [statusLine = '', ...lines] = received.slice(0, received.indexOf('\r\n\r\n')).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
    socket.on('error', reject);
    socket.write(bytes);
  });

const expectSecurityHeaders = (
  reply: { status: number; headers: Record<string, unknown> },
  plants: boolean,
  what: string,
): void => {
  expect(reply.headers['x-content-type-options'], what).toBe('nosniff');
  expect(reply.headers['content-security-policy'], what).toBe(CSP);
  expect(reply.headers['cache-control'], what).toBe(plants ? 'no-store' : undefined);
};

describe('security headers', () => {
  it('are on every answer of the app: successes and every error kind', async () => {
    const s = plain;
    await createPlant(s, { id: 70, name: 'kept' });
    const cases: Array<[string, boolean, number, () => Promise<Reply>]> = [
      ['GET /healthz', false, 200, () => request(s, '/healthz')],
      ['GET /openapi.json', false, 200, () => request(s, '/openapi.json')],
      ['HEAD /readyz', false, 200, () => request(s, '/readyz', { method: 'HEAD' })],
      ['POST /plants', true, 201, () => createPlant(s, { name: 'new' })],
      ['GET /plants', true, 200, () => request(s, '/plants?limit=2', { headers: bearer(s.tokens.all) })],
      ['GET /plants/70', true, 200, () => request(s, '/plants/70', { headers: bearer(s.tokens.all) })],
      ['HEAD /plants/70', true, 200, () => request(s, '/plants/70', { method: 'HEAD', headers: bearer(s.tokens.all) })],
      ['OPTIONS /plants', true, 204, () => request(s, '/plants', { method: 'OPTIONS' })],
      ['400 body', true, 400, () => createPlant(s, { name: '' })],
      ['400 id', true, 400, () => request(s, '/plants/07', { headers: bearer(s.tokens.all) })],
      ['401', true, 401, () => request(s, '/plants')],
      ['403', true, 403, () => createPlant(s, { name: 'x' }, s.tokens.read)],
      ['404 plant', true, 404, () => request(s, '/plants/9999', { headers: bearer(s.tokens.all) })],
      ['404 route', false, 404, () => request(s, '/nope')],
      ['405', true, 405, () => request(s, '/plants', { method: 'PUT' })],
      ['409', true, 409, () => createPlant(s, { id: 70, name: 'again' })],
      ['413', true, 413, () => createPlant(s, { name: 'x'.repeat(20_000) })],
      [
        '415',
        true,
        415,
        () =>
          request(s, '/plants', {
            method: 'POST',
            headers: { ...bearer(s.tokens.all), 'content-type': 'text/plain' },
            body: '{}',
          }),
      ],
      [
        'DELETE /plants/70',
        true,
        204,
        () => request(s, '/plants/70', { method: 'DELETE', headers: jsonHeaders(s.tokens.all) }),
      ],
    ];
    for (const [what, plants, status, send] of cases) {
      const reply = await send();
      expect(reply.status, what).toBe(status);
      expectSecurityHeaders(reply, plants, what);
    }
  });

  it('are on the answers Node parser and the server make by hand: 400, 431, 417, 501', async () => {
    const bad = await raw(plain, 'NOT A REQUEST\r\n\r\n');
    expect(bad.status).toBe(400);
    expectSecurityHeaders(bad, true, 'malformed request line (target unknown: no-store regardless)');
    const big = await raw(plain, `GET /plants HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.status).toBe(431);
    expectSecurityHeaders(big, true, '431');
    const expectation = await raw(plain, 'GET /plants HTTP/1.1\r\nHost: x\r\nExpect: tea\r\n\r\n');
    expect(expectation.status).toBe(417);
    expectSecurityHeaders(expectation, true, '417 on /plants');
    const coding = await raw(
      plain,
      'POST /plants HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
    );
    expect(coding.status).toBe(501);
    expectSecurityHeaders(coding, true, '501');
  });
});

const corsHeaders = (reply: Reply): Record<string, unknown> =>
  Object.fromEntries(Object.entries(reply.headers).filter(([name]) => name.startsWith('access-control-')));

const preflight = (server: TestServer, path: string, origin: string): Promise<Reply> =>
  request(server, path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });

describe('CORS', () => {
  it('is off by default: no Access-Control-* header, even for a request that sends Origin', async () => {
    const pre = await preflight(plain, '/plants', ALLOWED);
    expect(pre.status).toBe(204);
    expect(pre.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    expect(corsHeaders(pre)).toEqual({});
    const actual = await request(plain, '/plants', { headers: { ...bearer(plain.tokens.all), origin: ALLOWED } });
    expect(actual.status).toBe(200);
    expect(corsHeaders(actual)).toEqual({});
    expect(actual.headers.vary).toBeUndefined();
  });

  it('answers a preflight from an allowed origin with 204 before authentication, for any plant path', async () => {
    for (const path of ['/plants', '/plants/123456', '/plants/not-an-id']) {
      const reply = await preflight(withCors, path, ALLOWED);
      expect(reply.status, path).toBe(204);
      expect(corsHeaders(reply), path).toEqual({
        'access-control-allow-origin': ALLOWED,
        'access-control-allow-methods': 'GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS',
        'access-control-allow-headers':
          'Authorization,Content-Type,Idempotency-Key,If-Match,If-None-Match,Prefer,Last-Event-ID',
        'access-control-max-age': '600',
      });
      expect(reply.headers['www-authenticate'], path).toBeUndefined();
      expect(reply.text, path).toBe('');
    }
  });

  it('lets an allowed origin read answers, errors included, and the headers it needs', async () => {
    const created = await request(withCors, '/plants', {
      method: 'POST',
      headers: { ...jsonHeaders(withCors.tokens.all), origin: 'https://second.example' },
      body: JSON.stringify({ name: 'cross-origin' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers['access-control-allow-origin']).toBe('https://second.example');
    expect(created.headers['access-control-expose-headers']).toBe(
      'Location,Link,ETag,X-Request-Id,Retry-After,Idempotent-Replayed,RateLimit-Policy,RateLimit,X-Total-Count,Preference-Applied,X-Change-Seq',
    );
    expect(created.headers['access-control-allow-credentials']).toBeUndefined();
    expect(created.headers.vary).toContain('Origin');
    const refused = await request(withCors, '/plants', { headers: { origin: ALLOWED } });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('gives another origin, or a near miss of an allowed one, no CORS header at all', async () => {
    for (const origin of [
      'http://evil.example',
      'http://allowed.example:8081',
      'https://allowed.example:8080',
      'http://allowed.example:8080/',
      'null',
    ]) {
      const pre = await preflight(withCors, '/plants', origin);
      expect(corsHeaders(pre), origin).toEqual({});
      const actual = await request(withCors, '/plants', { headers: { ...bearer(withCors.tokens.all), origin } });
      expect(actual.status, origin).toBe(200);
      expect(corsHeaders(actual), origin).toEqual({});
    }
  });
});
