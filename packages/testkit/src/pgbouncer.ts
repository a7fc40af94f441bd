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
 * (its stock settings but the mode, the port and trust for `postgres`). PgBouncer refuses to run
 * as root, so under root it runs as the `postgres` OS user.
 */
export interface Pooler {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  readonly url: string;
  /** SIGTERM (PgBouncer's immediate shutdown: every client connection is cut), then a new start. */
  restart(downMs: number): Promise<void>;
  close(): Promise<void>;
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
export const startPooler = async (target: {
  readonly host: string;
  readonly port: number;
  readonly database: string;
}): Promise<Pooler | string> => {
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
        'default_pool_size = 20',
        `logfile = ${log}`,
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
    while (!((await logSince(from)).includes(`listening on 127.0.0.1:${port}`) && (await accepts(port)))) {
      if (running.exitCode !== null || running.signalCode !== null)
        throw new Error(`pgbouncer exited before it listened on ${port}:\n${await logSince(from)}`);
      if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port} within 10 s (log: ${dir})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const stop = async (port: number): Promise<void> => {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    // runuser passes SIGTERM on to PgBouncer: its immediate shutdown.
    running.kill('SIGTERM');
    await exited;
    while (await accepts(port)) await new Promise((r) => setTimeout(r, 20));
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
    restart: async (downMs) => {
      await stop(port);
      await new Promise((r) => setTimeout(r, downMs));
      await start(port);
    },
    close: async () => {
      await stop(port).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
};
