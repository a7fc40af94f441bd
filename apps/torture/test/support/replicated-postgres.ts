import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startOnFreePort } from '@plant-store/testkit';
import postgres from 'postgres';
import { withServerLog } from './throwaway-postgres.js';

/**
 * A primary and a streaming standby made for one test: `initdb` (trust), the standby from
 * `pg_basebackup -R`. Synchronous by default (the primary with `synchronous_standby_names = '*'`:
 * every commit the primary acknowledges is on the standby's disk too); asynchronous on request
 * (PostgreSQL's default: a commit is acknowledged before the standby has it). Both on 127.0.0.1,
 * each on a free port and with its Unix socket in its own folder. Under root every command runs
 * as `postgres`.
 */
export interface ReplicatedPostgres {
  readonly label: string;
  readonly primaryPort: number;
  readonly standbyPort: number;
  /** One URL per node, for the test's own reads. */
  urlOf(node: 'primary' | 'standby'): string;
  /** `kill -9` of the primary's postmaster; resolves once it and its backends are gone. */
  killPrimary(): Promise<void>;
  /** `pg_ctl stop -m fast` of the primary (a planned switchover's first step). */
  stopPrimary(): Promise<void>;
  /** `pg_ctl promote -w` of the standby: resolves once it takes writes. */
  promoteStandby(): Promise<void>;
  /**
   * Starts the killed (or stopped) primary again on its port, as a primary and without waiting
   * for a standby: a former primary back after a failover, the dangerous case (split brain).
   */
  restartOldPrimary(): Promise<void>;
  /** `pg_ctl stop -m immediate` of the standby (by then the new primary). */
  stopStandby(): Promise<void>;
  close(): Promise<void>;
}

const exec = promisify(execFile);

const findBinaries = (): string | undefined => {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'postgres', 'pg_basebackup'].every((b) => existsSync(join(dir, b)));
  const chosen = process.env['TORTURE_PG_BIN'];
  if (chosen !== undefined && chosen !== '') return has(chosen) ? chosen : undefined;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find(has);
};

const osUser = async (name: string): Promise<{ uid: number; gid: number } | undefined> => {
  try {
    const [uid, gid] = await Promise.all([exec('id', ['-u', name]), exec('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
};

/** A primary and a standby (synchronous unless told), or one line saying why there cannot be one here. */
export const replicatedPostgres = async ({
  synchronous = true,
  lagMs = 0,
}: {
  readonly synchronous?: boolean;
  /**
   * How late the WAL reaches the standby: the replication stream then passes a proxy in the test
   * process that holds each chunk from the primary this long (and drops what it holds when the
   * primary's side ends, as a network would). An asynchronous standby trails by about as much.
   */
  readonly lagMs?: number;
} = {}): Promise<ReplicatedPostgres | string> => {
  const bin = findBinaries();
  if (bin === undefined)
    return 'no PostgreSQL binaries (initdb, pg_ctl, postgres, pg_basebackup) in TORTURE_PG_BIN or /usr/lib/postgresql/*/bin';
  const root = process.getuid?.() === 0;
  const owner = root ? await osUser('postgres') : undefined;
  if (root && owner === undefined) return 'running as root and there is no `postgres` OS user to run PostgreSQL as';
  const run = async (command: string, args: readonly string[]): Promise<string> => {
    const argv = root ? ['runuser', '-u', 'postgres', '--', command, ...args] : [command, ...args];
    try {
      const { stdout, stderr } = await exec(argv[0] as string, argv.slice(1), { timeout: 60_000, cwd: '/' });
      return stdout + stderr;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${argv.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  };
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-pg-standby-'));
  if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
  // Each node's port is set by its first start (startFirst).
  const node = {
    primary: { data: join(dir, 'primary'), port: 0 },
    standby: { data: join(dir, 'standby'), port: 0 },
  };
  const logOf = (which: 'primary' | 'standby') => join(dir, `${which}-${node[which].port}.log`);
  const pgCtl = join(bin, 'pg_ctl');
  const options = (port: number, extra = '') =>
    ['-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 ${extra}`.trim()] as const;
  const start = (which: 'primary' | 'standby', extra = '') =>
    run(pgCtl, [
      '-D',
      node[which].data,
      ...options(node[which].port, extra),
      '-l',
      logOf(which),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  /** The node's first start, on a free port, and again on a fresh one should that port be taken first. */
  const startFirst = (which: 'primary' | 'standby', extra = '') =>
    startOnFreePort(async (port) => {
      node[which].port = port;
      try {
        await start(which, extra);
      } catch (error) {
        throw await withServerLog(error, logOf(which));
      }
    });
  const stop = (which: 'primary' | 'standby', mode: 'fast' | 'immediate') =>
    run(pgCtl, ['-D', node[which].data, '-m', mode, '-w', '-t', '60', 'stop']);
  let lag: { readonly port: number; close(): Promise<void> } | undefined;
  const cleanUp = async () => {
    await stop('standby', 'immediate').catch(() => undefined);
    await stop('primary', 'immediate').catch(() => undefined);
    await lag?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await run(join(bin, 'initdb'), [
      '-D',
      node.primary.data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    // Synchronous: every commit waits for the standby's flush, so what the primary acknowledged
    // survives it. Asynchronous: a commit is acknowledged before the standby has it.
    await startFirst('primary', `${synchronous ? "-c synchronous_standby_names='*' " : ''}-c wal_level=replica`);
    if (lagMs > 0) lag = await laggingProxy(node.primary.port, lagMs);
    // -R writes the address the backup came from into the standby's primary_conninfo.
    await run(join(bin, 'pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(lag?.port ?? node.primary.port),
      '-U',
      'postgres',
      '-D',
      node.standby.data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    await startFirst('standby');
    await waitForStandby(`postgres://postgres@127.0.0.1:${node.primary.port}/postgres`, synchronous ? 'sync' : 'async');
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const [primaryPort, standbyPort] = [node.primary.port, node.standby.port];
  const version = bin.split('/').at(-2) ?? '?';
  return {
    label: `throwaway PostgreSQL ${version}, primary on 127.0.0.1:${primaryPort}, ${synchronous ? 'synchronous' : 'asynchronous'} standby on 127.0.0.1:${standbyPort}${lagMs > 0 ? ` trailing ${lagMs} ms` : ''}${root ? ' (as postgres)' : ''}`,
    primaryPort,
    standbyPort,
    urlOf: (which) => `postgres://postgres@127.0.0.1:${node[which].port}/postgres`,
    killPrimary: async () => {
      const pid = Number(readFileSync(join(node.primary.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      // The backends notice their postmaster's death and exit; the port is free once they have.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await accepts(primaryPort))) await new Promise((r) => setTimeout(r, 20));
    },
    stopPrimary: async () => void (await stop('primary', 'fast')),
    promoteStandby: async () => void (await run(pgCtl, ['-D', node.standby.data, '-w', '-t', '60', 'promote'])),
    // No synchronous_standby_names: its commits would otherwise wait for ever (no standby follows it).
    restartOldPrimary: async () => void (await start('primary', '-c wal_level=replica')),
    stopStandby: async () => void (await stop('standby', 'immediate')),
    close: cleanUp,
  };
};

/**
 * A TCP proxy on 127.0.0.1 that holds every chunk from `targetPort` for `lagMs` before passing it
 * on (chunks the other way pass at once). When the target's side ends, what it still holds is
 * dropped and the client's side reset: the bytes were "on the wire" when the target died.
 */
const laggingProxy = async (targetPort: number, lagMs: number): Promise<{ port: number; close(): Promise<void> }> => {
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
    open.add(client);
    const timers = new Set<NodeJS.Timeout>();
    const end = () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      open.delete(client);
      if (!client.destroyed) client.resetAndDestroy();
      upstream.destroy();
    };
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!client.destroyed) client.write(chunk);
      }, lagMs);
      timers.add(timer);
    });
    client.once('error', end);
    upstream.once('error', end);
    client.once('close', end);
    upstream.once('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const client of open) client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Waits until the primary streams to a standby, in the given `sync_state`. */
const waitForStandby = async (url: string, state: 'sync' | 'async'): Promise<void> => {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows =
        await sql`select sync_state from pg_stat_replication where sync_state = ${state} and state = 'streaming'`;
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error(`the standby did not stream (${state}) within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
};

/**
 * A TCP forwarder on 127.0.0.1: one address whose target moves (what a virtual IP, a DNS name or
 * a proxy gives at promotion). `moveTo` sends new connections to another port and resets the
 * ones open to the old one.
 */
export const movingAddress = async (
  targetPort: number,
): Promise<{
  readonly port: number;
  moveTo(port: number): void;
  close(): Promise<void>;
}> => {
  let target = targetPort;
  const open = new Set<{ client: net.Socket; upstream: net.Socket; port: number }>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: target });
    const pair = { client, upstream, port: target };
    open.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once('error', end);
    upstream.once('error', end);
    client.once('close', end);
    upstream.once('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    moveTo: (next) => {
      target = next;
      for (const pair of open) if (pair.port !== next) pair.client.resetAndDestroy();
    },
    close: async () => {
      for (const pair of open) pair.client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
