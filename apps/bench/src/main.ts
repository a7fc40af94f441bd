import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import { parseConfig, type BenchConfig } from './config.js';
import { formatProbe, probeDisk, type DiskProbe } from './disk-probe.js';
import { planStores, redact, type Launched, type Plan } from './plans.js';
import { cleanUpOnSignal, tasksetAvailable } from './processes.js';
import { BASES, formatTable, NOISY, rate, responsesOf, type Row, type SideBySide } from './report.js';
import { runScenario } from './run-scenario.js';
import { SCENARIOS, type DriverSpec, type LoadGenerator, type ScenarioKind } from './scenarios.js';
import { smokeCheckSearchPages, type PagePools } from './search-checks.js';
import { seedPlants, smokeCheck, smokeCheckPatch, smokeCheckTagPage } from './seed.js';
import type { RunningServer } from './servers.js';
import { lastCursor, PAGE_TAG } from './tag-pages.js';
import { checkTargets, formatTargets } from './targets.js';
import { formatExport, type TraceExport, type TraceProbe } from './trace-export.js';
import { formatDrain, type WebhookDrain, type WebhookProbe } from './webhook-drain.js';
import { wrkAvailable } from './wrk.js';

/**
 * `pnpm bench`: for each store, start a server process (pinned to core 0), seed it, check it, and
 * drive every scenario from a load-generator process (pinned to core 1); then print one table and
 * write the JSON results. Exits 1 when any request failed or a server misbehaved.
 */

/**
 * The order scenarios run in. Create runs last so the empty store's create and the preloaded
 * store's create (compared by a target, src/targets.ts) are measured back to back, and patch right
 * before it, so that each store's patch and create (compared by another target) are close in time.
 * Each 1-connection scenario follows its 50-connection one.
 */
const SCENARIO_ORDER: readonly ScenarioKind[] = [
  'list',
  'list-tag',
  'list-name',
  'list-name-desc',
  'list-id-desc',
  'list-q',
  'count',
  'count-tag',
  'get',
  'get-1',
  'create-delete',
  'create-delete-1',
  'latency',
  'patch',
  'create',
  // Right after create, so that the arrays' plants/s and the creates' are measured close in time.
  'create-batch',
];

const DISK_PROBE_SECONDS = 2;

/** Seconds until `backlog` reads 0 (polled every 20 ms, at most 120 s). */
const catchUp = async (backlog: () => number | undefined): Promise<number | undefined> => {
  const started = performance.now();
  for (;;) {
    const left = backlog();
    if (left === undefined) return undefined;
    if (left === 0 || performance.now() - started > 120_000) return (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const main = async (config: BenchConfig): Promise<number> => {
  const started = Date.now();
  const pinned = config.pin && availableParallelism() >= 2 && tasksetAvailable();
  const serverCore = pinned ? 0 : undefined;
  const driverCore = pinned ? 1 : undefined;
  // The webhook receiver and the OTLP sinks get a core of their own when there is one; on 2 cores
  // they share the load generator's (which wrk leaves mostly idle at SQLite's rates), never the
  // server's: the server's core is what the rows measure.
  const receiverCore = pinned ? (availableParallelism() >= 3 ? 2 : 1) : undefined;
  const hasWrk = wrkAvailable();
  if (config.load === 'wrk' && !hasWrk)
    throw new TypeError('BENCH_LOAD=wrk but wrk is not installed (apt-get install wrk)');
  const generator: LoadGenerator = config.load === 'autocannon' || !hasWrk ? 'autocannon' : 'wrk';
  const benchDir = fileURLToPath(new URL('..', import.meta.url));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(benchDir, 'results');
  const profileDir = config.cpuProfile ? join(resultsDir, `${stamp}-profiles`) : undefined;
  const work = mkdtempSync(join(tmpdir(), 'plant-bench-'));
  const cleanups: (() => Promise<void>)[] = [];
  const failures: string[] = [];
  const skipped: string[] = [];
  const notes: Record<string, unknown> = {};
  const rows: Row[] = [];
  const warnings: string[] = [];
  const warn = (line: string): void => {
    if (!warnings.includes(line)) warnings.push(line);
    log(`warning: ${line}`);
  };

  const machine = {
    cpus: availableParallelism(),
    model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    pinned: pinned
      ? `server on core 0, load generator on core 1, webhook receiver and OTLP sinks on core ${receiverCore ?? '–'} (taskset)`
      : 'not pinned',
    loadGenerator: generator,
    loadAverageAtStart: loadavg(),
  };
  log(`plant-store bench: ${machine.cpus} cpus (${machine.model}), node ${machine.node}, ${machine.pinned}`);
  log(
    `load generator: ${generator}${generator === 'autocannon' && hasWrk ? ' (BENCH_LOAD=autocannon)' : generator === 'autocannon' ? ' (wrk not installed)' : ''}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  log(
    `${config.warmupSeconds}s warm-up + ${config.seconds}s measured per scenario, ${config.connections} connections, ` +
      `stores: ${config.stores.join(', ')}, work dir ${work}`,
  );

  cleanUpOnSignal(cleanups, work, log);

  // Before any server starts and after the last stops: the disk's own durable-write latency,
  // the floor under every synchronous=FULL row (a shared VM's disk stalls now and then).
  const disk: { before: DiskProbe; after?: DiskProbe } = { before: probeDisk(work, DISK_PROBE_SECONDS) };
  log(formatProbe('before', disk.before));

  const plans = planStores(config, { work, serverCore, receiverCore, profileDir, log, warn, notes, skipped });

  // Start every server first (each idles on core 0 while another is loaded), then run the
  // scenarios one at a time across stores: each of our figures is then measured minutes, not
  // tens of minutes, from the ceiling figure it is divided by (this machine's load drifts).
  interface Live {
    readonly plan: Plan;
    readonly server: RunningServer;
    readonly seedFrom: number;
    readonly seedTo: number;
    readonly webhooks: WebhookProbe | undefined;
    readonly traces: TraceProbe | undefined;
    readonly searchBacklog: (() => number | undefined) | undefined;
    /** For a tagged store: the file of request paths of each page scenario. */
    readonly paths: Partial<Record<ScenarioKind, string>>;
    nextId: number;
    failed: boolean;
  }
  const live: Live[] = [];
  for (const plan of plans.filter((p) => p.scenarios.some((kind) => config.scenarios.includes(kind)))) {
    let launched: Launched | string;
    try {
      launched = await plan.start();
    } catch (error) {
      failures.push(`${plan.label}: could not start: ${message(error)}`);
      log(`${plan.label}: FAILED to start: ${message(error)}`);
      continue;
    }
    if (typeof launched === 'string') {
      skipped.push(launched);
      log(launched);
      continue;
    }
    const { server, cleanup } = launched;
    cleanups.push(cleanup);
    // A store written before the server started (the tagged ones) is not seeded again.
    const seedFrom = launched.seeded?.from ?? launched.firstFreeId;
    const seedTo = launched.seeded?.to ?? seedFrom + config.seed - 1;
    try {
      if (launched.seeded === undefined) await seedPlants(server.url, server.token, seedFrom, seedTo);
      await smokeCheck(server.url, server.token, seedFrom, seedTo);
      const paths: Partial<Record<ScenarioKind, string>> = {};
      if (plan.tagged !== undefined) {
        await smokeCheckTagPage(server.url, server.token, plan.tagged.size);
        const kinds = plan.scenarios.filter((kind) => config.scenarios.includes(kind));
        const pools: PagePools = await smokeCheckSearchPages(server.url, server.token, plan.tagged.size, kinds, warn);
        for (const [kind, pool] of Object.entries(pools) as [ScenarioKind, readonly string[]][]) {
          const file = join(work, `${plan.name}-${kind}.paths`);
          writeFileSync(file, `${pool.join('\n')}\n`);
          paths[kind] = file;
        }
      }
      if (plan.scenarios.includes('patch') && config.scenarios.includes('patch'))
        await smokeCheckPatch(server.url, server.token, seedFrom);
      live.push({
        plan,
        server,
        seedFrom,
        seedTo,
        webhooks: launched.webhooks,
        traces: launched.traces,
        searchBacklog: launched.searchBacklog,
        paths,
        nextId: seedTo + 2,
        failed: false,
      });
      log(
        `${plan.label}: ready at ${server.url} (pid ${server.pid}), ${launched.seeded === undefined ? `${config.seed} plants seeded` : `${(seedTo - seedFrom + 1).toLocaleString('en-US')} plants preloaded`}`,
      );
    } catch (error) {
      failures.push(`${plan.label}: ${message(error)}\n${server.output()}`);
      log(`${plan.label}: FAILED: ${message(error)}`);
    }
  }

  /** One run of `kind` against `entry`'s server; logs it and records its errors. */
  const measure = async (entry: Live, kind: ScenarioKind, label: string, round: number): Promise<Row> => {
    const { plan, server } = entry;
    const connections = SCENARIOS[kind].connections ?? (SCENARIOS[kind].oneConnection ? 1 : config.connections);
    const spec: DriverSpec = {
      generator,
      kind,
      url: server.url,
      token: server.token,
      connections,
      warmupSeconds: config.warmupSeconds,
      seconds: config.seconds,
      firstId: entry.nextId,
      seedFrom: entry.seedFrom,
      seedTo: entry.seedTo,
      tagPage: plan.tagged === undefined ? null : { tag: PAGE_TAG, lastCursor: lastCursor(plan.tagged.size) },
      paths: entry.paths[kind] ?? null,
      idempotencyKeys: plan.idempotencyKeys ?? 'none',
    };
    await entry.webhooks?.beforeLoad();
    await entry.traces?.beforeLoad();
    const { row, nextId } = await runScenario(server, { name: plan.name, label: plan.label }, spec, {
      server: serverCore,
      driver: driverCore,
    });
    entry.nextId = nextId + 1;
    // Arrays of creates on SQLite: the search index adds their plants behind the writes; the
    // row's plants/s counts the time it takes to have them all (issue 56).
    const indexCatchUpSeconds =
      SCENARIOS[kind].plants === undefined || entry.searchBacklog === undefined
        ? undefined
        : await catchUp(entry.searchBacklog);
    const traceExport = await entry.traces?.afterLoad();
    // The load has stopped: how long the outbox takes to empty (and the next run starts from an
    // empty one).
    const webhookDrain = await entry.webhooks?.afterLoad();
    log(
      `${label} (${connections} conn): ${Math.round(row.rps).toLocaleString('en-US')} req/s, ` +
        `p50 ${row.latency.p50.toFixed(2)} ms, p99 ${row.latency.p99.toFixed(2)} ms, errors ${row.errors}` +
        (row.otherCpuServerCore === undefined
          ? ''
          : `, other load on the server's core ${Math.round(row.otherCpuServerCore * 100)}%`) +
        (row.errors > 0 ? `, statuses ${JSON.stringify(row.statusCounts)}` : ''),
    );
    if (row.errors > 0) failures.push(`${label}: ${row.errors} errors, statuses ${JSON.stringify(row.statusCounts)}`);
    if (webhookDrain !== undefined) {
      log(`${label}: webhooks: ${formatDrain(webhookDrain)}`);
      // The receiver answers every POST 204 at once: an attempt that failed is the server's.
      if (webhookDrain.retried > 0 || webhookDrain.failed > 0) {
        failures.push(
          `${label}: webhook attempts failed against a receiver answering 204: ${webhookDrain.retried} to retry, ${webhookDrain.failed} for good`,
        );
      }
      if (webhookDrain.seconds === undefined)
        warn(`${label}: the webhook outbox did not drain within ${webhookDrain.limitSeconds} s`);
    }
    // Nothing received is reported, not failed: a server build without tracing runs these rows
    // untraced, which its log and the table's note then say.
    if (entry.traces !== undefined)
      log(
        `${label}: traces: ${traceExport === undefined ? 'the OTLP sink did not answer' : formatExport(traceExport, responsesOf(row))}`,
      );
    if (!server.alive()) throw new Error('the server process exited during the run');
    if (indexCatchUpSeconds !== undefined)
      log(`${label}: search index caught up ${indexCatchUpSeconds.toFixed(1)} s after the load`);
    return {
      ...row,
      round,
      ...(indexCatchUpSeconds === undefined ? {} : { indexCatchUpSeconds }),
      ...(webhookDrain === undefined ? {} : { webhookDrain }),
      ...(traceExport === undefined ? {} : { traceExport }),
    };
  };

  // With BENCH_ROUNDS > 1 the whole sequence repeats, so that every comparison is made round by
  // round; every other round runs the stores of a scenario in reverse order, so that no store is
  // always the one measured right after another's load.
  const runs = Array.from({ length: config.rounds }, (_, round) => round).flatMap((round) =>
    SCENARIO_ORDER.flatMap((kind) => {
      const entries = live.filter(({ plan }) => plan.scenarios.includes(kind) && config.scenarios.includes(kind));
      return (round % 2 === 1 ? entries.reverse() : entries).map((entry) => ({ kind, entry, round }));
    }),
  );
  const secondsPerRun = config.warmupSeconds + config.seconds + 1.5;
  let retries = 0;
  for (const [index, { kind, entry, round }] of runs.entries()) {
    const { plan, server } = entry;
    if (entry.failed) continue;
    const label = `${plan.label} · ${SCENARIOS[kind].label}${config.rounds > 1 ? ` (round ${round + 1}/${config.rounds})` : ''}`;
    const once = (): Promise<Row> => measure(entry, kind, label, round);
    try {
      let row = await once();
      // A run during which other work took much of the server's core measures the neighbours;
      // run it again while the time budget allows, and keep the quieter run (both in the JSON).
      const remaining = (runs.length - index - 1) * secondsPerRun;
      const fits = (Date.now() - started) / 1000 + remaining + secondsPerRun <= config.budgetSeconds;
      if ((row.otherCpuServerCore ?? 0) > NOISY && fits) {
        retries++;
        log(
          `${label}: rerun, the server's core was ${Math.round((row.otherCpuServerCore ?? 0) * 100)}% busy with other work`,
        );
        const again = await once();
        const [kept, dropped] =
          (again.otherCpuServerCore ?? 0) < (row.otherCpuServerCore ?? 0) ? [again, row] : [row, again];
        row = {
          ...kept,
          discarded: [{ rps: dropped.rps, p99: dropped.latency.p99, otherCpuServerCore: dropped.otherCpuServerCore }],
        };
      }
      rows.push(row);
    } catch (error) {
      entry.failed = true;
      failures.push(`${label}: ${message(error)}\n${server.output()}`);
      log(`${plan.label}: FAILED: ${message(error)}`);
    }
  }
  notes['reruns'] = retries;

  // A variant and its base (BASES: metrics on / off…) under load at the same time, both on the
  // server's core: the scheduler shares the core between them, so the ratio of their req/s is the
  // inverse of the ratio of their CPU cost per request, and whatever else the machine does slows
  // both alike: these ratios hold far steadier from run to run than sequential ones.
  const sideBySide: SideBySide[] = [];
  for (const variant of live) {
    const baseName = BASES[variant.plan.name]?.store;
    const base = live.find((entry) => entry.plan.name === baseName);
    if (base === undefined || config.sideBySide === 0) continue;
    for (const kind of SCENARIO_ORDER.filter(
      (k) =>
        !SCENARIOS[k].oneConnection &&
        variant.plan.scenarios.includes(k) &&
        base.plan.scenarios.includes(k) &&
        config.scenarios.includes(k),
    )) {
      const ratios: number[] = [];
      const drains: WebhookDrain[] = [];
      const exports: TraceExport[] = [];
      for (let run = 0; run < config.sideBySide && !variant.failed && !base.failed; run++) {
        const label = (entry: Live): string =>
          `${entry.plan.label} · ${SCENARIOS[kind].label} (side by side ${run + 1}/${config.sideBySide})`;
        try {
          const [v, b] = await Promise.all([
            measure(variant, kind, label(variant), run),
            measure(base, kind, label(base), run),
          ]);
          ratios.push(v.rps / b.rps);
          if (v.webhookDrain !== undefined) drains.push(v.webhookDrain);
          if (v.traceExport !== undefined) exports.push(v.traceExport);
        } catch (error) {
          variant.failed = true;
          failures.push(`${label(variant)}: ${message(error)}\n${variant.server.output()}\n${base.server.output()}`);
        }
      }
      if (ratios.length > 0)
        sideBySide.push({
          scenario: kind,
          store: variant.plan.name,
          ratios,
          ...(drains.length === 0 ? {} : { webhookDrains: drains }),
          ...(exports.length === 0 ? {} : { traceExports: exports }),
        });
    }
  }

  const pending = cleanups.splice(0);
  await Promise.all(pending.map((cleanup) => cleanup().catch((error: unknown) => warn(`cleanup: ${message(error)}`))));
  disk.after = probeDisk(work, DISK_PROBE_SECONDS);
  rmSync(work, { recursive: true, force: true });

  const rated = rate(rows, sideBySide);
  const elapsed = (Date.now() - started) / 1000;
  log('');
  log(
    `load generator: ${generator}; load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  log(formatTable(rated));
  log(formatProbe('before the runs', disk.before));
  log(formatProbe('after the runs', disk.after));
  log('');
  const targets = checkTargets(rated, disk.before);
  log(formatTargets(targets));
  log('');
  for (const line of skipped) log(line);
  for (const line of warnings) log(`warning: ${line}`);
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${stamp}.json`);
  const { pgAdminUrl, ...shownConfig } = config;
  writeFileSync(
    file,
    `${JSON.stringify({ startedAt: new Date(started).toISOString(), elapsedSeconds: elapsed, machine: { ...machine, loadAverageAtEnd: loadavg(), disk }, config: { ...shownConfig, pgAdminUrl: redact(pgAdminUrl) }, notes, warnings, skipped, failures, targets, sideBySide, rows: rated }, null, 2)}\n`,
  );
  log(`results: ${file} (${elapsed.toFixed(0)} s)`);
  if (profileDir !== undefined) log(`cpu profiles: ${profileDir}`);
  if (failures.length > 0) {
    log(`\nFAILED (${failures.length}):`);
    for (const f of failures) log(`- ${f}`);
    return 1;
  }
  return 0;
};

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const config = parseConfig(process.env);
if (E.isLeft(config)) {
  process.stderr.write(`bench: bad environment:\n${config.left.map((l) => `  ${l}`).join('\n')}\n`);
  process.exit(2);
}
main(config.right).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
