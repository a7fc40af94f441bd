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
 * A primary and a synchronous streaming standby made for one test: `initdb` (trust), the primary
 * with `synchronous_standby_names = '*'`, the standby from `pg_basebackup -R` (so every commit the
 * primary acknowledges is on the standby's disk too). Both on 127.0.0.1, each on a free port and
 * with its Unix socket in its own folder. Under root every command runs as `postgres`.
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

/** A primary and a synchronous standby, or one line saying why there cannot be one here. */
export const replicatedPostgres = async (): Promise<ReplicatedPostgres | string> => {
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
  const cleanUp = async () => {
    await stop('standby', 'immediate').catch(() => undefined);
    await stop('primary', 'immediate').catch(() => undefined);
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
    // Every commit waits for the standby's flush: what the primary acknowledged survives it.
    await startFirst('primary', "-c synchronous_standby_names='*' -c wal_level=replica");
    await run(join(bin, 'pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(node.primary.port),
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
    await waitForSync(`postgres://postgres@127.0.0.1:${node.primary.port}/postgres`);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const [primaryPort, standbyPort] = [node.primary.port, node.standby.port];
  const version = bin.split('/').at(-2) ?? '?';
  return {
    label: `throwaway PostgreSQL ${version}, primary on 127.0.0.1:${primaryPort}, synchronous standby on 127.0.0.1:${standbyPort}${root ? ' (as postgres)' : ''}`,
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
    close: cleanUp,
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

/** Waits until the primary streams to a synchronous standby. */
const waitForSync = async (url: string): Promise<void> => {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows = await sql`select sync_state from pg_stat_replication where sync_state = 'sync'`;
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error('the standby did not become synchronous within 30 s');
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
