import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listeningPorts, metricsPortOf } from './listening-port.js';
import { until } from './until.js';

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node <script> …args` to completion (bounded by `timeoutMs`) and collects its output. */
export const runNode = async (
  script: string,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 30_000,
): Promise<RunResult> => {
  const child = spawn(process.execPath, [script, ...args], {
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
 * A free TCP port on 127.0.0.1, for a program that cannot bind port 0 and say which port it got
 * (PostgreSQL, PgBouncer): another process may take it before that program binds it, so start
 * such a program with startOnFreePort. startServer needs none (METRICS_PORT=0 included).
 */
export const freePort = async (): Promise<number> => {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new TypeError('no port from the OS');
  return address.port;
};

/** Whether a program's failure says its port was taken (PostgreSQL, PgBouncer, Node). */
export const addressInUse = (text: string): boolean => /could not bind|address already in use|EADDRINUSE/i.test(text);

/**
 * Starts a program that must be told its port (PostgreSQL, PgBouncer) on a freePort, and again on
 * a fresh one when another process took the port before the program bound it: when `start`
 * rejects with an error whose message says so (addressInUse; `start` puts the program's log in
 * it, and cleans up after itself). Any other failure, or the last of `attempts`, is thrown.
 */
export const startOnFreePort = async <A>(start: (port: number) => Promise<A>, attempts = 3): Promise<A> => {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (error) {
      if (attempt >= attempts || !addressInUse(error instanceof Error ? error.message : String(error))) throw error;
    }
  }
};

export const tempDir = async (prefix: string): Promise<{ path: string; remove(): Promise<void> }> => {
  const path = await mkdtemp(join(tmpdir(), `plant-store-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
};

export interface ServerProcess {
  readonly url: string;
  readonly port: number;
  /** Where GET /metrics listens: METRICS_PORT, or the port the OS gave for METRICS_PORT=0; undefined without. */
  readonly metricsPort: number | undefined;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the process wrote so far (stdout + stderr). */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Sends `signal` and waits for the exit; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

export interface StartServerOptions {
  /** The server's entry point, e.g. `apps/server/dist/main.js` or a deployed copy's. */
  readonly main: string;
  /** Working directory of the process (relative DATABASE_URL paths resolve against it). */
  readonly cwd?: string;
  /** How long to wait for the server to listen and answer /healthz (default 20 s). */
  readonly timeoutMs?: number;
}

/**
 * Starts a built server as a real process on 127.0.0.1 (never another address), on a port the
 * OS gives it when it binds (PORT=0, so no other process can take the port in between), and waits
 * until it says where it listens (listeningPorts) and /healthz answers there. METRICS_PORT=0 gives
 * the metrics listener a port the same way: startServer then also waits for it (metricsPort).
 */
export const startServer = async (env: Record<string, string>, options: StartServerOptions): Promise<ServerProcess> => {
  const child = spawn(process.execPath, [options.main], {
    cwd: options.cwd,
    env: { ...process.env, LOG_LEVEL: 'info', ...env, HOST: '127.0.0.1', PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const metricsPort = Number(env['METRICS_PORT'] ?? 0);
  const ready = async (): Promise<{ port: number; metricsPort: number | undefined } | undefined> => {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`server exited with ${child.exitCode ?? child.signalCode} before it was ready:\n${output}`);
    }
    // Several candidates when the port came from /proc and a metrics listener has one too: the
    // API is the one that answers /healthz (the metrics listener answers 404).
    for (const port of listeningPorts(output, child.pid as number, metricsPort > 0 ? [metricsPort] : [])) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        await response.arrayBuffer();
        if (!response.ok) continue;
        if (env['METRICS_PORT'] !== '0')
          return { port, metricsPort: env['METRICS_PORT'] === undefined ? undefined : metricsPort };
        const given = metricsPortOf(output, child.pid as number, port);
        return given === undefined ? undefined : { port, metricsPort: given };
      } catch {
        // not answering yet
      }
    }
    return undefined;
  };
  let listening: { port: number; metricsPort: number | undefined };
  try {
    listening = await until('the server to listen and answer /healthz', ready, options.timeoutMs ?? 20_000, {
      detail: () => output,
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const { port } = listening;
  const url = `http://127.0.0.1:${port}`;
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    url,
    port,
    metricsPort: listening.metricsPort,
    child,
    pid: child.pid as number,
    output: () => output,
    exited,
    alive,
    stop: async (signal = 'SIGTERM', graceMs = 15_000) => {
      if (!alive()) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const { code } = await exited;
      clearTimeout(timer);
      return code;
    },
  };
};

/** The resident set size of a process in bytes, from /proc/<pid>/status (Linux). */
export const rssBytes = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
};
