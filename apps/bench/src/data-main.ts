import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import { parseDataConfig, type DataBenchConfig } from './data-config.js';
import {
  checkDataTargets,
  formatDataTable,
  formatDataTargets,
  parseBackupLine,
  parseImportLine,
  parseMigrateLine,
  type BackupFigures,
  type CommandFigures,
  type DataFigures,
} from './data-report.js';
import { decodeTimeline, windowStats } from './data-windows.js';
import { redact } from './plans.js';
import {
  captureOutput,
  cleanUpOnSignal,
  coreBusySecondsOf,
  cpuSecondsOf,
  sampleRss,
  spawnNode,
  tasksetAvailable,
  waitForExit,
} from './processes.js';
import { smokeCheck } from './seed.js';
import { createToken, startPlantServer, type RunningServer } from './servers.js';
import { createPgDatabase, serverPackageDir, type PgDatabase } from './stores.js';

/**
 * `pnpm bench:data`: the data commands of the server (`plant-store-data`) on a store of
 * BENCH_DATA_PLANTS plants — import, export, migrate SQLite → PostgreSQL → SQLite, and a backup
 * taken while the production server takes creates at BENCH_CONNECTIONS connections. Prints one
 * table with the targets and writes the JSON results beside the load bench's. Exits 1 when a
 * command failed or the load saw errors; a missed target is printed, not an exit code.
 */

/** The create load measured after the backup ends (how fast the server is back). */
const AFTER_SECONDS = 3;

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));
/** Milliseconds since the epoch, the clock the load process stamps its responses with. */
const now = (): number => performance.timeOrigin + performance.now();

/** Plants `1…count` as JSON Lines, about one in ten without a tag, written in large blocks. */
const writePlantsFile = async (file: string, count: number): Promise<void> => {
  const out = createWriteStream(file);
  const block = 10_000;
  for (let from = 1; from <= count; from += block) {
    const lines: string[] = [];
    for (let id = from; id < Math.min(from + block, count + 1); id++)
      lines.push(
        id % 10 === 0
          ? `{"id":${id},"name":"plant ${id}"}`
          : `{"id":${id},"name":"plant ${id}","tag":"tag-${id % 100}"}`,
      );
    if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
};

interface CommandRun extends CommandFigures {
  readonly stdout: string;
  readonly stderr: string;
  /** Largest VmRSS sampled every 100 ms: a cross-check of maxRss (they agree within a fraction of a MB). */
  readonly sampledRss: number | undefined;
}

const main = async (config: DataBenchConfig): Promise<number> => {
  const started = Date.now();
  const pinned = config.pin && availableParallelism() >= 2 && tasksetAvailable();
  const serverCore = pinned ? 0 : undefined;
  const loadCore = pinned ? 1 : undefined;
  // With two cores, one is the server's and the other the load generator's: a backup that the
  // kernel may put anywhere takes part of the server's core, which in production (clients
  // elsewhere) it would find free. `load` keeps the server's core for the server.
  const backupCore = config.backupCore === 'load' ? loadCore : undefined;
  const serverDir = serverPackageDir();
  const dataCli = join(serverDir, 'dist', 'data', 'cli.js');
  if (!existsSync(dataCli)) throw new TypeError(`${dataCli} is missing: build the server first (pnpm bench:data does)`);
  const probe = fileURLToPath(new URL('./child-probe.js', import.meta.url));
  const probeFlags = ['--import', pathToFileURL(probe).href];
  const benchDir = fileURLToPath(new URL('..', import.meta.url));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(benchDir, 'results');
  const work = mkdtempSync(join(tmpdir(), 'plant-data-bench-'));
  const failures: string[] = [];
  const skipped: string[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const figures: { -readonly [K in keyof DataFigures]: DataFigures[K] } = { plants: config.plants };
  const notes: Record<string, unknown> = {};
  const n = config.plants.toLocaleString('en-US');

  const machine = {
    cpus: availableParallelism(),
    model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    pinned: pinned
      ? `server on core 0, load generator on core 1, the backup ${config.backupCore === 'load' ? 'on core 1' : 'unpinned'}, the other commands unpinned (taskset)`
      : 'not pinned',
    loadAverageAtStart: loadavg(),
  };
  log(`plant-store data bench: ${machine.cpus} cpus (${machine.model}), node ${machine.node}, ${machine.pinned}`);
  log(`${n} plants, work dir ${work}`);

  cleanUpOnSignal(cleanups, work, log);

  const storeFile = join(work, 'store', 'plant-store.db');
  mkdirSync(join(work, 'store'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: `sqlite:${storeFile}`,
    SQLITE_SYNCHRONOUS: 'FULL',
    LOG_LEVEL: config.logLevel,
  };

  /** `plant-store-data <args>`, timed from spawn to exit, its peak RSS from the probe; throws unless it exits 0. */
  const runData = async (name: string, args: readonly string[], core?: number): Promise<CommandRun> => {
    const rssFile = join(work, `${name}.maxrss`);
    const child = spawnNode({
      core,
      args: [...probeFlags, dataCli, ...args],
      env: {
        ...env,
        CHILD_PROBE_RSS_FILE: rssFile,
        CHILD_PROBE_LIFETIME_SECONDS: String(config.commandTimeoutSeconds),
      },
      cwd: serverDir,
    });
    const t0 = performance.now();
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8000)));
    // The probe stops it at its lifetime; this is for one that ignores SIGTERM.
    const kill = setTimeout(() => child.kill('SIGKILL'), (config.commandTimeoutSeconds + 10) * 1000);
    const rss = child.pid === undefined ? undefined : sampleRss(child.pid);
    await waitForExit(child);
    const seconds = (performance.now() - t0) / 1000;
    clearTimeout(kill);
    const sampledRss = rss?.stop();
    if (child.exitCode !== 0)
      throw new Error(
        `plant-store-data ${args.join(' ')} exited ${String(child.exitCode ?? child.signalCode)} after ${seconds.toFixed(1)} s:\n${stderr.trim()}`,
      );
    const maxRss = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8').trim()) : undefined;
    log(
      `${name}: ${seconds.toFixed(1)} s, peak RSS ${maxRss === undefined ? '–' : `${(maxRss / 1024 / 1024).toFixed(0)} MB`}`,
    );
    return { seconds, maxRss, sampledRss, stdout, stderr };
  };

  const step = async (name: string, run: () => Promise<void>): Promise<boolean> => {
    try {
      await run();
      return true;
    } catch (error) {
      failures.push(`${name}: ${message(error)}`);
      log(`${name}: FAILED: ${message(error)}`);
      return false;
    }
  };

  // The plants file, then the store: the tokens CLI creates the schema (and the token the load
  // uses), the import fills it.
  const plantsFile = join(work, 'plants.jsonl');
  let token = '';
  const seeded = await step('import', async () => {
    const t0 = performance.now();
    await writePlantsFile(plantsFile, config.plants);
    notes['plantsFile'] = { bytes: statSync(plantsFile).size, seconds: (performance.now() - t0) / 1000 };
    log(`plants file: ${n} lines, ${(statSync(plantsFile).size / 1024 / 1024).toFixed(0)} MB`);
    token = await createToken(env, (line) => log(`warning: ${line}`));
    const run = await runData('import', ['import', plantsFile]);
    const outcome = parseImportLine(run.stdout);
    if (outcome?.created !== config.plants)
      throw new Error(`expected ${n} plants imported, the command said: ${run.stdout.trim()}`);
    figures.import = { seconds: run.seconds, maxRss: run.maxRss };
    notes['import'] = { sampledRss: run.sampledRss };
  });
  rmSync(plantsFile, { force: true });
  if (!seeded) return finish();

  await step('export', async () => {
    const file = join(work, 'export.jsonl');
    const run = await runData('export', ['export', '--output', file]);
    const bytes = statSync(file).size;
    let lines = 0;
    let previous = 0;
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      const id = (JSON.parse(line) as { id: number }).id;
      if (id <= previous) throw new Error(`the export is not in id order at line ${lines + 1}`);
      previous = id;
      lines++;
    }
    if (lines !== config.plants) throw new Error(`the export holds ${lines} lines, not ${n}`);
    rmSync(file);
    figures.export = { seconds: run.seconds, maxRss: run.maxRss, bytes };
    notes['export'] = { sampledRss: run.sampledRss };
  });

  const pg: PgDatabase | string = await createPgDatabase(config.pgAdminUrl).catch((error: unknown) => message(error));
  if (typeof pg === 'string') {
    skipped.push(`migrate: skipped, PostgreSQL unreachable at ${redact(config.pgAdminUrl)}: ${pg}`);
    log(skipped.at(-1) ?? '');
  } else {
    cleanups.push(() => pg.drop());
    const backFile = join(work, 'back', 'plant-store.db');
    mkdirSync(join(work, 'back'));
    const migrateStep = async (from: string, to: string, key: 'toPostgres' | 'toSqlite'): Promise<boolean> =>
      step(`migrate ${key === 'toPostgres' ? 'SQLite → PostgreSQL' : 'PostgreSQL → SQLite'}`, async () => {
        const run = await runData(`migrate-${key}`, ['migrate', '--from', from, '--to', to]);
        const counts = parseMigrateLine(run.stdout);
        if (counts?.['plants'] !== config.plants)
          throw new Error(`expected ${n} plants moved and verified, the command said: ${run.stdout.trim()}`);
        figures[key] = { seconds: run.seconds, maxRss: run.maxRss };
        notes[key] = { sampledRss: run.sampledRss, rows: counts };
      });
    if (await migrateStep(`sqlite:${storeFile}`, pg.url, 'toPostgres'))
      await migrateStep(pg.url, `sqlite:${backFile}`, 'toSqlite');
    await pg.drop().catch((error: unknown) => log(`warning: dropping ${pg.name}: ${message(error)}`));
    cleanups.splice(cleanups.length - 1, 1);
    rmSync(join(work, 'back'), { recursive: true, force: true });
  }

  await step('backup under load', async () => {
    // The server stops by itself after the longest the load and the backup may take together.
    const lifetime = config.warmupSeconds + config.beforeSeconds + config.commandTimeoutSeconds + AFTER_SECONDS + 120;
    const server: RunningServer = await startPlantServer({
      core: serverCore,
      env: { ...env, CHILD_PROBE_LIFETIME_SECONDS: String(lifetime) },
      token,
      nodeFlags: probeFlags,
    });
    cleanups.push(() => server.stop());
    try {
      await smokeCheck(server.url, server.token, 1, config.plants);
      log(`server: ready at ${server.url} (pid ${server.pid}) on ${n} plants`);
      figures.backup = await backupUnderLoad(server, lifetime);
    } finally {
      await server.stop();
      cleanups.pop();
    }
  });

  return finish();

  /** Creates at full speed, the backup started once the window before it is measured. */
  async function backupUnderLoad(server: RunningServer, lifetime: number): Promise<BackupFigures> {
    const timelineFile = join(work, 'load.timeline');
    const spec = {
      url: server.url,
      token: server.token,
      connections: config.connections,
      firstId: config.plants + 2,
      maxSeconds: lifetime,
      // Far above what the run can send; a bound, not a goal.
      maxRequests: 100_000 * lifetime,
      timelineFile,
    };
    const load = spawnNode({
      core: loadCore,
      args: [...probeFlags, fileURLToPath(new URL('./data-load.js', import.meta.url)), JSON.stringify(spec)],
      env: { ...process.env, CHILD_PROBE_LIFETIME_SECONDS: String(lifetime + 10) },
    });
    const loadOutput = captureOutput(load);
    const stopLoad = async (): Promise<void> => {
      load.kill('SIGUSR2');
      const kill = setTimeout(() => load.kill('SIGKILL'), 15_000);
      await waitForExit(load);
      clearTimeout(kill);
    };
    cleanups.push(stopLoad);
    interface Mark {
      readonly at: number;
      readonly server: number | undefined;
      readonly core: number | undefined;
    }
    const marks = (): Mark => ({
      at: now(),
      server: cpuSecondsOf(server.pid),
      core: serverCore === undefined ? undefined : coreBusySecondsOf(serverCore),
    });
    await sleep(config.warmupSeconds * 1000);
    const beforeMark = marks();
    await sleep(config.beforeSeconds * 1000);
    if (load.exitCode !== null) throw new Error(`the load process exited early:\n${loadOutput()}`);
    let walPeak: number | undefined;
    const wal = setInterval(() => {
      try {
        walPeak = Math.max(walPeak ?? 0, statSync(`${storeFile}-wal`).size);
      } catch {
        // no WAL at this instant
      }
    }, 100);
    const startMark = marks();
    let run: CommandRun;
    try {
      run = await runData('backup', ['backup', join(work, 'copy.db')], backupCore);
    } finally {
      clearInterval(wal);
    }
    const endMark = marks();
    await sleep(AFTER_SECONDS * 1000);
    await stopLoad();
    const result = /^RESULT (.*)$/m.exec(loadOutput());
    if (load.exitCode !== 0 || result === null)
      throw new Error(`the load process failed (exit ${String(load.exitCode ?? load.signalCode)}):\n${loadOutput()}`);
    const counts = JSON.parse(result[1] as string) as { unexpected: number; errors: number; statusCounts: unknown };
    const timeline = decodeTimeline(readFileSync(timelineFile));
    const copy = parseBackupLine(run.stdout);
    if (copy === undefined) throw new Error(`the backup printed no result line: ${run.stdout.trim()}`);
    const share = (a: Mark, b: Mark) => {
      const s = (b.at - a.at) / 1000;
      const srv = a.server === undefined || b.server === undefined ? undefined : (b.server - a.server) / s;
      const core = a.core === undefined || b.core === undefined ? undefined : (b.core - a.core) / s;
      return {
        serverCpu: srv,
        otherOnServerCore: srv === undefined || core === undefined ? undefined : Math.max(0, core - srv),
      };
    };
    if (counts.unexpected + counts.errors > 0)
      failures.push(
        `backup under load: ${counts.unexpected + counts.errors} load errors, statuses ${JSON.stringify(counts.statusCounts)}`,
      );
    const before = share(beforeMark, startMark);
    const during = share(startMark, endMark);
    notes['backup'] = { sampledRss: run.sampledRss, statusCounts: counts.statusCounts, before, during };
    const pct = (f: number | undefined): string => (f === undefined ? '–' : `${Math.round(f * 100)}%`);
    log(
      `server CPU before / during the backup: ${pct(before.serverCpu)} / ${pct(during.serverCpu)}; ` +
        `other work on its core: ${pct(before.otherOnServerCore)} / ${pct(during.otherOnServerCore)}`,
    );
    return {
      seconds: run.seconds,
      maxRss: run.maxRss,
      bytes: copy.bytes,
      plants: copy.plants,
      before: windowStats(timeline, startMark.at - config.beforeSeconds * 1000, startMark.at),
      during: windowStats(timeline, startMark.at, endMark.at),
      after: windowStats(timeline, endMark.at, endMark.at + AFTER_SECONDS * 1000),
      errors: counts.unexpected + counts.errors,
      connections: config.connections,
      walPeak,
      otherOnServerCore: { before: before.otherOnServerCore, during: during.otherOnServerCore },
      backupCore: backupCore === undefined ? 'any' : 'load',
    };
  }

  async function finish(): Promise<number> {
    await Promise.allSettled(cleanups.splice(0).map((c) => c()));
    rmSync(work, { recursive: true, force: true });
    const elapsed = (Date.now() - started) / 1000;
    const targets = checkDataTargets(figures);
    log('');
    log(formatDataTable(figures));
    log('');
    log(formatDataTargets(targets));
    for (const line of skipped) log(line);
    mkdirSync(resultsDir, { recursive: true });
    const file = join(resultsDir, `${stamp}-data.json`);
    const { pgAdminUrl, ...shownConfig } = config;
    writeFileSync(
      file,
      `${JSON.stringify({ startedAt: new Date(started).toISOString(), elapsedSeconds: elapsed, machine: { ...machine, loadAverageAtEnd: loadavg() }, config: { ...shownConfig, pgAdminUrl: redact(pgAdminUrl) }, figures, targets, notes, skipped, failures }, null, 2)}\n`,
    );
    log(`results: ${file} (${elapsed.toFixed(0)} s)`);
    if (failures.length === 0) return 0;
    log(`\nFAILED (${failures.length}):`);
    for (const f of failures) log(`- ${f}`);
    return 1;
  }
};

const config = parseDataConfig(process.env);
if (E.isLeft(config)) {
  process.stderr.write(`bench:data: bad environment:\n${config.left.map((l) => `  ${l}`).join('\n')}\n`);
  process.exit(2);
}
main(config.right).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:data: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
