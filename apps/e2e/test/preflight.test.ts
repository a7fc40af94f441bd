/**
 * tools/preflight.mjs, which `pnpm test`, `pnpm test:lines` and `.ci/run` run before any suite:
 * one message naming each service the tests need that does not answer, and how to start it; under
 * CI=true it stops the run (exit 1), otherwise it warns (exit 0).
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describePostgres, pgTestUrl } from '@plant-store/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const preflight = fileURLToPath(new URL('../../../tools/preflight.mjs', import.meta.url));

/** Runs the check with `env` over this process's environment (CI removed unless given). */
const run = (env: Record<string, string>): Promise<{ code: number; stderr: string }> =>
  new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env };
    delete childEnv['CI'];
    execFile(process.execPath, [preflight], { env: { ...childEnv, ...env }, timeout: 30_000 }, (error, _out, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stderr }),
    );
  });

/** Port 1 of 127.0.0.1: nothing listens there. */
const nowhere = { PG_TEST_URL: 'postgres://postgres@127.0.0.1:1/test', REDIS_TEST_URL: 'redis://127.0.0.1:1' };

describe('tools/preflight.mjs', () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it('under CI=true stops the run, naming each missing service and how to start it', async () => {
    const { code, stderr } = await run({ ...nowhere, CI: 'true' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^preflight: the tests need services that do not answer/);
    expect(stderr).toContain('- PostgreSQL at postgres://postgres@127.0.0.1:1/test: connection refused');
    expect(stderr).toContain('- Redis at redis://127.0.0.1:1: connection refused');
    expect(stderr).toContain('-e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:15');
    expect(stderr).toContain('docker run -d --name plant-store-redis -p 127.0.0.1:6379:6379 redis:7');
    expect(stderr).toContain('or set PG_TEST_URL to one that runs.');
    expect(stderr).toContain('or set REDIS_TEST_URL to one that runs.');
  });

  it('outside CI warns and lets the run go on (those suites skip themselves)', async () => {
    const { code, stderr } = await run(nowhere);
    expect(code).toBe(0);
    expect(stderr).toMatch(/^preflight: warning: services the tests need do not answer/);
    expect(stderr).toContain('- PostgreSQL at postgres://postgres@127.0.0.1:1/test');
  });

  it('tells a port where something else answers from a missing service', async () => {
    const server = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')).listen(0, '127.0.0.1');
    servers.push(server);
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const { code, stderr } = await run({ ...nowhere, REDIS_TEST_URL: `redis://127.0.0.1:${port}`, CI: 'true' });
    expect(code).toBe(1);
    expect(stderr).toContain(`- Redis at redis://127.0.0.1:${port}: something answers there, but not Redis`);
  });
});

describePostgres('tools/preflight.mjs against the PostgreSQL of the tests', () => {
  it('passes PostgreSQL when the tests can log in, and says why not when it refuses them', async () => {
    const missingDatabase = new URL(pgTestUrl);
    missingDatabase.pathname = '/no_such_database_for_preflight';
    const refused = await run({ ...nowhere, PG_TEST_URL: missingDatabase.toString(), CI: 'true' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'it answers, but refuses the tests: database "no_such_database_for_preflight" does not exist',
    );

    const { stderr } = await run({ ...nowhere, PG_TEST_URL: pgTestUrl, CI: 'true' });
    expect(stderr).not.toContain('- PostgreSQL at');
    expect(stderr).toContain('- Redis at redis://127.0.0.1:1');
  });
});
