/**
 * The production entry point as a child process (node dist/main.js — the package's test task runs
 * after its build): durability across SIGKILL, graceful shutdown on SIGTERM, the first-run token,
 * the one-line configuration error and the token CLI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '@plant-store/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../src/tokens/opaque-token.js';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
const mainJs = join(dist, 'main.js');
const cliJs = join(dist, 'tokens', 'cli.js');

const dir = mkdtempSync(join(tmpdir(), 'plant-store-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const freshDb = () => `sqlite:${join(dir, `db-${(counter += 1)}`, 'plants.db')}`;

beforeAll(() => {
  if (!existsSync(mainJs) || !existsSync(cliJs))
    throw new Error(`build the server first (pnpm build): ${mainJs} is missing`);
});

/** Only what the child needs: the test's own environment may carry DATABASE_URL, AUTH_MODE… */
const childEnv = (env: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'] ?? '',
  HOME: process.env['HOME'] ?? dir,
  PORT: '0',
  LOG_LEVEL: 'info',
  ...env,
});

interface Child {
  readonly process: ChildProcess;
  readonly port: number;
  readonly stdout: string[];
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  waitForLog(msg: string): Promise<Record<string, unknown>>;
  /** Resolves with the first match of `pattern` in stderr (the two pipes are not ordered). */
  waitForStderr(pattern: RegExp): Promise<string>;
}

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

const startServer = async (env: Record<string, string>): Promise<Child> => {
  const child = spawn(process.execPath, [mainJs], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const stdout: string[] = [];
  let stderr = '';
  const waiters: { msg: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      stdout.push(line);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      for (const waiter of waiters.filter((w) => w.msg === parsed['msg'])) waiter.resolve(parsed);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitForLog = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = stdout.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === msg);
      if (seen !== undefined) return resolve(seen);
      waiters.push({ msg, resolve });
      void exited.then((code) =>
        reject(new Error(`server exited (${code}) before logging "${msg}"; stderr: ${stderr}`)),
      );
    });
  const listening = await waitForLog('listening');
  const port = Number(new URL(String(listening['url'])).port);
  const waitForStderr = (pattern: RegExp): Promise<string> =>
    until(`stderr to match ${pattern}`, () => pattern.exec(stderr)?.[0], 20_000, {
      everyMs: 50,
      detail: () => stderr,
    });
  return { process: child, port, stdout, stderr: () => stderr, exited, waitForLog, waitForStderr };
};

const call = (
  port: number,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  agent?: http.Agent,
): Promise<{ status: number; location?: string }> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: agent ?? false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ...(res.headers.location === undefined ? {} : { location: res.headers.location }),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });

describe('durability', () => {
  it('keeps every acknowledged create and delete across kill -9 and a restart', async () => {
    const token = generateToken();
    const env = { DATABASE_URL: freshDb(), PLANT_STORE_STATIC_TOKEN: token };
    const first = await startServer(env);
    for (let id = 1; id <= 40; id++)
      expect((await call(first.port, 'POST', '/plants', token, { id, name: `seed ${id}` })).status).toBe(201);

    const created = new Set<string>();
    const deleted = new Set<number>();
    let killed = false;
    const kill = () => {
      if (!killed) first.process.kill('SIGKILL');
      killed = true;
    };
    // Creates and deletes in flight together; the process dies the moment the 60th is acknowledged.
    let acknowledged = 0;
    const work = [
      ...Array.from({ length: 80 }, (_, i) => async () => {
        const reply = await call(first.port, 'POST', '/plants', token, { name: `burst ${i}` });
        if (reply.status === 201 && reply.location !== undefined) created.add(reply.location);
        if (++acknowledged === 60) kill();
      }),
      ...Array.from({ length: 40 }, (_, i) => async () => {
        const reply = await call(first.port, 'DELETE', `/plants/${i + 1}`, token);
        if (reply.status === 204) deleted.add(i + 1);
        if (++acknowledged === 60) kill();
      }),
    ];
    await Promise.allSettled(work.map((run) => run()));
    kill();
    expect(await first.exited).toBeNull();
    expect(created.size + deleted.size).toBeGreaterThan(0);

    const second = await startServer(env);
    for (const location of created) expect((await call(second.port, 'GET', location, token)).status).toBe(200);
    for (const id of deleted) expect((await call(second.port, 'GET', `/plants/${id}`, token)).status).toBe(404);
    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM lets an in-flight request finish, then exits 0', async () => {
    const token = generateToken();
    const env = { DATABASE_URL: freshDb(), PLANT_STORE_STATIC_TOKEN: token };
    const server = await startServer(env);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await call(server.port, 'GET', '/healthz', token, undefined, agent)).status).toBe(200);

    const body = JSON.stringify({ id: 99, name: 'in flight' });
    const reply = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: '/plants',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            expect: '100-continue',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      // The server has parsed the request and is waiting for its body: now ask it to stop.
      req.on('continue', () => {
        server.process.kill('SIGTERM');
        void server.waitForLog('shutting down').then(() => req.end(body));
      });
      req.flushHeaders();
    });
    expect(await reply).toEqual({ status: 201, connection: 'close' });
    expect(await server.exited).toBe(0);
    agent.destroy();

    const again = await startServer(env);
    expect((await call(again.port, 'GET', '/plants/99', token)).status).toBe(200);
    again.process.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });
});

describe('the request log', () => {
  // stdout is written in chunks (logger.ts): a quiet server's line still comes out within the flush
  // interval, and a normal exit writes every line first. Only kill -9 may lose the last lines.
  it("writes a quiet request's line while running, and every line before a SIGTERM exit", async () => {
    const token = generateToken();
    const server = await startServer({ DATABASE_URL: freshDb(), PLANT_STORE_STATIC_TOKEN: token });
    const requestLines = () =>
      server.stdout
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line['msg'] === 'request');
    expect((await call(server.port, 'GET', '/plants/1', token)).status).toBe(404);
    const first = await server.waitForLog('request');
    expect(first).toMatchObject({ method: 'GET', route: '/plants/{id}', status: 404 });

    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const replies = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        call(server.port, 'POST', '/plants', token, { id: i + 1, name: `p${i}` }, agent),
      ),
    );
    expect(replies.every((reply) => reply.status === 201)).toBe(true);
    agent.destroy();
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(requestLines().filter((line) => line['method'] === 'POST' && line['status'] === 201)).toHaveLength(300);
    expect(server.stdout.map((line) => (JSON.parse(line) as Record<string, unknown>)['msg']).at(-1)).toBe('stopped');
  });
});

describe('first run', () => {
  it('creates one token, prints it once on stderr, never into the log, and it works', async () => {
    const env = { DATABASE_URL: freshDb() };
    const first = await startServer(env);
    const token = await first.waitForStderr(/pst_[A-Za-z0-9_-]{43}/);
    expect((await call(first.port, 'GET', '/plants', token)).status).toBe(200);
    first.process.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.stdout.join('\n')).not.toContain('pst_');

    expect(first.stderr().match(/pst_/g)).toHaveLength(2); // the token and the curl example, nothing more

    const second = await startServer(env);
    expect((await call(second.port, 'GET', '/plants', token)).status).toBe(200);
    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.stderr()).not.toContain('pst_');
  });
});

describe("PLANT_STORE_TOKEN (the client CLI's own token) in the server's environment", () => {
  it('is not accepted, does not stop the first-run token, and is named in one warning without its value', async () => {
    // A shell that exported a read-only token for the CLI, then started the server from it.
    const clientToken = generateToken();
    const server = await startServer({ DATABASE_URL: freshDb(), PLANT_STORE_TOKEN: clientToken });
    expect(
      (await call(server.port, 'POST', '/plants', clientToken, { name: 'not with the client token' })).status,
    ).toBe(401);
    expect((await call(server.port, 'GET', '/plants', clientToken)).status).toBe(401);
    const firstRun = await server.waitForStderr(/pst_[A-Za-z0-9_-]{43}/);
    expect(firstRun).not.toBe(clientToken);
    expect((await call(server.port, 'GET', '/plants', firstRun)).status).toBe(200);
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const warnings = server.stdout
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['level'] === 40);
    expect(warnings.map((line) => line['msg'])).toEqual([
      expect.stringMatching(/^PLANT_STORE_TOKEN is set but the server ignores it/),
    ]);
    expect(server.stdout.join('\n')).not.toContain(clientToken);
    expect(server.stderr()).not.toContain(clientToken);
  });

  it('PLANT_STORE_STATIC_TOKEN is the server variable: accepted with both scopes, no first-run token', async () => {
    const token = generateToken();
    const server = await startServer({ DATABASE_URL: freshDb(), PLANT_STORE_STATIC_TOKEN: token });
    expect((await call(server.port, 'POST', '/plants', token, { name: 'static' })).status).toBe(201);
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toContain('pst_');
    expect(server.stdout.join('\n')).not.toContain(token);
  });
});

describe('configuration errors', () => {
  it.each([
    [{ PORT: 'eighty' }, 'PORT expects an integer from 0 to 65535'],
    [{ SQLITE_SYNCHRONOUS: 'OFF' }, 'SQLITE_SYNCHRONOUS expects one of FULL, NORMAL'],
    [{ AUTH_MODE: 'jwt' }, 'AUTH_MODE=jwt expects exactly one of JWT_SECRET and JWT_JWKS_URL'],
  ])('stop start-up with one line and exit code 1 for %j', (env, message) => {
    const result = spawnSync(process.execPath, [mainJs], {
      env: childEnv({ DATABASE_URL: freshDb(), ...env }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });
});

describe('listen failure', () => {
  it('a port already taken: the fatal line, the store closed, exit code 1 (no unhandled rejection)', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as net.AddressInfo;
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [mainJs], {
          env: childEnv({ DATABASE_URL: freshDb(), PORT: String(port), PLANT_STORE_STATIC_TOKEN: generateToken() }),
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 30_000,
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      expect(result.code).toBe(1);
      const lines = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.at(-1)).toMatchObject({ level: 60, msg: 'could not listen', err: { code: 'EADDRINUSE' } });
      expect(result.stderr).toBe('');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 40_000);
});

describe('token CLI (plant-store-tokens)', () => {
  it('creates, lists and revokes tokens the server honours', async () => {
    const env = childEnv({ DATABASE_URL: freshDb() });
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [cliJs, ...args], { env, encoding: 'utf8', timeout: 30_000 });

    const created = cli(
      'create',
      '--name',
      'ci',
      '--scope',
      'plants:write',
      '--scope',
      'plants:read',
      '--expires-in',
      '30d',
    );
    expect(created.status).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain('created token tok_');

    const readOnly = cli('create', '--name', 'reader', '--scope', 'plants:read');
    expect(readOnly.status).toBe(0);
    expect(cli('create', '--name', 'ci', '--scope', 'plants:read').status).toBe(2);
    expect(cli('create', '--name', 'x', '--scope', 'plants:admin').status).toBe(2);
    expect(cli('create', '--name', 'x').status).toBe(2);

    const listed = cli('list', '--json');
    expect(listed.status).toBe(0);
    expect(listed.stdout).not.toContain('pst_');
    const rows = JSON.parse(listed.stdout) as {
      name: string;
      scopes: string[];
      status: string;
      expiresAt: string | null;
    }[];
    expect(rows.map((r) => [r.name, r.scopes, r.status])).toEqual([
      ['ci', ['plants:read', 'plants:write'], 'active'],
      ['reader', ['plants:read'], 'active'],
    ]);
    expect(rows[0]?.expiresAt).not.toBeNull();
    expect(cli('list').stdout).toMatch(/^ID\s+NAME\s+SCOPES/);

    const server = await startServer({ DATABASE_URL: env['DATABASE_URL'] as string });
    expect((await call(server.port, 'POST', '/plants', token, { name: 'via CLI token' })).status).toBe(201);
    expect((await call(server.port, 'POST', '/plants', readOnly.stdout.trim(), { name: 'nope' })).status).toBe(403);

    expect(cli('revoke', 'ci').status).toBe(0);
    expect(cli('revoke', 'ci').status).toBe(1);
    expect((await call(server.port, 'GET', '/plants', token)).status).toBe(401);
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toContain('pst_'); // the store had tokens: no first-run token

    const help = cli('--help');
    expect([help.status, help.stdout.includes('plant-store-tokens create')]).toEqual([0, true]);
  });
});

describe('configured request timeouts', () => {
  it('HEADERS_TIMEOUT_MS reaches the server: unfinished headers get the JSON 408 long before the 10 s default', async () => {
    const server = await startServer({
      DATABASE_URL: freshDb(),
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '2000',
    });
    const opened = Date.now();
    const received = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    });
    // Not a speed assertion: with the default (10 s) the cut could not come before 10 s at all.
    expect(Date.now() - opened).toBeLessThan(9_000);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(received).toContain('{"error":408,"message":"request not received in time"}');
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 30_000);

  it("REQUEST_TIMEOUT_MS cuts a trickled body with a 408 that carries the id and status of the request's own log line", async () => {
    const token = generateToken();
    const server = await startServer({
      DATABASE_URL: freshDb(),
      PLANT_STORE_STATIC_TOKEN: token,
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '2000',
    });
    const received = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('error', reject);
      socket.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name": "`,
      );
      // One byte every 200 ms: never the whole body, bounded to 30 s.
      let sent = 0;
      const trickle = setInterval(() => {
        if (socket.writable && (sent += 1) < 150) socket.write('a');
        else socket.destroy();
      }, 200);
      socket.on('close', () => {
        clearInterval(trickle);
        resolve(text);
      });
    });
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(received).toContain('{"error":408,"message":"request not received in time"}');
    const replyId = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(received)?.[1];
    expect(replyId).toMatch(/^[0-9a-f-]{36}$/);
    const requestLine = await server.waitForLog('request');
    // the log line tells what the client got: 408, not 400 for the body the cut aborted
    expect(requestLine).toMatchObject({ method: 'POST', route: '/plants', status: 408 });
    expect(requestLine['reqId']).toBe(replyId);
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 40_000);
});
