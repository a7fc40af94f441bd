import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freshPostgresUrl, startServer, tempDir, type RunResult, type ServerProcess } from '@plant-store/testkit';
import { afterAll, beforeAll } from 'vitest';

/** The server's extra token (PLANT_STORE_STATIC_TOKEN), so no token CLI run is needed. */
export const TOKEN = 'examples-test-token-0123456789';

export const paths = {
  serverMain: fileURLToPath(new URL('../../apps/server/dist/main.js', import.meta.url)),
  webhooksCli: fileURLToPath(new URL('../../apps/server/dist/webhooks/cli.js', import.meta.url)),
  examples: fileURLToPath(new URL('../', import.meta.url)),
};

export interface LiveServer {
  server: ServerProcess;
  databaseUrl: string;
}

/**
 * One real server process (the built apps/server/dist/main.js, on 127.0.0.1 and a free port) over
 * a fresh SQLite file or a fresh PostgreSQL schema, for the tests of a describe block; stopped and
 * its store removed afterwards. `prepare` runs against the store before the server starts.
 */
export const useServer = (
  store: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
  prepare?: (databaseUrl: string) => Promise<void>,
): LiveServer => {
  const live = {} as LiveServer;
  let remove: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (store === 'sqlite') {
      const dir = await tempDir('examples');
      remove = dir.remove;
      live.databaseUrl = `sqlite:${dir.path}/plant-store.db`;
    } else {
      const schema = await freshPostgresUrl();
      remove = schema.drop;
      live.databaseUrl = schema.url;
    }
    await prepare?.(live.databaseUrl);
    live.server = await startServer(
      { DATABASE_URL: live.databaseUrl, PLANT_STORE_STATIC_TOKEN: TOKEN, LOG_LEVEL: 'warn', ...env },
      { main: paths.serverMain },
    );
  });
  afterAll(async () => {
    await live.server?.stop();
    await remove?.();
  });
  return live;
};

/** Runs a command to completion (bounded by `timeoutMs`), with `env` over the test's environment. */
export const run = async (
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<RunResult> => {
  const child = spawn(command, args, {
    cwd: paths.examples,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
};

/**
 * Runs an example as its one command does once built (`node dist/<name>.js`, or bash for a
 * shell script) against `server`, as PLANT_STORE_URL and PLANT_STORE_TOKEN, and returns its
 * stdout; fails with everything it printed unless it exited 0.
 */
export const runExample = async (
  server: ServerProcess,
  file: string,
  env: Record<string, string> = {},
  args: readonly string[] = [],
): Promise<string> => {
  const exampleEnv = { PLANT_STORE_URL: server.url, PLANT_STORE_TOKEN: TOKEN, ...env };
  const result = file.endsWith('.sh')
    ? await run('bash', [`src/${file}`, ...args], exampleEnv)
    : await run(process.execPath, [`dist/${file}`, ...args], exampleEnv);
  if (result.code !== 0) throw new Error(`${file} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
};

/** Every plant the server holds (one page is plenty here). */
export const plantsIn = async (server: ServerProcess): Promise<unknown[]> => {
  const response = await fetch(`${server.url}/plants?limit=1000`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return (await response.json()) as unknown[];
};
