import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Where a server started on port 0 listens, without a free port picked beforehand (which another
 * process may take before the server binds it).
 *
 * First from the server's own `listening` log line (`{"url":"http://127.0.0.1:PORT",…,"msg":"listening"}`,
 * apps/server's main.ts), printed at LOG_LEVEL info and below. A quieter log level hides that line,
 * so then from /proc (Linux): the TCP sockets in LISTEN state that the process holds a descriptor
 * of (the primary holds the listening socket for every worker under WORKERS), less `exclude` (a
 * METRICS_PORT the caller chose). From /proc there may be several (a metrics listener on a port
 * the OS gave it too): the caller tells them apart by asking each (startServer asks for /healthz,
 * which only the API answers).
 */
export const listeningPorts = (output: string, pid: number, exclude: readonly number[]): readonly number[] => {
  const logged = portFromLog(output);
  return logged !== undefined ? [logged] : portsOf(pid).filter((port) => !exclude.includes(port));
};

const LISTENING = /"msg":"listening"/;

/** The port of the `url` in the first line of `output` whose message matches `message`. */
const portFromLog = (output: string, message: RegExp = LISTENING): number | undefined => {
  for (const line of output.split('\n')) {
    if (!message.test(line)) continue;
    try {
      const { url } = JSON.parse(line) as { url?: unknown };
      if (typeof url === 'string') return Number(new URL(url).port);
    } catch {
      // a line that only looks like the log's (a partial line still being written)
    }
  }
  return undefined;
};

/** The TCP ports `pid` listens on: its socket descriptors among its network namespace's LISTEN sockets. */
const portsOf = (pid: number): number[] => {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return []; // no /proc (not Linux), or the process is gone: its exit is reported by the caller
  }
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state === '0A' && inode !== undefined && inodes.has(inode) && local !== undefined) {
        ports.add(Number.parseInt(local.split(':')[1] ?? '', 16));
      }
    }
  }
  return [...ports];
};

const METRICS_LISTENING = /"msg":"metrics listening/;

/**
 * Where a server started with METRICS_PORT=0 serves /metrics, once it does: from its `metrics
 * listening` log line (start-components.ts, or main.ts's `(all workers)` under WORKERS), else the
 * one port besides the API's (`apiPort`) that the process listens on (/proc, Linux).
 */
export const metricsPortOf = (output: string, pid: number, apiPort: number): number | undefined => {
  const logged = portFromLog(output, METRICS_LISTENING);
  if (logged !== undefined) return logged;
  const others = portsOf(pid).filter((port) => port !== apiPort);
  return others.length === 1 ? others[0] : undefined;
};
