import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describePostgres, freshPostgresUrl, type FreshPostgres } from '@plant-store/testkit';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Balancer, type BackendTally } from './support/balancer.js';
import { send } from './support/http.js';
import { knobs } from './support/knobs.js';
import { seeded } from './support/ledger.js';
import { OutageLoad } from './support/outage-load.js';
import { paths } from './support/paths.js';
import { previousRelease, type PreviousRelease } from './support/previous-release.js';
import { startServer, type ServerProcess } from './support/processes.js';
import { listAll, readPostgres, type StoredPlant } from './support/store.js';
import { createToken } from './support/token.js';

/**
 * A rolling upgrade under load. The previous release (support/previous-release.ts: built from git)
 * runs two instances on a fresh PostgreSQL schema, which they create at its migration; a mixed
 * load goes through a balancer (support/balancer.ts) over them. Then two instances of this build
 * start on that store — its migrations run under the advisory lock while the old instances serve —
 * and join the rotation; the old instances are stopped one by one with SIGTERM (a graceful drain)
 * while the load goes on over the new ones.
 *
 * What must hold: no answer but a 2xx, an expected 4xx or the contract's JSON 503 (no 500), no
 * connection refused or cut by an instance that should serve (a refusal by a stopped one is routed
 * elsewhere; a request cut by one being stopped has an unknown outcome); the old instances exit 0
 * and keep writing after this build's migrations ran; nothing acknowledged lost (the table read with
 * the `postgres` driver); and this build serves every plant of the store the previous release made.
 */

const CLIENTS = 12;
/** No answer may take longer, not even one that waited for the migration's locks. */
const BOUND_MS = 5_000;
/** A client backs off this long after a 503. */
const BACKOFF_MS = 25;
const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);
const loadMs = knobs.upgradeSeconds * 1000;
/** How the load's time is shared between the phases. */
const PHASE_SHARE = { previous: 0.25, mixed: 0.25, oneLeft: 0.15, thisOnly: 0.35 } as const;

const serverEnv = (url: string): Record<string, string> => ({
  DATABASE_URL: url,
  // info, as in production: the line of the applied migrations says when they committed
  LOG_LEVEL: 'info',
  SHUTDOWN_TIMEOUT_MS: '5000',
});

interface Recorded {
  readonly name: string;
  /** When its transaction began (PostgreSQL's `now()`), ms since the epoch. */
  readonly appliedAt: number;
}

/** The migrations recorded in the store. */
const recordedMigrations = async (url: string): Promise<Map<number, Recorded>> => {
  const sql = postgres(url, { max: 1, connect_timeout: 5, fetch_types: false, onnotice: () => undefined });
  try {
    const rows = await sql<
      { version: number; name: string; applied_at: Date }[]
    >`select version::int4 as version, name, applied_at from schema_migrations order by version`;
    return new Map(rows.map((r) => [r.version, { name: r.name, appliedAt: r.applied_at.getTime() }]));
  } finally {
    await sql.end({ timeout: 5 });
  }
};

/** Lines logged at error or fatal level (pino's 50, 60). */
const errorLines = (server: ServerProcess): string[] =>
  server
    .output()
    .split('\n')
    .filter((line) => /"level":(50|60)\b/.test(line));

/** When `server` logged that it applied migrations (after their commit), ms since the epoch. */
const migratedAt = (server: ServerProcess): number | undefined => {
  const line = server
    .output()
    .split('\n')
    .find((l) => l.includes('"msg":"applied PostgreSQL migrations"'));
  return line === undefined ? undefined : (JSON.parse(line) as { time: number }).time;
};

const phaseFigures = (phase: Map<string, BackendTally>): string =>
  [...phase]
    .filter(([, t]) => t.requests > 0)
    .map(
      ([name, t]) =>
        `${name} ${t.requests} (${t.writes} writes${t.refused > 0 ? `, ${t.refused} refused` : ''}${t.cut > 0 ? `, ${t.cut} cut` : ''})`,
    )
    .join(', ');

describePostgres('rolling upgrade from the previous release, on PostgreSQL under load', () => {
  let release: PreviousRelease | undefined;
  let skipped: string | undefined;
  let database: FreshPostgres | undefined;
  const servers: ServerProcess[] = [];
  const balancer = new Balancer(CLIENTS);

  beforeAll(async () => {
    const found = await previousRelease();
    if (typeof found === 'string') {
      if (process.env['CI'] === 'true') throw new Error(`rolling-upgrade cannot build the previous release: ${found}`);
      skipped = found;
      console.log(`rolling-upgrade skipped: ${found}`);
      return;
    }
    release = found;
    database = await freshPostgresUrl();
  }, 600_000);

  afterAll(async () => {
    balancer.close();
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await database?.drop();
  });

  it('upgrades two instances of the previous release to this build under load: no 500, nothing lost, every plant served', async (ctx) => {
    if (skipped !== undefined || release === undefined || database === undefined) return ctx.skip(skipped);
    const { url } = database;
    const problems: string[] = [];
    const start = async (main: string, name: string): Promise<ServerProcess> => {
      const server = await startServer(serverEnv(url), { main });
      servers.push(server);
      balancer.add(name, server);
      return server;
    };

    // The previous release creates the store: two instances at once, one migrates, the other waits.
    const [old1, old2] = await Promise.all([
      start(release.serverMain, 'previous-1'),
      start(release.serverMain, 'previous-2'),
    ]);
    const before = await recordedMigrations(url);
    const token = await createToken(url, 'rolling-upgrade', undefined, release.tokensCli);
    const unused = new http.Agent();
    const load = new OutageLoad(1, {
      agent: unused,
      port: old1.port,
      token,
      boundMs: BOUND_MS,
      seed,
      transport: balancer.send,
      excuse: balancer.excuse,
    });
    // chosen ids count up from 1 below a fence plant at 10^9; server-assigned ids go above it
    await load.fence(1_000_000_000);
    balancer.nextPhase();

    const rand = seeded(seed);
    let stop = false;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const refused = load.tally.unavailable;
        await load.step('upgrade', rand);
        if (load.tally.unavailable > refused) await sleep(BACKOFF_MS);
      }
    };
    const workers = Promise.all(Array.from({ length: CLIENTS }, worker));
    const phases: [string, Map<string, BackendTally>][] = [];
    const endPhase = (name: string) => phases.push([name, balancer.nextPhase()]);

    await sleep(loadMs * PHASE_SHARE.previous);
    endPhase('previous release');
    // This build's instances migrate the store while the old ones serve.
    const spawnedAt = Date.now();
    const [new1, new2] = await Promise.all([start(paths.serverMain, 'this-1'), start(paths.serverMain, 'this-2')]);
    const readyMs = Date.now() - spawnedAt;
    endPhase('this build starting');
    const after = await recordedMigrations(url);
    const ran = [...after].filter(([version]) => !before.has(version));
    const committedAt = [new1, new2].map(migratedAt).find((t) => t !== undefined);
    const firstRan = ran[0]?.[1];
    const migration =
      ran.length === 0
        ? 'no migration'
        : `${ran.map(([v, m]) => `${v} "${m.name}"`).join(', ')} (began ${firstRan === undefined ? '?' : firstRan.appliedAt - spawnedAt} ms after the spawn, ` +
          `committed ${committedAt === undefined || firstRan === undefined ? '?' : committedAt - firstRan.appliedAt} ms later)`;
    await sleep(loadMs * PHASE_SHARE.mixed);
    endPhase('both releases');
    const stopped: string[] = [];
    for (const [name, server, share] of [
      ['previous-1', old1, PHASE_SHARE.oneLeft],
      ['previous-2', old2, PHASE_SHARE.thisOnly],
    ] as const) {
      balancer.stopping(name);
      const from = Date.now();
      const code = await server.stop('SIGTERM', 15_000);
      stopped.push(`${name} exit ${code} after ${Date.now() - from} ms`);
      if (code !== 0)
        problems.push(
          `${name} (previous release) exited ${code} after SIGTERM, not 0: ${server.output().slice(-2000)}`,
        );
      await sleep(loadMs * share);
      endPhase(`${name} stopped`);
    }
    stop = true;
    await workers;
    unused.destroy();

    const keyed = await load.retryKeyed();
    const tally = load.nextRound();
    problems.push(...balancer.violations, ...load.violations);
    if (tally.errors500 > 0) problems.push(`${tally.errors500} answers 5xx other than 503`);
    problems.push(...load.late.map((l) => `${l.what} → ${l.status} after ${l.ms} ms (bound ${BOUND_MS} ms)`));

    // The migrations: the previous release made the store at its own, this build ran the rest.
    const highest = (m: ReadonlyMap<number, unknown>) => Math.max(0, ...m.keys());
    if (highest(before) !== release.migrations.previous)
      problems.push(
        `the previous release left the store at migration ${highest(before)}, expected ${release.migrations.previous}`,
      );
    if (highest(after) !== release.migrations.current)
      problems.push(`this build left the store at migration ${highest(after)}, expected ${release.migrations.current}`);
    // The old instances kept writing through what this build's migrations replaced.
    const mixed = phases.find(([name]) => name === 'both releases')?.[1];
    for (const name of ['previous-1', 'previous-2'])
      if ((mixed?.get(name)?.writes ?? 0) === 0)
        problems.push(`${name} acknowledged no write after this build migrated the store: the round proves nothing`);

    // Nothing acknowledged lost; this build serves every plant of the store.
    const stored = await readPostgres(url);
    const lost = load.reconcile(stored);
    problems.push(...lost);
    const byId = (plants: ReadonlyMap<number, StoredPlant>) =>
      JSON.stringify([...plants.values()].sort((a, b) => a.id - b.id));
    const listed = await listAll(new1.url, token);
    if (byId(listed) !== byId(stored))
      problems.push(`GET /plants on this build shows ${listed.size} plants, the table holds ${stored.size}`);
    const served = await readEach(new2, token, stored, problems);
    for (const server of servers)
      problems.push(...errorLines(server).map((line) => `logged at error level: ${line.slice(0, 300)}`));

    // the seam for the recorded history: support/register-load.ts records one and
    // support/linearizability.ts checks it; the outage suite's load used until then records none
    const historyCheck = 'not recorded (OutageLoad)';

    const statuses = [...tally.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    console.log(
      `rolling-upgrade: previous release ${release.short} (${release.why}; ${release.buildNote}) → this build; ` +
        `the previous release created the store at migration ${highest(before)}, ` +
        `this build ran ${migration} while 2 instances of it served; 2 instances of this build ready ${readyMs} ms after the spawn; ` +
        `${tally.requests} requests (${statuses}), ${tally.unavailable} × 503, ${tally.errors500} × 500, slowest ${tally.slowestMs} ms; ` +
        `${balancer.rerouted} rerouted after a refused connection; ` +
        `acknowledged ${tally.creates} creates + ${tally.deletes} deletes, ${tally.unknown} unknown settled by the store, ` +
        `${keyed.retried} keyed retried (${keyed.replayed} replayed), lost ${lost.length}; ` +
        `${stopped.join(', ')}; this build served all ${served} plants (listed and read one by one); ` +
        `history ${historyCheck}; phases: ${phases.map(([name, p]) => `[${name}: ${phaseFigures(p)}]`).join(' ')} (seed ${seed})`,
    );
    expect(problems.slice(0, 30), `${problems.length} problems (seed ${seed})`).toEqual([]);
  });
});

/** Reads every stored plant from `server` one by one (16 at a time); resolves with how many matched. */
const readEach = async (
  server: ServerProcess,
  token: string,
  stored: ReadonlyMap<number, StoredPlant>,
  problems: string[],
): Promise<number> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const queue = [...stored.values()];
  let matched = 0;
  const reader = async (): Promise<void> => {
    for (let plant = queue.shift(); plant !== undefined; plant = queue.shift()) {
      const res = await send({
        agent,
        port: server.port,
        method: 'GET',
        path: `/plants/${plant.id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      const want = JSON.stringify({
        id: plant.id,
        name: plant.name,
        ...(plant.tag === undefined ? {} : { tag: plant.tag }),
      });
      if (res.status === 200 && res.body === want) matched++;
      else
        problems.push(
          `GET /plants/${plant.id} on this build → ${res.status} ${res.body.slice(0, 200)}, stored ${want}`,
        );
    }
  };
  try {
    await Promise.all(Array.from({ length: 16 }, reader));
  } finally {
    agent.destroy();
  }
  return matched;
};
