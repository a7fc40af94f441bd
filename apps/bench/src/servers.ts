import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { captureOutput, freePort, spawnNode, stopChild, waitUntilReady } from './processes.js';
import { serverPackageDir } from './stores.js';
import type { SinkStats } from './otlp-sink.js';
import type { ReceiverStats } from './webhook-receiver.js';

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

const launch = async (
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  core: number | undefined,
  token: string,
  cwd?: string,
): Promise<RunningServer> => {
  const port = await freePort();
  const child = spawnNode({
    core,
    args,
    env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
    ...(cwd === undefined ? {} : { cwd }),
  });
  const output = captureOutput(child);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${url}/readyz`, child, READY_TIMEOUT_MS, output);
  } catch (error) {
    await stopChild(child, 2000);
    throw error;
  }
  if (child.pid === undefined) throw new Error('server process has no pid');
  return {
    url,
    token,
    pid: child.pid,
    output,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: () => stopChild(child),
  };
};

/** The ceiling (src/ceiling-server.ts) as its own process, like the real server. */
export const startCeiling = (core: number | undefined): Promise<RunningServer> => {
  const token = `ceiling_${randomBytes(24).toString('base64url')}`;
  const entry = fileURLToPath(new URL('./ceiling-main.js', import.meta.url));
  return launch([entry], { ...process.env, CEILING_TOKEN: token }, core, token);
};

/** The peers (src/peers/), each started like the ceiling by the one entry src/peers/peer-main.ts. */
export type PeerName = 'fastify-sqlite' | 'fastify-sqlite-async' | 'fastify-postgres' | 'koa-minimal';

/**
 * A peer as its own process, like the ceiling: one fixed token, its store at `database` (a SQLite
 * file, or a PostgreSQL URL for fastify-postgres), which it creates its table in.
 */
export const startPeer = (
  peer: PeerName,
  core: number | undefined,
  database: string,
  /** The built entry; tests pass dist/peers/peer-main.js. */
  entry: string = fileURLToPath(new URL('./peers/peer-main.js', import.meta.url)),
): Promise<RunningServer> => {
  const token = `peer_${randomBytes(24).toString('base64url')}`;
  return launch([entry], { ...process.env, PEER: peer, PEER_TOKEN: token, PEER_DATABASE: database }, core, token);
};

const TOKEN_SHAPE = /^[A-Za-z0-9\-._~+/]{20,}=*$/;
const SECRET_SHAPE = /^whsec_[A-Za-z0-9+/]{40,}=*$/;

interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `node <apps/server/bin/…> args` (of `serverDir`, default this checkout's server), its exit code
 * and output whether it succeeded or not. Through the package's bins, which lead to the program
 * wherever a build keeps it in dist/ (a baseline build may keep it elsewhere than this one).
 */
const runServerCli = (
  bin: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  serverDir: string = serverPackageDir(),
): Promise<CliOutcome> =>
  run(process.execPath, [join(serverDir, 'bin', bin), ...args], { env, timeout: 60_000, cwd: serverDir }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: unknown; stdout?: string; stderr?: string; message?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr !== undefined && error.stderr !== '' ? error.stderr : (error.message ?? ''),
    }),
  );

/**
 * Issues a read+write token with the server's own CLI against `databaseUrl` (which also creates
 * the schema) and returns the secret, which the CLI prints alone on stdout (details on stderr).
 * `serverDir` names another build's server (BENCH_BASELINE_DIR): its own CLI then creates the
 * schema that build knows, not this checkout's (whose newer migrations the older server would
 * refuse or, worse, write past).
 */
export const createToken = async (
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
  serverDir?: string,
): Promise<string> => {
  const outcome = await runServerCli(
    'plant-store-tokens.js',
    ['create', '--name', 'bench', '--scope', 'plants:read', '--scope', 'plants:write'],
    env,
    serverDir,
  );
  const token = outcome.stdout.trim();
  if (!TOKEN_SHAPE.test(token))
    throw new Error(`plant-store-tokens create printed no token (exit ${outcome.code}): ${outcome.stderr.trim()}`);
  // The CLI prints the secret only after the store committed it, so the token is usable even if
  // the process then failed to exit cleanly; say so rather than hide it.
  if (outcome.code !== 0) warn(`plant-store-tokens create printed a token but exited with code ${outcome.code}`);
  return token;
};

/**
 * Registers a webhook endpoint for every event type with the server's CLI (`plant-store-webhooks
 * add --url`), in the store `env.DATABASE_URL` names; `env` must allow the URL (WEBHOOK_ALLOW_HTTP,
 * WEBHOOK_ALLOW_PRIVATE for a loopback receiver), with the CLI of `serverDir` (default this
 * checkout's server). The CLI prints the signing secret alone on stdout.
 */
export const addWebhookEndpoint = async (env: NodeJS.ProcessEnv, url: string, serverDir?: string): Promise<void> => {
  const outcome = await runServerCli('plant-store-webhooks.js', ['add', '--url', url], env, serverDir);
  if (outcome.code !== 0 || !SECRET_SHAPE.test(outcome.stdout.trim())) {
    throw new Error(`webhooks cli add --url ${url} failed (exit ${outcome.code}): ${outcome.stderr.trim()}`);
  }
};

/**
 * One of the bench's helper processes (src/bounded-child.ts) on `core`, and a reader of its
 * `GET /stats` (undefined when it did not answer).
 */
const startHelper = async <S>(
  script: string,
  core: number | undefined,
  lifetimeSeconds: number,
): Promise<{ readonly running: RunningServer; readonly stats: () => Promise<S | undefined> }> => {
  const entry = fileURLToPath(new URL(script, import.meta.url));
  const running = await launch(
    [entry],
    { ...process.env, RECEIVER_LIFETIME_SECONDS: String(Math.ceil(lifetimeSeconds)) },
    core,
    '',
  );
  const stats = async (): Promise<S | undefined> => {
    try {
      const res = await fetch(`${running.url}/stats`, { signal: AbortSignal.timeout(2000) });
      return res.status === 200 ? ((await res.json()) as S) : undefined;
    } catch {
      return undefined;
    }
  };
  return { running, stats };
};

/** The webhook receiver process (src/webhook-receiver-main.ts). */
export interface RunningReceiver {
  /** The URL endpoints are registered with. */
  readonly url: string;
  readonly pid: number;
  /** What it counted so far (GET /stats); undefined when it did not answer. */
  stats(): Promise<ReceiverStats | undefined>;
  stop(): Promise<void>;
}

/**
 * Starts the webhook receiver as its own process on `core`; it exits by itself after
 * `lifetimeSeconds` or when this process goes away.
 */
export const startWebhookReceiver = async (
  core: number | undefined,
  lifetimeSeconds: number,
): Promise<RunningReceiver> => {
  const { running, stats } = await startHelper<ReceiverStats>('./webhook-receiver-main.js', core, lifetimeSeconds);
  return { url: `${running.url}/hook`, pid: running.pid, stats, stop: () => running.stop() };
};

/** The OTLP sink process (src/otlp-sink-main.ts). */
export interface RunningSink {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the server posts to `<url>/v1/traces`). */
  readonly url: string;
  readonly pid: number;
  /** What it counted so far (GET /stats); undefined when it did not answer. */
  stats(): Promise<SinkStats | undefined>;
  stop(): Promise<void>;
}

/**
 * Starts the OTLP sink as its own process on `core`; it exits by itself after `lifetimeSeconds` or
 * when this process goes away.
 */
export const startOtlpSink = async (core: number | undefined, lifetimeSeconds: number): Promise<RunningSink> => {
  const { running, stats } = await startHelper<SinkStats>('./otlp-sink-main.js', core, lifetimeSeconds);
  return { url: running.url, pid: running.pid, stats, stop: () => running.stop() };
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
  /** More flags for node, before the entry (`--import` of the data bench's probe). */
  readonly nodeFlags?: readonly string[];
}

/** The production server: `node apps/server/dist/main.js`, configured by environment. */
export const startPlantServer = ({
  core,
  env,
  token,
  cpuProfileDir,
  serverDir,
  nodeFlags = [],
}: PlantServerOptions): Promise<RunningServer> => {
  const dir = serverDir ?? serverPackageDir();
  const flags = [...nodeFlags, ...(cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir])];
  return launch([...flags, join(dir, 'dist', 'main.js')], env, core, token, dir);
};
