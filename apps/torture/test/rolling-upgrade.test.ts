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
import { checkHistory, describeHistory, formatVerdict } from './support/linearizability.js';
import { previousRelease, type PreviousRelease } from './support/previous-release.js';
import { startServer, type ServerProcess } from './support/processes.js';
import { RegisterLoad } from './support/register-load.js';
import { listAll, readPostgres, type StoredPlant } from './support/store.js';
import { createToken } from './support/token.js';
import { ChangeWatch, logNumbering, readLog } from './support/change-watch.js';

/**
 * A rolling upgrade under load. The previous release (support/previous-release.ts: built from git)
 * creates a fresh PostgreSQL schema at its migration and runs two instances on it; a mixed load
 * (the outage suite's, with a ledger of what the store must hold) goes through a balancer
 * (support/balancer.ts) over them, and beside it a history-recording load on a few contended ids
 * (support/register-load.ts) goes to the same instances. Then two instances of this build
 * start on that store — its migrations run under the advisory lock while the old instances serve —
 * and join the rotation; the old instances are stopped one by one with SIGTERM (a graceful drain)
 * while the load goes on over the new ones.
 *
 * What must hold: no answer but a 2xx, an expected 4xx or the contract's JSON 503 (no 500), no
 * connection refused or cut by an instance that should serve (a refusal by a stopped one is routed
 * elsewhere; a request cut by one being stopped has an unknown outcome); the old instances exit 0
 * and keep writing after this build's migrations ran; nothing acknowledged lost (the table read with
 * the `postgres` driver); the history of the contended ids is linearizable, across both releases;
 * and this build serves every plant of the store the previous release made.
 */

const CLIENTS = 12;
/** The contended ids of the history load, below the fence plant and far above the ledger load's chosen ids. */
const REGISTER_CLIENTS = 6;
const REGISTER_KEYS = 8;
const REGISTER_FIRST_ID = 900_000_001;
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

    // The previous release creates the store with its tokens CLI, as an operator's first step; with
    // a token there, instances starting at once do not race to create the first-run token (the
    // loser logs the unique violation at error level, though it goes on).
    const token = await createToken(url, 'rolling-upgrade', undefined, release.tokensCli);
    const [old1, old2] = await Promise.all([
      start(release.serverMain, 'previous-1'),
      start(release.serverMain, 'previous-2'),
    ]);
    const before = await recordedMigrations(url);
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
    // Beside it, a few contended ids whose history must be linearizable across both releases.
    const registers = new RegisterLoad({
      targets: [old1.port, old2.port],
      token,
      clients: REGISTER_CLIENTS,
      keys: REGISTER_KEYS,
      firstId: REGISTER_FIRST_ID,
      seed,
    });
    const stopRegisters = new AbortController();
    const registersDone = registers.run({ signal: stopRegisters.signal });
    const stoppingPorts = new Set<number>();
    const phases: [string, Map<string, BackendTally>][] = [];
    const endPhase = (name: string) => phases.push([name, balancer.nextPhase()]);

    await sleep(loadMs * PHASE_SHARE.previous);
    endPhase('previous release');
    // This build's instances migrate the store while the old ones serve.
    const spawnedAt = Date.now();
    const [new1, new2] = await Promise.all([start(paths.serverMain, 'this-1'), start(paths.serverMain, 'this-2')]);
    const readyMs = Date.now() - spawnedAt;
    endPhase('this build starting');
    registers.setTargets([old1.port, old2.port, new1.port, new2.port]);
    // A watcher of this build's change feed from its first change: the log begins at migration 8,
    // and from its commit on every write is logged, the previous release's included (the triggers).
    const watch = new ChangeWatch(0);
    await watch.follow(new1.port, token);
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
      stoppingPorts.add(server.port);
      const from = Date.now();
      const code = await server.stop('SIGTERM', 15_000);
      // a balancer takes a stopped instance out of rotation (this one from its refused connections)
      registers.setTargets([old1, old2, new1, new2].filter((s) => s.alive()).map((s) => s.port));
      stopped.push(`${name} exit ${code} after ${Date.now() - from} ms`);
      if (code !== 0)
        problems.push(
          `${name} (previous release) exited ${code} after SIGTERM, not 0: ${server.output().slice(-2000)}`,
        );
      await sleep(loadMs * share);
      endPhase(`${name} stopped`);
    }
    stop = true;
    stopRegisters.abort();
    await Promise.all([workers, registersDone]);
    await registers.settle();
    registers.close();
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

    // The contended ids: answers the contract allows, none missing but from an instance being
    // stopped, and one order of all the operations that a single plant would have answered so.
    // Its list page assumes its ids are the store's highest; here the ledger load's server-assigned
    // ids are above them (a chosen id raises the mark they count from), so a page not filled with
    // the contended ids goes on with those. The load records reads only of its own ids on a page.
    const foreign = /^GET \/plants\?limit=\d+&after=\d+ listed \{"id":(\d+),/;
    const isForeign = (v: string) => {
      const id = Number(foreign.exec(v)?.[1] ?? NaN);
      return id >= REGISTER_FIRST_ID + REGISTER_KEYS;
    };
    const foreignListed = registers.violations.filter(isForeign).length;
    problems.push(...registers.violations.filter((v) => !isForeign(v)).map((v) => `registers: ${v}`));
    problems.push(
      ...registers.samples
        .filter((s) => s.status === 'none' && !stoppingPorts.has(s.target))
        .map((s) => `registers: ${s.what} to port ${s.target}: no answer from an instance that should serve`),
    );

    // Nothing acknowledged lost; this build serves every plant of the store. The direct read joins
    // the history: both loads' operations (one clock, disjoint ids written; the ledger's list pages
    // read contended ids too) and that read must have one order explaining every answer.
    const readFrom = performance.now();
    const stored = await readPostgres(url);
    load.recorder.observe(stored, readFrom, performance.now());
    const history = [...registers.history, ...load.recorder.history];
    const figures = describeHistory(history);
    const verdict = checkHistory(history, { maxMs: 30_000 });
    if (verdict.ok === false)
      problems.push(`${formatVerdict(figures, verdict)}\n${verdict.explanation}\n${verdict.operations.join('\n')}`);
    else if (verdict.ok === 'unknown') problems.push(`${formatVerdict(figures, verdict)} (${verdict.reason})`);
    const lost = load.reconcile(
      new Map([...stored].filter(([id]) => id < REGISTER_FIRST_ID || id >= REGISTER_FIRST_ID + REGISTER_KEYS)),
    );
    problems.push(...lost);
    // The change log: numbered 1, 2, 3…; the watcher read it as the log holds it; and every create
    // and delete acknowledged by either release that began after the migration's commit is in it.
    const log = await readLog(new1.url, token);
    for (const deadline = Date.now() + 5000; watch.position < log.length && Date.now() < deadline;) await sleep(20);
    watch.stop();
    problems.push(...logNumbering(log, [watch.seen]));
    if (watch.repeats.length > 0)
      problems.push(`the watcher was sent changes twice or out of order: ${watch.repeats.join(', ')}`);
    const logged = new Set(log.map(({ type, data }) => `${type} ${data.id}`));
    const migratedAtPerf = (committedAt ?? Infinity) - performance.timeOrigin;
    const afterMigration = history.filter(
      (o) =>
        o.invokedAt > migratedAtPerf &&
        ((o.call.op === 'create' && o.result.status === 201) || (o.call.op === 'delete' && o.result.status === 204)),
    );
    for (const o of afterMigration) {
      const type = o.call.op === 'create' ? 'plant.created' : 'plant.deleted';
      if (!logged.has(`${type} ${o.call.id}`))
        problems.push(`the change log has no ${type} of plant ${o.call.id}, acknowledged after the migration`);
    }
    const changesNote = `change log: ${log.length} changes from the migration on, the watcher on this-1 read ${watch.seen.size}; ${afterMigration.length} creates and deletes acknowledged after the migration's commit, by either release, each in it`;
    const byId = (plants: ReadonlyMap<number, StoredPlant>) =>
      JSON.stringify([...plants.values()].sort((a, b) => a.id - b.id));
    const listed = await listAll(new1.url, token);
    if (byId(listed) !== byId(stored))
      problems.push(`GET /plants on this build shows ${listed.size} plants, the table holds ${stored.size}`);
    const served = await readEach(new2, token, stored, problems);
    for (const server of servers)
      problems.push(...errorLines(server).map((line) => `logged at error level: ${line.slice(0, 300)}`));

    const historyCheck =
      `${registers.tally.requests} requests from ${REGISTER_CLIENTS} clients on ${REGISTER_KEYS} ids ` +
      `(${foreignListed} other plants on their list pages); both loads' history and the table read: ${formatVerdict(figures, verdict)}`;

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
        `registers: ${historyCheck}; ${changesNote}; phases: ${phases.map(([name, p]) => `[${name}: ${phaseFigures(p)}]`).join(' ')} (seed ${seed})`,
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
