import { execFile } from 'node:child_process';
import { appendFile, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  freshPostgresUrl,
  openAdminSql,
  postgresAvailable,
  startOnFreePort,
  type FreshPostgres,
} from '@plant-store/testkit';
import { makeCertificates, type TestCertificates } from './certificates.js';

/**
 * A PostgreSQL server the torture suite may stop, restart and cut off.
 *
 * By default a throwaway cluster of its own: `initdb -A trust -U postgres` in a temporary folder,
 * on a free port of 127.0.0.1 (its socket in that folder too), controlled with `pg_ctl`. The
 * binaries come from `TORTURE_PG_BIN` or the newest `/usr/lib/postgresql/<version>/bin`. PostgreSQL
 * refuses to run as root, so under root every command runs as the `postgres` OS user (`runuser`)
 * in a folder it owns. With `TORTURE_PG_RESTART=1` it is the machine's server at `PG_TEST_URL`
 * instead (a fresh schema in it), controlled with `pg_ctlcluster` where Debian's tools know it,
 * else `pg_ctl` as the owner of its data directory: every test on the machine sees the outage.
 */
/**
 * pg_ctl's failure with the server's log appended: the server's reason ("could not bind … Address
 * already in use", which startOnFreePort looks for) is in its log, not in pg_ctl's output.
 */
export const withServerLog = async (error: unknown, logFile: string): Promise<Error> => {
  const log = await readFile(logFile, 'utf8').catch(() => '');
  return new Error(`${error instanceof Error ? error.message : String(error)}\n${log}`, { cause: error });
};

export interface OutagePostgres {
  /** What it is, for the summary lines. */
  readonly label: string;
  /** The server's DATABASE_URL. */
  readonly url: string;
  /** Its Unix socket's folder and port, where there is one: it reaches the server whatever its network does. */
  readonly socket?: { readonly dir: string; readonly port: number };
  /** The `application_name` of the server's connections (and only theirs). */
  readonly applicationName: string;
  /** `pg_ctl restart -m fast`; resolves once it accepts connections again. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m <mode>`; resolves once it is down. */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl start`; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `pg_terminate_backend` on every backend named `applicationName`; resolves with how many. */
  terminateBackends(): Promise<number>;
  /** Leaves it as found: the throwaway cluster stopped and removed; the machine's running, the schema dropped. */
  close(): Promise<void>;
  /** With `tls`: the certificates it serves (ssl=on), made by the test. */
  readonly certificates?: TestCertificates;
  /**
   * With `tls`: the server's log so far (`log_connections` is on: a `connection authorized` line
   * for every connection, its `application_name` and whether it is encrypted).
   */
  readonly serverLog?: () => Promise<string>;
}

const exec = promisify(execFile);
const COMMAND_TIMEOUT_MS = 60_000;

/** The newest folder holding initdb, pg_ctl and postgres, or undefined. */
const findBinaries = (): string | undefined => {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(dir, b)));
  const chosen = process.env['TORTURE_PG_BIN'];
  if (chosen !== undefined && chosen !== '') return has(chosen) ? chosen : undefined;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find(has);
};

/**
 * How to run a command as `user` (ourselves when we are not root: PostgreSQL refuses root only),
 * after `prefix` (such as `ip netns exec <name>`: the server then lives in that namespace).
 */
const runAs =
  (user: string | undefined, prefix: readonly string[] = []) =>
  async (command: string, args: readonly string[]): Promise<string> => {
    const asUser = user === undefined ? [command, ...args] : ['runuser', '-u', user, '--', command, ...args];
    const [file, ...argv] = [...prefix, ...asUser] as [string, ...string[]];
    try {
      const { stdout, stderr } = await exec(file, argv, { timeout: COMMAND_TIMEOUT_MS, cwd: '/' });
      return stdout + stderr;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${[file, ...argv].join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  };

const isRoot = (): boolean => process.getuid?.() === 0;

/** The uid and gid of the OS user `name`, or undefined. */
const osUser = async (name: string): Promise<{ uid: number; gid: number } | undefined> => {
  try {
    const [uid, gid] = await Promise.all([exec('id', ['-u', name]), exec('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
};

/** Where a throwaway cluster listens: inside a network namespace, on one of its addresses. */
export interface ClusterNetwork {
  /** Prepended to every command that starts the server (`ip netns exec <name>`). */
  readonly prefix: readonly string[];
  readonly address: string;
}

/**
 * A throwaway cluster (in `network`, else on 127.0.0.1), or why there cannot be one here. With
 * `tls`, it serves TLS (ssl=on) with a certificate for `tls.dnsNames` and its address, signed by a
 * CA made for it (`certificates`); plain connections are still accepted. With
 * `tls.clientCertificates`, a TLS connection must also present a client certificate that CA
 * signed for its user (`hostssl … clientcert=verify-full`; `certificates.client` is one for
 * `postgres`); plain connections stay trusted.
 */
export const throwawayCluster = async (
  network?: ClusterNetwork,
  tls?: { readonly dnsNames: readonly string[]; readonly clientCertificates?: boolean },
): Promise<OutagePostgres | string> => {
  const bin = findBinaries();
  if (bin === undefined)
    return 'no PostgreSQL binaries (initdb, pg_ctl, postgres) in TORTURE_PG_BIN or /usr/lib/postgresql/*/bin';
  let user: string | undefined;
  let owner: { uid: number; gid: number } | undefined;
  if (isRoot()) {
    owner = await osUser('postgres');
    if (owner === undefined)
      return 'running as root (PostgreSQL refuses root) and there is no `postgres` OS user to run it as';
    if (!existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser') && !existsSync('/usr/bin/runuser'))
      return 'running as root and no runuser to become `postgres`';
    user = 'postgres';
  }
  const run = runAs(user, network?.prefix);
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-pg-outage-'));
  if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const address = network?.address ?? '127.0.0.1';
  const pgCtl = join(bin, 'pg_ctl');
  let certificates: TestCertificates | undefined;
  let tlsOptions = '';
  try {
    if (tls !== undefined) {
      const clientName = tls.clientCertificates === true ? 'postgres' : undefined;
      certificates = await makeCertificates(
        dir,
        { dnsNames: tls.dnsNames, addresses: [address], ...(clientName === undefined ? {} : { clientName }) },
        owner,
      );
      tlsOptions = ` -c ssl=on -c ssl_cert_file=${certificates.certFile} -c ssl_key_file=${certificates.keyFile} -c log_connections=on`;
      if (clientName !== undefined) tlsOptions += ` -c ssl_ca_file=${certificates.caFile}`;
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const serverOptionsOn = (port: number) => ['-o', `-p ${port} -k ${dir} -c listen_addresses=${address}${tlsOptions}`];
  const logOf = (port: number) => join(dir, `postgres-${port}.log`);
  const startOn = async (port: number): Promise<number> => {
    try {
      await run(pgCtl, ['-D', data, ...serverOptionsOn(port), '-l', logOf(port), '-w', '-t', '60', 'start']);
      return port;
    } catch (error) {
      throw await withServerLog(error, logOf(port));
    }
  };
  let port: number;
  try {
    await run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C']);
    // initdb trusts loopback only; in a namespace the server's connections come from the veth's other end.
    if (network !== undefined) await appendFile(join(data, 'pg_hba.conf'), 'host all all 0.0.0.0/0 trust\n');
    // The first line that matches decides: TLS connections must show a certificate first.
    if (tls?.clientCertificates === true) {
      const hba = join(data, 'pg_hba.conf');
      await writeFile(hba, `hostssl all all 0.0.0.0/0 trust clientcert=verify-full\n${await readFile(hba, 'utf8')}`);
    }
    // A namespace of its own has every port free.
    port = network === undefined ? await startOnFreePort(startOn) : await startOn(5432);
  } catch (error) {
    await run(pgCtl, ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // restart and start come back on this port, which the server's URL holds.
  const serverOptions = serverOptionsOn(port);
  const logFile = ['-l', logOf(port)];
  const url = `postgres://postgres@${address}:${port}/postgres`;
  const version = bin.split('/').at(-2) ?? '?';
  return {
    label: `throwaway PostgreSQL ${version} on ${address}:${port}${user === undefined ? '' : ' (as postgres)'}${certificates === undefined ? '' : ', TLS on'}`,
    url,
    ...(certificates === undefined
      ? {}
      : { certificates, serverLog: () => readFile(logOf(port), 'utf8').catch(() => '') }),
    socket: { dir, port },
    applicationName: 'plant-store',
    restart: async () =>
      void (await run(pgCtl, ['-D', data, ...serverOptions, ...logFile, '-m', 'fast', '-w', '-t', '60', 'restart'])),
    stop: async (mode) => void (await run(pgCtl, ['-D', data, '-m', mode, '-w', '-t', '60', 'stop'])),
    start: async () => void (await run(pgCtl, ['-D', data, ...serverOptions, ...logFile, '-w', '-t', '60', 'start'])),
    terminateBackends: () => terminate(url, 'plant-store'),
    close: async () => {
      await run(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
};

const terminate = async (url: string, applicationName: string): Promise<number> => {
  const admin = openAdminSql(url);
  try {
    const rows =
      await admin`select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = ${applicationName} and pid <> pg_backend_pid()`;
    return rows.filter((r) => r['ended'] === true).length;
  } finally {
    await admin.end({ timeout: 5 });
  }
};

/** The machine's server at PG_TEST_URL (TORTURE_PG_RESTART=1), or why it cannot be used. */
const machineServer = async (): Promise<OutagePostgres | string> => {
  if (!(await postgresAvailable())) return 'TORTURE_PG_RESTART=1 but no PostgreSQL answers at PG_TEST_URL';
  const admin = openAdminSql();
  let configFile: string;
  let dataDirectory: string;
  try {
    const [config] = await admin`show config_file`;
    const [data] = await admin`show data_directory`;
    configFile = String(config?.['config_file']);
    dataDirectory = String(data?.['data_directory']);
  } finally {
    await admin.end({ timeout: 5 });
  }
  let control: (action: 'restart' | 'stop' | 'start', mode: 'fast' | 'immediate') => Promise<unknown>;
  let how: string;
  // Debian's wrapper, when it knows the cluster (it keeps the service's log and socket settings).
  const clusters = await exec('pg_lsclusters', ['-h']).then(
    (r) => r.stdout,
    () => '',
  );
  const cluster = clusters
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[5] === dataDirectory);
  if (cluster !== undefined && isRoot()) {
    const [version, name] = cluster as [string, string];
    how = `pg_ctlcluster ${version} ${name}`;
    const run = runAs(undefined);
    control = (action, mode) =>
      run('pg_ctlcluster', [...(action === 'start' ? [] : ['-m', mode]), version, name, action]);
  } else {
    const bin = findBinaries();
    if (bin === undefined) return 'TORTURE_PG_RESTART=1 but no pg_ctl in TORTURE_PG_BIN or /usr/lib/postgresql/*/bin';
    const ownerUid = statSync(dataDirectory, { throwIfNoEntry: false })?.uid;
    if (ownerUid === undefined)
      return `TORTURE_PG_RESTART=1 but the data directory ${dataDirectory} is not on this machine`;
    const self = userInfo();
    if (!isRoot() && ownerUid !== self.uid)
      return `TORTURE_PG_RESTART=1 but ${dataDirectory} belongs to uid ${ownerUid}, and we are neither root nor its owner`;
    const ownerName = isRoot() ? (await exec('id', ['-nu', String(ownerUid)])).stdout.trim() : undefined;
    const run = runAs(ownerName);
    // The folder of postgresql.conf: pg_ctl finds the data directory from it (Debian keeps them apart).
    const configDir = dirname(configFile);
    const log = join(tmpdir(), `plant-store-pg-outage-${process.pid}.log`);
    how = `pg_ctl -D ${configDir}`;
    control = (action, mode) =>
      run(join(bin, 'pg_ctl'), [
        '-D',
        configDir,
        ...(action === 'start' ? [] : ['-m', mode]),
        ...(action === 'stop' ? [] : ['-l', log]),
        '-w',
        '-t',
        '60',
        action,
      ]);
  }
  const database: FreshPostgres = await freshPostgresUrl();
  let down = false;
  return {
    label: `the machine's PostgreSQL (${how}; TORTURE_PG_RESTART=1)`,
    url: database.url,
    // freshPostgresUrl names the connections of its URL after the schema
    applicationName: database.schema,
    restart: async () => void (await control('restart', 'fast')),
    stop: async (mode) => {
      down = true;
      await control('stop', mode);
    },
    start: async () => {
      await control('start', 'fast');
      down = false;
    },
    terminateBackends: () => terminate(database.url, database.schema),
    close: async () => {
      if (down) await control('start', 'fast');
      await database.drop();
    },
  };
};

/** The server to torture (see OutagePostgres), or one line saying why there is none here. */
export const outagePostgres = (): Promise<OutagePostgres | string> =>
  process.env['TORTURE_PG_RESTART'] === '1' ? machineServer() : throwawayCluster();
