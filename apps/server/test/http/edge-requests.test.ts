import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support.js';

/**
 * Requests Node handles outside the app unless the server listens for them: `Expect` (Node sends
 * a bare 417 for anything but 100-continue), CONNECT (dropped unanswered without a 'connect'
 * listener) and `Upgrade:` (served as a plain request while no 'upgrade' listener exists).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

interface RawReply {
  readonly statusLine: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Everything received, for the interim responses (100 Continue). */
  readonly text: string;
}

const parse = (text: string): RawReply => {
  // skip interim 1xx responses
  let rest = text;
  while (/^HTTP\/1\.1 1\d\d /.test(rest)) rest = rest.slice(rest.indexOf('\r\n\r\n') + 4);
  const split = rest.indexOf('\r\n\r\n');
  const head = split < 0 ? rest : rest.slice(0, split);
  const body = split < 0 ? '' : rest.slice(split + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { statusLine, headers, body, text };
};

/** Sends `bytes` on a fresh socket; resolves with all the server wrote once it closed the connection. */
const raw = (bytes: string, onData?: (received: string, socket: net.Socket) => void): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      onData?.(received, socket);
    });
    socket.on('close', () => resolve(parse(received)));
    socket.on('error', reject);
    socket.write(bytes);
  });

const logLine = (reqId: string): Record<string, unknown> | undefined =>
  server.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line['reqId'] === reqId);

const bearer = (): string => `Authorization: Bearer ${server.tokens.all}\r\n`;

describe('Expect', () => {
  it('an expectation other than 100-continue → the contract JSON 417 with the caller X-Request-Id and a log line', async () => {
    const body = '{"name": "expecting"}';
    const reply = await raw(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${bearer()}Content-Type: application/json\r\nExpect: the-impossible\r\n` +
        `X-Request-Id: expect-1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 417 Expectation Failed');
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['x-request-id']).toBe('expect-1');
    expect(reply.headers.connection).toBe('close');
    expect(JSON.parse(reply.body)).toEqual({
      error: 417,
      message: 'cannot meet the expectation "the-impossible"; only 100-continue is supported',
    });
    expect(logLine('expect-1')).toMatchObject({ method: 'POST', route: null, status: 417 });
    // nothing was created
    const list = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${server.tokens.all}` } });
    expect(await list.json()).toEqual([]);
  });

  it('a new X-Request-Id when the caller has none (or an unacceptable one), on any method', async () => {
    const reply = await raw(
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nX-Request-Id: not acceptable!\r\n\r\n',
    );
    expect(reply.statusLine).toBe('HTTP/1.1 417 Expectation Failed');
    expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(reply.body)).toMatchObject({ error: 417 });
  });

  it('Expect: 100-continue still works: 100 Continue first, then the body is read and the plant created', async () => {
    const body = '{"name": "continued"}';
    let sent = false;
    const reply = await raw(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${bearer()}Content-Type: application/json\r\nExpect: 100-continue\r\n` +
        `Connection: close\r\nContent-Length: ${body.length}\r\n\r\n`,
      (received, socket) => {
        if (!sent && received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
          sent = true;
          socket.write(body);
        }
      },
    );
    expect(reply.text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    expect(reply.statusLine).toBe('HTTP/1.1 201 Created');
    expect(JSON.parse(reply.body)).toEqual({ name: 'continued' });
  });
});

describe('CONNECT', () => {
  it('a known path → 405 with the route fallback Allow, the JSON body, X-Request-Id, Connection: close; then the socket ends', async () => {
    const reply = await raw(`CONNECT /plants HTTP/1.1\r\nHost: x\r\n${bearer()}X-Request-Id: connect-1\r\n\r\n`);
    expect(reply.statusLine).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(reply.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['x-request-id']).toBe('connect-1');
    expect(reply.headers.connection).toBe('close');
    expect(JSON.parse(reply.body)).toEqual({
      error: 405,
      message: 'method CONNECT is not allowed on /plants; allowed: GET, HEAD, POST, OPTIONS',
    });
    expect(logLine('connect-1')).toMatchObject({ method: 'CONNECT', status: 405 });
  });

  it('/plants/{id} gets its own Allow, and the message names the route as the document does', async () => {
    const reply = await raw('CONNECT /plants/7 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(reply.statusLine).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(reply.headers.allow).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    expect(JSON.parse(reply.body)).toEqual({
      error: 405,
      message: 'method CONNECT is not allowed on /plants/{id}; allowed: GET, HEAD, PUT, PATCH, DELETE, OPTIONS',
    });
    expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an unknown path or a proxy-style authority → JSON 404, also when bytes follow the headers', async () => {
    const unknown = await raw('CONNECT /nowhere HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(unknown.statusLine).toBe('HTTP/1.1 404 Not Found');
    expect(JSON.parse(unknown.body)).toEqual({ error: 404, message: 'no route CONNECT /nowhere' });
    expect(unknown.headers.connection).toBe('close');
    const authority = await raw(
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\u0016\u0003\u0001 tunnel bytes',
    );
    expect(authority.statusLine).toBe('HTTP/1.1 404 Not Found');
    expect(JSON.parse(authority.body)).toEqual({ error: 404, message: 'no route CONNECT example.com:443' });
  });

  it('the server keeps serving afterwards', async () => {
    await raw('CONNECT /plants HTTP/1.1\r\nHost: x\r\n\r\n');
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });
});

describe('Upgrade', () => {
  it('without an upgrade listener an Upgrade request is served as a plain request (auth included)', async () => {
    const anonymous = await raw(
      'GET /plants HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n',
    );
    expect(anonymous.statusLine).toBe('HTTP/1.1 401 Unauthorized');
    expect(JSON.parse(anonymous.body)).toMatchObject({ error: 401 });
    expect(anonymous.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const authorised = await raw(
      `GET /plants HTTP/1.1\r\nHost: x\r\n${bearer()}Connection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n`,
    );
    expect(authorised.statusLine).toBe('HTTP/1.1 200 OK');
    expect(JSON.parse(authorised.body)).toBeInstanceOf(Array);
  });
});

describe('Host', () => {
  it('HTTP/1.1 without Host → the contract JSON 400 with X-Request-Id and a log line (not Node bare 400); the connection closes', async () => {
    const reply = await raw('GET /healthz HTTP/1.1\r\nX-Request-Id: no-host-1\r\n\r\n');
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['x-request-id']).toBe('no-host-1');
    expect(reply.headers.connection).toBe('close');
    expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(reply.body)));
    expect(JSON.parse(reply.body)).toEqual({ error: 400, message: 'missing Host header; HTTP/1.1 requires one' });
    expect(logLine('no-host-1')).toMatchObject({ method: 'GET', route: null, status: 400 });
  });

  it('is answered before authentication and before the body: nothing is created', async () => {
    const body = '{"id": 4242, "name": "hostless"}';
    const reply = await raw(
      `POST /plants HTTP/1.1\r\n${bearer()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(reply.body)).toEqual({ error: 400, message: 'missing Host header; HTTP/1.1 requires one' });
    const found = await fetch(`${server.url}/plants/4242`, {
      headers: { authorization: `Bearer ${server.tokens.all}` },
    });
    expect(found.status).toBe(404);
  });

  it('two Host lines → the contract JSON 400 before authentication (Node alone would keep the first)', async () => {
    const reply = await raw(
      `GET /plants HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n${bearer()}X-Request-Id: two-hosts-1\r\n\r\n`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(reply.headers['x-request-id']).toBe('two-hosts-1');
    expect(JSON.parse(reply.body)).toEqual({ error: 400, message: 'more than one Host header; send exactly one' });
  });

  it('HTTP/1.0 may omit Host: served as usual', async () => {
    const reply = await raw('GET /healthz HTTP/1.0\r\nX-Request-Id: no-host-10\r\n\r\n');
    expect(reply.statusLine).toBe('HTTP/1.1 200 OK');
    expect(reply.headers['x-request-id']).toBe('no-host-10');
    expect(logLine('no-host-10')).toMatchObject({ method: 'GET', status: 200 });
  });
});

describe('fragment in the request target', () => {
  it('DELETE /plants/{id}#… → the contract JSON 400 before authentication; the plant it seems to name is kept', async () => {
    const headers = { authorization: `Bearer ${server.tokens.all}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: 5151, name: 'kept' }),
    });
    expect(created.status).toBe(201);
    const reply = await raw(
      `DELETE /plants/5151#frag/0 HTTP/1.1\r\nHost: x\r\n${bearer()}X-Request-Id: fragment-1\r\n\r\n`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['x-request-id']).toBe('fragment-1');
    expect(reply.headers.connection).toBe('close');
    expect(JSON.parse(reply.body)).toEqual({
      error: 400,
      message: 'the request target must not contain a fragment ("#"); send the path without it',
    });
    expect(logLine('fragment-1')).toMatchObject({ method: 'DELETE', route: null, status: 400 });
    const found = await fetch(`${server.url}/plants/5151`, { headers });
    expect(found.status).toBe(200);
  });

  it('also on an unauthenticated GET (the check comes first), while %23 stays an ordinary, invalid id', async () => {
    const fragment = await raw('GET /plants/1#x HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(fragment.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(fragment.headers['www-authenticate']).toBeUndefined();
    const encoded = await raw(`GET /plants/1%23 HTTP/1.1\r\nHost: x\r\n${bearer()}Connection: close\r\n\r\n`);
    expect(encoded.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(encoded.body)).toMatchObject({ error: 400 });
    expect(JSON.parse(encoded.body).message).not.toContain('fragment');
  });
});

describe('Transfer-Encoding', () => {
  const post = (te: string, id: string): string =>
    `POST /plants HTTP/1.1\r\nHost: x\r\n${bearer()}Content-Type: application/json\r\n${te}X-Request-Id: ${id}\r\n\r\n5\r\n{"nam\r\n0\r\n\r\n`;

  it.each([
    ['gzip, chunked on one line', 'Transfer-Encoding: gzip, chunked\r\n', 'gzip, chunked'],
    ['gzip and chunked on two lines', 'Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n', 'gzip, chunked'],
    ['identity, chunked', 'Transfer-Encoding: identity, chunked\r\n', 'identity, chunked'],
  ])('%s → the contract JSON 501 (RFC 9112 §6.1), before authentication and the body', async (_name, te, shown) => {
    const id = `te-${_name.replace(/[^a-z]/g, '')}`;
    const reply = await raw(post(te, id));
    expect(reply.statusLine).toBe('HTTP/1.1 501 Not Implemented');
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers['x-request-id']).toBe(id);
    expect(JSON.parse(reply.body)).toEqual({
      error: 501,
      message: `Transfer-Encoding "${shown}" is not supported; send the body with chunked alone or with Content-Length`,
    });
    expect(logLine(id)).toMatchObject({ method: 'POST', status: 501 });
  });

  it.each([
    ['not ending in chunked', 'Transfer-Encoding: chunked, gzip\r\n'],
    ['without chunked', 'Transfer-Encoding: gzip\r\n'],
    ['chunked twice', 'Transfer-Encoding: chunked, chunked\r\n'],
  ])('%s → the contract JSON 400 and the connection closed (RFC 9112 §6.3)', async (_name, te) => {
    const reply = await raw(post(te, 'te-400'));
    expect(reply.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(reply.headers.connection).toBe('close');
    expect(JSON.parse(reply.body)).toEqual({
      error: 400,
      message: 'Transfer-Encoding must end in chunked and name it once',
    });
  });

  it('chunked alone, in any letter case, is served as usual', async () => {
    const body = '{"name":"chunky"}';
    const reply = await raw(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${bearer()}Content-Type: application/json\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(reply.statusLine).toBe('HTTP/1.1 201 Created');
  });
});

describe('a malformed request pipelined behind a good one', () => {
  it("the good one's answer goes out whole first, then the JSON 400 with an id of its own", async () => {
    const reply = await raw(
      `GET /plants HTTP/1.1\r\nHost: x\r\n${bearer()}X-Request-Id: pipelined-1\r\n\r\nNOT A REQUEST LINE\r\n\r\n`,
    );
    const answers = reply.text.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(answers.map((a) => a.slice(0, a.indexOf('\r\n')))).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request']);
    const [first = '', second = ''] = answers;
    expect(first).toContain('\r\nX-Request-Id: pipelined-1\r\n');
    expect(JSON.parse(first.slice(first.indexOf('\r\n\r\n') + 4))).toBeInstanceOf(Array);
    expect(second).not.toContain('pipelined-1');
    expect(second).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    expect(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 400,
      message: 'malformed HTTP request',
    });
  });
});
