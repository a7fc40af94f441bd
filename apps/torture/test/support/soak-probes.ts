import { readdirSync, readFileSync } from 'node:fs';

/**
 * What the soak reads about the server process from outside, without changing the server: Linux's
 * /proc and the server's own Prometheus endpoint (METRICS_PORT). Cumulative figures; the soak
 * takes their differences per interval.
 */

/** `nodejs_heap_size_used_bytes` from the server's /metrics (prom-client's process metrics). */
export const heapUsedBytes = async (metricsPort: number): Promise<number> => {
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  const value = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1];
  if (response.status !== 200 || value === undefined)
    throw new Error(`GET /metrics → ${response.status} without nodejs_heap_size_used_bytes`);
  return Number(value);
};

/** Open file descriptors: the entries of /proc/<pid>/fd. */
export const openDescriptors = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every mainstream Linux ABI. */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system, every thread, the exited ones included) the process used so far, in ms. */
export const cpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // after the command name (in parentheses, which may hold spaces): field 3 (state) onwards
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
};

/**
 * How long the process's main thread (the event loop) was ready to run but waited for a CPU so
 * far, in ms: the second field of /proc/<pid>/schedstat. It grows when other processes take the
 * machine's CPUs, not when the server itself does more work.
 */
export const runQueueWaitMs = (pid: number): number =>
  Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
