import { freePort, until } from '@plant-store/testkit';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeImage, docker, firstRunToken, runCommand, type CommandResult } from './support/docker.js';

const composeFile = fileURLToPath(new URL('../../../compose.yaml', import.meta.url));

/**
 * The repository's compose.yaml: both profiles are valid, and the default one (SQLite) starts the
 * image, keeps its plants in the named volume across `down` and `up`, and goes away with `down -v`.
 * The PostgreSQL profile's own images (postgres, redis) come from a registry that CI cannot
 * reach, so it is checked as configuration here and run in postgres.test.ts without compose.
 */
describeImage('compose.yaml', (image) => {
  const project = `plant-store-test-${randomBytes(4).toString('hex')}`;
  let port: number;
  /** Compose v1 (`docker-compose`, Debian's) or v2 (`docker compose`). */
  let command: readonly string[];

  const compose = (args: readonly string[], timeoutMs = 120_000): Promise<CommandResult> =>
    runCommand(command[0]!, [...command.slice(1), '--file', composeFile, '--project-name', project, ...args], {
      timeoutMs,
      env: { ...process.env, PLANT_STORE_IMAGE: image, PLANT_STORE_PORT: String(port) },
    });
  const composeOk = async (args: readonly string[]): Promise<string> => {
    const result = await compose(args);
    if (result.code !== 0) throw new Error(`docker-compose ${args.join(' ')}: ${result.stderr}`);
    return result.stdout + result.stderr;
  };

  beforeAll(async () => {
    port = await freePort();
    for (const candidate of [['docker-compose'], ['docker', 'compose']]) {
      command = candidate;
      if ((await compose(['version'])).code === 0) return;
    }
    throw new Error('neither docker-compose nor docker compose runs: install Compose (Debian: docker-compose)');
  });

  afterAll(async () => {
    await compose(['--profile', 'postgres', 'down', '--volumes', '--remove-orphans']);
  });

  it('is valid with and without the postgres profile', async () => {
    await composeOk(['config', '--quiet']);
    const postgres = await composeOk(['--profile', 'postgres', 'config']);
    expect(postgres).toMatch(/DATABASE_URL: postgres:\/\/plant:plant@postgres:5432\/plants/);
    expect(postgres).toMatch(/REDIS_URL: redis:\/\/redis:6379/);
  });

  it('up starts the SQLite service on its volume; the plants outlive down and up', async () => {
    await composeOk(['up', '--detach', '--no-build']);
    const url = `http://127.0.0.1:${port}`;
    const log = await until(
      'the first-run token in the service log',
      async () => {
        const text = await composeOk(['logs', '--no-color']);
        return /pst_/.test(text) ? text : undefined;
      },
      30_000,
      { everyMs: 100 },
    );
    const token = firstRunToken(log.replace(/^[^|\n]*\| ?/gm, ''));
    const created = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Composed' }),
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;

    await composeOk(['down']);
    await composeOk(['up', '--detach', '--no-build']);
    const read = await until(
      'the service to answer again',
      async (): Promise<unknown> => {
        const reply = await fetch(`${url}${location}`, { headers: { authorization: `Bearer ${token}` } }).catch(
          () => undefined,
        );
        return reply?.status === 200 ? reply.json() : undefined;
      },
      30_000,
      { everyMs: 100 },
    );
    expect(read).toEqual({ id: Number(location.split('/')[2]), name: 'Composed' });

    await composeOk(['down', '--volumes']);
    const volumes = await docker(['volume', 'ls', '--quiet', '--filter', `name=${project}`]);
    expect(volumes.stdout.trim()).toBe('');
  });
});
