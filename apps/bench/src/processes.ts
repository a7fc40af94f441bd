import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether `taskset` (util-linux) can pin processes here. */
export const tasksetAvailable = (): boolean => {
  const probe = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
};

export interface SpawnNodeOptions {
  /** CPU core to pin to with `taskset -c`, or undefined to run unpinned. */
  readonly core: number | undefined;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/**
 * Starts `node <args>` (through `taskset -c <core>` when pinned: taskset execs node, so the child's
 * pid is node's own and /proc/<pid> describes the server, not a wrapper).
 */
export const spawnNode = ({ core, args, env, cwd }: SpawnNodeOptions): ChildProcess => {
  const command = core === undefined ? process.execPath : 'taskset';
  const argv = core === undefined ? [...args] : ['-c', String(core), process.execPath, ...args];
  return spawn(command, argv, {
    env: env ?? process.env,
    ...(cwd === undefined ? {} : { cwd }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
};

/**
 * A port the kernel had free a moment ago. Another process could take it before the server binds
 * it (testkit's startOnFreePort retries that for tests); the bench leaves it: it starts one server
 * at a time on a machine kept quiet for measuring, and a taken port fails the start loudly (the
 * server exits with EADDRINUSE before /readyz answers) rather than skewing a number.
 */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

export const waitForExit = (child: ChildProcess): Promise<void> =>
  exited(child) ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/** Polls `url` until it answers 200; fails when the child exits first or after `timeoutMs`. */
export const waitUntilReady = async (
  url: string,
  child: ChildProcess,
  timeoutMs: number,
  output: () => string,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited(child))
      throw new Error(`server exited (code ${String(child.exitCode ?? child.signalCode)}) before ready:\n${output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server not ready at ${url} after ${timeoutMs} ms:\n${output()}`);
    await sleep(50);
  }
};

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export const stopChild = async (child: ChildProcess, graceMs = 10_000): Promise<void> => {
  if (exited(child)) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await waitForExit(child);
  clearTimeout(timer);
};

/** Keeps the last `limit` characters a child wrote, for error messages. */
export const captureOutput = (child: ChildProcess, limit = 8000): (() => string) => {
  let text = '';
  const keep = (chunk: Buffer): void => {
    text = (text + chunk.toString('utf8')).slice(-limit);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
};

const statusField = (pid: number, field: string): number | undefined => {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
};

/** Resident set size now, and its high-water mark over the process's life (bytes; Linux only). */
export const memoryOf = (pid: number): { readonly rss: number | undefined; readonly hwm: number | undefined } => ({
  rss: statusField(pid, 'VmRSS'),
  hwm: statusField(pid, 'VmHWM'),
});

const clockTicks = ((): number => {
  const probe = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(probe.stdout?.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

/** CPU seconds (user + system) the process has used so far, from /proc/<pid>/stat; undefined off Linux. */
export const cpuSecondsOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return undefined;
  }
};

/**
 * Seconds core `core` spent busy (user, nice, system, irq, softirq, steal: everything but idle and
 * iowait) since boot, from /proc/stat; undefined off Linux.
 */
export const coreBusySecondsOf = (core: number): number | undefined => {
  try {
    const line = readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`cpu${core} `));
    if (line === undefined) return undefined;
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return (user + nice + system + irq + softirq + steal) / clockTicks;
  } catch {
    return undefined;
  }
};

/** CPU seconds of the process's children that have exited and been waited for (cutime + cstime). */
export const childrenCpuSecondsOf = (pid: number | 'self'): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / clockTicks;
  } catch {
    return undefined;
  }
};

/** Samples VmRSS every `intervalMs` and keeps the largest value seen. */
export const sampleRss = (pid: number, intervalMs = 100): { stop(): number | undefined } => {
  let peak: number | undefined;
  const take = (): void => {
    const { rss } = memoryOf(pid);
    if (rss !== undefined && (peak === undefined || rss > peak)) peak = rss;
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return peak;
    },
  };
};

/**
 * On Ctrl-C or SIGTERM: runs every cleanup (servers stopped, databases dropped), removes the work
 * folder and exits 130, so an interrupted run leaves nothing behind.
 */
export const cleanUpOnSignal = (
  cleanups: readonly (() => Promise<unknown>)[],
  work: string,
  log: (line: string) => void,
): void => {
  const interrupted = (): void => {
    log('interrupted: stopping servers and cleaning up');
    void Promise.allSettled(cleanups.map((c) => c())).finally(() => {
      rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
};
