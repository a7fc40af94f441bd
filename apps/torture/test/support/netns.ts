import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { throwawayCluster, type OutagePostgres } from './throwaway-postgres.js';

/**
 * A throwaway PostgreSQL inside a network namespace of its own, reached from this one over a veth
 * pair, and the faults a real network has: packets dropped silently (both ways, or one way), every
 * packet answered with a TCP reset, a link that flaps, random loss. The faults are iptables rules
 * and link changes inside the namespace, so nothing on the host's own tables changes, and deleting
 * the namespace removes the veth pair with them. Linux and root only (`ip netns`, iptables).
 */

const exec = promisify(execFile);

export type Fault =
  | { readonly kind: 'drop'; readonly direction: 'both' | 'to-database' | 'from-database' }
  /**
   * Every packet of the connections made to PostgreSQL's own port dropped, both ways; those made
   * through `secondUrl`'s port pass. So an instance on `url` loses the database, one on `secondUrl`
   * keeps it.
   */
  | { readonly kind: 'cut-first-port' }
  | { readonly kind: 'reset' }
  | { readonly kind: 'flap'; readonly periodMs: number }
  | { readonly kind: 'loss'; readonly probability: number };

export const describeFault = (fault: Fault): string => {
  switch (fault.kind) {
    case 'drop':
      return fault.direction === 'both'
        ? 'every packet dropped, both ways'
        : fault.direction === 'to-database'
          ? 'packets to PostgreSQL dropped (its answers pass)'
          : "PostgreSQL's packets dropped (queries arrive, answers do not)";
    case 'cut-first-port':
      return 'every packet dropped, both ways, for one instance only';
    case 'reset':
      return 'every packet to PostgreSQL answered with a TCP reset';
    case 'flap':
      return `the link down and up every ${fault.periodMs} ms`;
    case 'loss':
      return `${Math.round(fault.probability * 100)} % of packets dropped at random, both ways`;
  }
};

export interface NetworkPostgres extends OutagePostgres {
  /**
   * The same database through a second port of the namespace (redirected to PostgreSQL's):
   * every fault reaches it too, but 'cut-first-port'.
   */
  readonly secondUrl: string;
  /** Applies `fault` until `heal`. */
  inject(fault: Fault): Promise<void>;
  /** Lifts every fault. */
  heal(): Promise<void>;
  /** Connections in pg_stat_activity named `applicationName`, read over the Unix socket. */
  backends(): Promise<number>;
  /** Those connections by whether they are encrypted (pg_stat_ssl). */
  encryption(): Promise<{ encrypted: number; plain: number }>;
}

const missingTool = (): string | undefined => {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'network namespaces and iptables need root';
  for (const tool of ['ip', 'iptables']) {
    if (!['/usr/sbin', '/sbin', '/usr/bin', '/bin'].some((dir) => existsSync(`${dir}/${tool}`)))
      return `no \`${tool}\` (Debian: apt-get install iproute2 iptables)`;
  }
  return undefined;
};

/** The second port is PostgreSQL's plus this (the namespace has every port free). */
const SECOND_PORT_OFFSET = 1;

const run = async (file: string, args: readonly string[]): Promise<void> => {
  try {
    await exec(file, args, { timeout: 30_000 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`${[file, ...args].join(' ')} failed: ${e.message}\n${e.stderr ?? ''}`);
  }
};

/**
 * A PostgreSQL behind a veth pair, or one line saying why there cannot be one here; with `tls`,
 * serving TLS with a certificate for `tls.dnsNames` and its address (throwawayCluster).
 */
let calls = 0;

export const networkPostgres = async (tls?: {
  readonly dnsNames: readonly string[];
}): Promise<NetworkPostgres | string> => {
  const missing = missingTool();
  if (missing !== undefined) return missing;
  // Named by the process and by the call: a file that runs one round over TCP and one over TLS
  // calls this twice, and a namespace deleted by the first may outlive its deletion for a moment
  // (its veth still there, 'File exists') while something in it is still exiting.
  const id = (process.pid * 8 + calls++) % 100_000;
  const ns = `plant-store-${id}`;
  const hostSide = `psv${id}h`;
  const nsSide = `psv${id}n`;
  // A /30 of 10.213.0.0/16 picked by that id, so that two runs on one machine do not clash.
  const third = id % 250;
  const hostAddress = `10.213.${third}.1`;
  const address = `10.213.${third}.2`;
  const inNs = (args: readonly string[]) => run('ip', ['netns', 'exec', ns, ...args]);
  const iptables = (...args: string[]) => inNs(['iptables', '-w', ...args]);
  // Deleting the host's end of the pair deletes both at once, whatever still holds the namespace.
  const teardown = async () => {
    await run('ip', ['link', 'delete', hostSide]).catch(() => undefined);
    await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
  };

  await teardown();
  await run('ip', ['netns', 'add', ns]);
  let cluster: OutagePostgres | string;
  try {
    await run('ip', ['link', 'add', hostSide, 'type', 'veth', 'peer', 'name', nsSide]);
    await run('ip', ['link', 'set', nsSide, 'netns', ns]);
    await run('ip', ['addr', 'add', `${hostAddress}/30`, 'dev', hostSide]);
    await run('ip', ['link', 'set', hostSide, 'up']);
    await inNs(['ip', 'addr', 'add', `${address}/30`, 'dev', nsSide]);
    await inNs(['ip', 'link', 'set', nsSide, 'up']);
    await inNs(['ip', 'link', 'set', 'lo', 'up']);
    cluster = await throwawayCluster({ prefix: ['ip', 'netns', 'exec', ns], address }, tls);
    if (typeof cluster !== 'string') {
      const port = Number(new URL(cluster.url).port);
      await iptables(
        '-t',
        'nat',
        '-A',
        'PREROUTING',
        '-i',
        nsSide,
        '-p',
        'tcp',
        '--dport',
        String(port + SECOND_PORT_OFFSET),
        '-j',
        'REDIRECT',
        '--to-ports',
        String(port),
      );
    }
  } catch (error) {
    await teardown();
    throw error;
  }
  if (typeof cluster === 'string') {
    await teardown();
    return cluster;
  }
  const pg = cluster;
  const socket = pg.socket;
  const pgPort = Number(new URL(pg.url).port);
  if (socket === undefined) throw new Error('the throwaway cluster has no Unix socket');
  let flapping: { stop: () => Promise<void> } | undefined;

  const startFlapping = (periodMs: number) => {
    let running = true;
    let up = true;
    const loop = (async () => {
      while (running) {
        await new Promise((resolve) => setTimeout(resolve, periodMs));
        if (!running) break;
        up = !up;
        await inNs(['ip', 'link', 'set', nsSide, up ? 'up' : 'down']);
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
      },
    };
  };

  /** One statement over the Unix socket, which no fault reaches. */
  const overSocket = async (query: (admin: postgres.Sql) => Promise<postgres.RowList<postgres.Row[]>>) => {
    const admin = postgres({
      host: socket.dir,
      port: socket.port,
      user: 'postgres',
      database: 'postgres',
      max: 1,
      onnotice: () => undefined,
    });
    try {
      return await query(admin);
    } finally {
      await admin.end({ timeout: 5 });
    }
  };

  const heal = async (): Promise<void> => {
    await flapping?.stop();
    flapping = undefined;
    await iptables('-F', 'INPUT');
    await iptables('-F', 'OUTPUT');
    await inNs(['ip', 'link', 'set', nsSide, 'up']);
    // The link's address route comes back with the link; wait until it is there.
    await inNs(['ip', 'route', 'replace', `10.213.${third}.0/30`, 'dev', nsSide, 'src', address]);
  };

  return {
    ...pg,
    label: `${pg.label}, in network namespace ${ns} over ${hostSide}`,
    secondUrl: pg.url.replace(`:${pgPort}/`, `:${pgPort + SECOND_PORT_OFFSET}/`),
    inject: async (fault) => {
      switch (fault.kind) {
        case 'drop':
          if (fault.direction !== 'from-database') await iptables('-A', 'INPUT', '-i', nsSide, '-j', 'DROP');
          if (fault.direction !== 'to-database') await iptables('-A', 'OUTPUT', '-o', nsSide, '-j', 'DROP');
          return;
        case 'cut-first-port':
          // By the port the connection was opened to, before the redirect: PostgreSQL's own.
          for (const [chain, side] of [
            ['INPUT', '-i'],
            ['OUTPUT', '-o'],
          ] as const)
            await iptables(
              '-A',
              chain,
              side,
              nsSide,
              '-p',
              'tcp',
              '-m',
              'conntrack',
              '--ctorigdstport',
              String(pgPort),
              '-j',
              'DROP',
            );
          return;
        case 'reset':
          await iptables('-A', 'INPUT', '-i', nsSide, '-p', 'tcp', '-j', 'REJECT', '--reject-with', 'tcp-reset');
          return;
        case 'loss':
          for (const [chain, side] of [
            ['INPUT', '-i'],
            ['OUTPUT', '-o'],
          ] as const) {
            await iptables(
              '-A',
              chain,
              side,
              nsSide,
              '-m',
              'statistic',
              '--mode',
              'random',
              '--probability',
              String(fault.probability),
              '-j',
              'DROP',
            );
          }
          return;
        case 'flap':
          flapping = startFlapping(fault.periodMs);
          return;
      }
    },
    heal,
    backends: async () => {
      const [row] = await overSocket(
        (admin) =>
          admin`select count(*)::int as n from pg_stat_activity where application_name = ${pg.applicationName}`,
      );
      return Number(row?.['n'] ?? 0);
    },
    encryption: async () => {
      const [row] = await overSocket(
        (admin) => admin`
          select count(*) filter (where s.ssl)::int as encrypted, count(*) filter (where not s.ssl)::int as plain
            from pg_stat_activity a join pg_stat_ssl s using (pid)
           where a.application_name = ${pg.applicationName}`,
      );
      return { encrypted: Number(row?.['encrypted'] ?? 0), plain: Number(row?.['plain'] ?? 0) };
    },
    close: async () => {
      await flapping?.stop().catch(() => undefined);
      await pg.close();
      await teardown();
    },
  };
};
