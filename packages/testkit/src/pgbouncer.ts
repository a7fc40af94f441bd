import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startOnFreePort } from './processes.js';

const exec = promisify(execFile);

/**
 * Debian's PgBouncer in transaction pooling mode, started by a test in front of a PostgreSQL
 * (its stock settings but the mode, the port, trust for `postgres` and what the test chooses of
 * PoolerSettings). PgBouncer refuses to run
 * as root, so under root it runs as the `postgres` OS user.
 */
export interface Pooler {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  readonly url: string;
  /**
   * A signal to PgBouncer itself, `downMs` with the port refusing, then a new start: SIGTERM (the
   * default) is its immediate shutdown, every client connection cut at once; SIGINT its safe
   * shutdown (PAUSE, then exit once no server connection is in use), what Debian's systemd unit
   * sends to stop it (`KillSignal=SIGINT`). Resolves with when (`Date.now()`) the signal went, the
   * port stopped accepting connections and it accepted them again.
   */
  restart(downMs: number, signal?: 'SIGTERM' | 'SIGINT'): Promise<PoolerRestart>;
  close(): Promise<void>;
}

/** The moments of a restart, by `Date.now()`. */
export interface PoolerRestart {
  /** The signal was sent. */
  readonly signalledAt: number;
  /** The port refused a connection (PgBouncer gone). */
  readonly downAt: number;
  /** PgBouncer said it listens and the port accepted a connection again. */
  readonly backAt: number;
}

/** What the test chooses of PgBouncer's settings; the rest are its stock ones. */
export interface PoolerSettings {
  /** `default_pool_size`: server connections per database and user; default 20 (PgBouncer's). */
  readonly poolSize?: number;
  /** `query_wait_timeout` in seconds: how long a client may wait for a server connection; default 120 (PgBouncer's). */
  readonly queryWaitTimeoutSeconds?: number;
}

const findPgbouncer = (): string | undefined =>
  ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'].find((p) => existsSync(p));

/** Why no PgBouncer can be started here, or undefined: for describeUnlessMissing. */
export const pgbouncerMissing = (): string | undefined =>
  findPgbouncer() === undefined ? 'no pgbouncer (Debian: apt-get install pgbouncer)' : undefined;

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** PgBouncer in front of `target` (host, port, database), or one line saying why there is none here. */
export const startPooler = async (
  target: {
    readonly host: string;
    readonly port: number;
    readonly database: string;
  },
  { poolSize = 20, queryWaitTimeoutSeconds = 120 }: PoolerSettings = {},
): Promise<Pooler | string> => {
  const bin = findPgbouncer();
  if (bin === undefined) return 'no pgbouncer (Debian: apt-get install pgbouncer)';
  const root = process.getuid?.() === 0;
  let owner: { uid: number; gid: number } | undefined;
  if (root) {
    try {
      const [uid, gid] = await Promise.all([exec('id', ['-u', 'postgres']), exec('id', ['-g', 'postgres'])]);
      owner = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
    } catch {
      return 'running as root (PgBouncer refuses root) and there is no `postgres` OS user to run it as';
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-pgbouncer-'));
  const config = join(dir, 'pgbouncer.ini');
  const users = join(dir, 'users.txt');
  const log = join(dir, 'pgbouncer.log');
  const pidfile = join(dir, 'pgbouncer.pid');
  await writeFile(users, '"postgres" ""\n');
  const configure = async (port: number): Promise<void> => {
    await writeFile(
      config,
      [
        '[databases]',
        `${target.database} = host=${target.host} port=${target.port} dbname=${target.database}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${users}`,
        'pool_mode = transaction',
        'max_client_conn = 500',
        `default_pool_size = ${poolSize}`,
        `query_wait_timeout = ${queryWaitTimeoutSeconds}`,
        `logfile = ${log}`,
        `pidfile = ${pidfile}`,
        '',
      ].join('\n'),
    );
    if (owner !== undefined) for (const file of [dir, config, users]) await chown(file, owner.uid, owner.gid);
  };
  // What PgBouncer logged since `from` (it appends to one log across restarts).
  const logSince = async (from: number): Promise<string> =>
    (await readFile(log).catch(() => Buffer.alloc(0))).subarray(from).toString('utf8');
  let child: ChildProcess | undefined;
  /**
   * Starts PgBouncer on `port`; resolves once it says it listens there and accepts (the log line
   * tells it from another process on the port). Rejects with its log when it exits first
   * ("cannot listen on …: bind(): Address already in use" when the port was taken).
   */
  const start = async (port: number): Promise<void> => {
    const from = (await stat(log).catch(() => undefined))?.size ?? 0;
    const argv = root ? ['runuser', '-u', 'postgres', '--', bin, config] : [bin, config];
    const running = spawn(argv[0] as string, argv.slice(1), { stdio: 'ignore' });
    child = running;
    const deadline = Date.now() + 10_000;
    while (!((await accepts(port)) && (await logSince(from)).includes(`listening on 127.0.0.1:${port}`))) {
      if (running.exitCode !== null || running.signalCode !== null)
        throw new Error(`pgbouncer exited before it listened on ${port}:\n${await logSince(from)}`);
      if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port} within 10 s (log: ${dir})`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  /**
   * The signal to PgBouncer itself (its pid file), not to `runuser`: runuser passes a SIGTERM on,
   * but then waits 2 s and sends SIGKILL before it exits, which would hide when PgBouncer went.
   * Resolves with the moment the port refused a connection, once runuser too has exited.
   */
  const stop = async (port: number, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<number> => {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return Date.now();
    const exited = new Promise((resolve) => running.once('exit', resolve));
    const pid = Number((await readFile(pidfile, 'utf8').catch(() => '')).trim());
    if (Number.isSafeInteger(pid) && pid > 0) process.kill(pid, signal);
    else running.kill(signal);
    const deadline = Date.now() + 30_000;
    while (await accepts(port)) {
      if (Date.now() > deadline) throw new Error(`pgbouncer still accepts connections 30 s after ${signal}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const downAt = Date.now();
    await exited;
    return downAt;
  };
  let port: number;
  try {
    port = await startOnFreePort(async (candidate) => {
      await configure(candidate);
      try {
        await start(candidate);
      } catch (error) {
        await stop(candidate).catch(() => undefined);
        throw error;
      }
      return candidate;
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    return error instanceof Error ? error.message : String(error);
  }
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/${target.database}`,
    // Back on the port its clients hold (a new one would test something else): should another
    // process take it while PgBouncer is down, the restart fails with PgBouncer's log saying so.
    restart: async (downMs, signal = 'SIGTERM') => {
      const signalledAt = Date.now();
      const downAt = await stop(port, signal);
      await new Promise((r) => setTimeout(r, Math.max(0, downAt + downMs - Date.now())));
      await start(port);
      return { signalledAt, downAt, backAt: Date.now() };
    },
    close: async () => {
      await stop(port).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
};
