import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { captureOutput, freePort, spawnNode, stopChild, waitUntilReady } from './processes.js';
import { serverPackageDir } from './stores.js';

const run = promisify(execFile);

/** A server process under load: where it listens, the token that opens it, its pid for /proc. */
export interface RunningServer {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
  /** The last lines it wrote (for error messages). */
  output(): string;
  /** False once the process has exited. */
  alive(): boolean;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

const launch = async (args: readonly string[], env: NodeJS.ProcessEnv, core: number | undefined, token: string, cwd?: string): Promise<RunningServer> => {
  const port = await freePort();
  const child = spawnNode({ core, args, env: { ...env, HOST: '127.0.0.1', PORT: String(port) }, ...(cwd === undefined ? {} : { cwd }) });
  const output = captureOutput(child);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${url}/readyz`, child, READY_TIMEOUT_MS, output);
  } catch (error) {
    await stopChild(child, 2000);
    throw error;
  }
  if (child.pid === undefined) throw new Error('server process has no pid');
  return { url, token, pid: child.pid, output, alive: () => child.exitCode === null && child.signalCode === null, stop: () => stopChild(child) };
};

/** The ceiling (src/ceiling-server.ts) as its own process, like the real server. */
export const startCeiling = (core: number | undefined): Promise<RunningServer> => {
  const token = `ceiling_${randomBytes(24).toString('base64url')}`;
  const entry = fileURLToPath(new URL('./ceiling-main.js', import.meta.url));
  return launch([entry], { ...process.env, CEILING_TOKEN: token }, core, token);
};

const TOKEN_SHAPE = /^[A-Za-z0-9\-._~+/]{20,}=*$/;

/**
 * Issues a read+write token with the server's own CLI against `databaseUrl` (which also creates
 * the schema) and returns the secret, which the CLI prints alone on stdout (details on stderr).
 */
export const createToken = async (env: NodeJS.ProcessEnv, warn: (line: string) => void): Promise<string> => {
  const cli = join(serverPackageDir(), 'dist', 'tokens-cli.js');
  const args = [cli, 'create', '--name', 'bench', '--scope', 'plants:read', '--scope', 'plants:write'];
  const outcome = await run(process.execPath, args, { env, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: unknown; stdout?: string; stderr?: string; message?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr !== undefined && error.stderr !== '' ? error.stderr : (error.message ?? ''),
    }),
  );
  const token = outcome.stdout.trim();
  if (!TOKEN_SHAPE.test(token)) throw new Error(`tokens-cli create printed no token (exit ${outcome.code}): ${outcome.stderr.trim()}`);
  // The CLI prints the secret only after the store committed it, so the token is usable even if
  // the process then failed to exit cleanly; say so rather than hide it.
  if (outcome.code !== 0) warn(`tokens-cli create printed a token but exited with code ${outcome.code}`);
  return token;
};

export interface PlantServerOptions {
  readonly core: number | undefined;
  /** DATABASE_URL, SQLITE_SYNCHRONOUS, LOG_LEVEL… */
  readonly env: NodeJS.ProcessEnv;
  readonly token: string;
  /** When set, the server runs with `node --cpu-prof --cpu-prof-dir <dir>`. */
  readonly cpuProfileDir?: string;
  /** Another build's `apps/server` folder (BENCH_BASELINE_DIR); default this checkout's. */
  readonly serverDir?: string;
}

/** The production server: `node apps/server/dist/main.js`, configured by environment. */
export const startPlantServer = ({ core, env, token, cpuProfileDir, serverDir }: PlantServerOptions): Promise<RunningServer> => {
  const dir = serverDir ?? serverPackageDir();
  const flags = cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir];
  return launch([...flags, join(dir, 'dist', 'main.js')], env, core, token, dir);
};
