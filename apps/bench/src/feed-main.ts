import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Watchers, type WatcherStats } from './feed-watchers.js';
import { cpuSecondsOf, memoryOf, tasksetAvailable } from './processes.js';
import { createToken, startPlantServer, type RunningServer } from './servers.js';
import { runWrk } from './wrk.js';

/**
 * `pnpm --filter @plant-store/bench feed`: what the change feed (GET /plants/changes) costs the
 * server and how soon it delivers (issue 46), on SQLite (FULL), one run, side by side:
 *
 * - create at 50 connections (wrk) with 0, 100 and 1,000 streams open, each resumed with
 *   Last-Event-ID if the server cuts it; a round ends once every stream has read every change
 *   (the catch-up time is reported), rounds alternate the order;
 * - the delay from a change's commit (its `timestamp`) to its receipt by a watcher, p50 and p99:
 *   100 streams at 1,000 creates/s and 1,000 streams at 100 creates/s, paced;
 * - 10,000 streams open with no writes: the server's RSS growth per stream.
 *
 * The server runs on core 0, the watchers and the load on core 1 (taskset, when present).
 * BENCH_SECONDS (default 8) per run, BENCH_ROUNDS (default 3).
 */

const seconds = Number(process.env['BENCH_SECONDS'] ?? 8);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
/** BENCH_FEED_PARTS: which of `create`, `delay` and `idle` to run (default all). */
const parts = new Set((process.env['BENCH_FEED_PARTS'] ?? 'create,delay,idle').split(','));
const log = (line: string): void => console.log(line);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const pinned = availableParallelism() >= 2 && tasksetAvailable();
if (pinned) spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });

/** The newest change number, from a list page's X-Change-Seq. */
const newest = (server: RunningServer): Promise<number> =>
  new Promise((resolve, reject) => {
    http
      .get(`${server.url}/plants?limit=1`, { headers: { authorization: `Bearer ${server.token}` } }, (res) => {
        res.resume();
        const seq = Number(res.headers['x-change-seq']);
        if (res.statusCode === 200 && Number.isSafeInteger(seq)) resolve(seq);
        else reject(new Error(`GET /plants answered ${res.statusCode} without X-Change-Seq`));
      })
      .on('error', reject);
  });

const until = async (what: string, check: () => boolean, timeoutMs: number): Promise<number> => {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
  return Date.now() - started;
};

/** Opens `count` streams from the newest change on and waits until every one is answered. */
const openWatchers = async (server: RunningServer, count: number, sampled: number): Promise<Watchers> => {
  const watchers = new Watchers(server.url, server.token, count, sampled, await newest(server));
  watchers.open();
  await until(`${count} streams`, () => watchers.stats().connected === count, 120_000);
  return watchers;
};

/** Waits until every stream has read every change committed so far; how long that took (ms). */
const catchUp = async (server: RunningServer, watchers: Watchers): Promise<number> => {
  const target = await newest(server);
  const progress = setInterval(() => {
    const { lowestLastId, reconnects, connected } = watchers.stats();
    log(
      `    catching up: every stream at ${lowestLastId} of ${target}, ${connected} connected, ${reconnects} cut and resumed`,
    );
  }, 10_000);
  try {
    return await until('every stream to read every change', () => watchers.stats().lowestLastId >= target, 120_000);
  } finally {
    clearInterval(progress);
  }
};

/** Creates at `perSecond` for `seconds`, paced in 10 ms ticks over 16 keep-alive connections. */
const pacedCreates = async (server: RunningServer, perSecond: number, firstId: number): Promise<number> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  let id = firstId;
  let failed = 0;
  const create = (): Promise<void> =>
    new Promise((resolve) => {
      const body = JSON.stringify({ id: id++, name: `feed bench ${id}` });
      const req = http.request(
        `${server.url}/plants`,
        {
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${server.token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          if (res.statusCode !== 201) failed += 1;
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', () => {
        failed += 1;
        resolve();
      });
      req.end(body);
    });
  const pending: Promise<void>[] = [];
  const started = Date.now();
  let sent = 0;
  while (Date.now() - started < seconds * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * perSecond);
    while (sent < due) {
      pending.push(create());
      sent += 1;
    }
    await sleep(10);
  }
  await Promise.all(pending);
  agent.destroy();
  if (failed > 0) throw new Error(`${failed} of ${sent} paced creates failed`);
  return id;
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const main = async (): Promise<void> => {
  const work = mkdtempSync(join(tmpdir(), 'plant-feed-bench-'));
  mkdirSync(join(work, 'sqlite'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: `sqlite:${join(work, 'sqlite', 'plant-store.db')}`,
    LOG_LEVEL: 'warn',
    CHANGES_MAX_STREAMS: '20000',
  };
  const token = await createToken(env, (line) => log(`warning: ${line}`));
  // BENCH_CPU_PROF=<dir>: the server writes a CPU profile there when it stops.
  const profileDir = process.env['BENCH_CPU_PROF'];
  const server = await startPlantServer({
    core: pinned ? 0 : undefined,
    env,
    token,
    ...(profileDir === undefined ? {} : { cpuProfileDir: profileDir }),
  });
  const results: Record<string, unknown> = { date: new Date().toISOString(), seconds, rounds, pinned };
  let nextId = 1;
  try {
    log(
      `feed bench: SQLite FULL, ${seconds} s runs, ${rounds} rounds; ${pinned ? 'server on core 0, load on core 1' : 'unpinned'}`,
    );

    if (parts.has('create')) {
      // Create throughput with 0, 100 and 1,000 streams, side by side.
      // BENCH_FEED_STREAMS: the stream counts to compare (default 0,100,1000).
      const counts = (process.env['BENCH_FEED_STREAMS'] ?? '0,100,1000').split(',').map(Number);
      const throughput = new Map<number, number[]>(counts.map((n) => [n, []]));
      const catchUps = new Map<number, number[]>(counts.map((n) => [n, []]));
      const cuts = new Map<number, number>(counts.map((n) => [n, 0]));
      const cpuPerCreate = new Map<number, number[]>(counts.map((n) => [n, []]));
      for (let round = 0; round < rounds; round++) {
        const order = counts.map((_, i, all) => all[(i + round) % all.length] as number);
        for (const streams of order) {
          const watchers = streams === 0 ? undefined : await openWatchers(server, streams, 0);
          const cpuBefore = cpuSecondsOf(server.pid) ?? 0;
          const run = await runWrk({
            kind: 'create',
            url: server.url,
            token,
            connections: 50,
            seconds,
            firstId: nextId,
            seedFrom: 1,
            seedTo: 1,
            tagPage: null,
            paths: null,
            idempotencyKeys: 'none',
          });
          nextId = run.nextId;
          const perSecond = run.requests / run.seconds;
          throughput.get(streams)?.push(perSecond);
          let line = `create 50 conns, ${streams} streams: ${Math.round(perSecond).toLocaleString('en-US')} req/s, p99 ${run.latency.p99.toFixed(1)} ms`;
          if (watchers !== undefined) {
            const ms = await catchUp(server, watchers);
            const stats: WatcherStats = watchers.stats();
            catchUps.get(streams)?.push(ms);
            cuts.set(streams, (cuts.get(streams) ?? 0) + stats.reconnects);
            line += `; every stream had every change ${(ms / 1000).toFixed(1)} s after the load stopped, ${stats.reconnects} cut and resumed`;
            watchers.close();
          }
          // The server's CPU per create, the deliveries after the load included: what streams cost
          // the server itself, apart from the watchers that share the load generator's core here.
          const cpuMicros = (((cpuSecondsOf(server.pid) ?? 0) - cpuBefore) / run.requests) * 1e6;
          cpuPerCreate.get(streams)?.push(cpuMicros);
          line += `; server CPU ${cpuMicros.toFixed(0)} µs a create`;
          log(`  round ${round + 1}: ${line}`);
        }
      }
      const none = median(throughput.get(counts[0] ?? 0) ?? []);
      const createRows = counts.map((streams) => ({
        streams,
        reqPerSecond: Math.round(median(throughput.get(streams) ?? [])),
        ratio: median(throughput.get(streams) ?? []) / none,
        catchUpMs: streams === 0 ? undefined : median(catchUps.get(streams) ?? []),
        cpuMicrosPerCreate: median(cpuPerCreate.get(streams) ?? []),
        cuts: cuts.get(streams),
      }));
      results['create'] = createRows;
      log('');
      log(
        '| streams | create 50 conns req/s | × no streams | server CPU a create | every change read after | streams cut |',
      );
      log('|---:|---:|---:|---:|---:|---:|');
      for (const row of createRows)
        log(
          `| ${row.streams} | ${row.reqPerSecond.toLocaleString('en-US')} | ${row.ratio.toFixed(2)}× | ${row.cpuMicrosPerCreate.toFixed(0)} µs | ${row.catchUpMs === undefined ? '–' : `${(row.catchUpMs / 1000).toFixed(1)} s`} | ${row.cuts ?? '–'} |`,
        );
    }

    if (parts.has('delay')) {
      // Commit-to-receipt delay at a paced rate.
      const delayRows = [];
      for (const [streams, perSecond] of [
        [100, 1000],
        [1000, 100],
      ] as const) {
        const watchers = await openWatchers(server, streams, Math.min(streams, 100));
        watchers.resetDelays();
        nextId = await pacedCreates(server, perSecond, nextId);
        await catchUp(server, watchers);
        const stats = watchers.stats();
        watchers.close();
        delayRows.push({ streams, perSecond, ...stats.delays, sampled: stats.sampledEvents, cuts: stats.reconnects });
        log(
          `delay, ${streams} streams at ${perSecond} creates/s: p50 ${stats.delays?.p50} ms, p99 ${stats.delays?.p99} ms, max ${stats.delays?.max} ms (${stats.sampledEvents.toLocaleString('en-US')} receipts sampled on ${Math.min(streams, 100)} streams)`,
        );
      }
      results['delay'] = delayRows;
    }

    if (parts.has('idle')) {
      // Idle streams: what each costs in memory, once the garbage of opening them is collected (V8
      // shrinks its heap after some seconds of idleness).
      const idle = 10_000;
      await sleep(10_000);
      const before = memoryOf(server.pid).rss ?? 0;
      const watchers = await openWatchers(server, idle, 0);
      await sleep(10_000);
      const after = memoryOf(server.pid).rss ?? 0;
      watchers.close();
      const perStream = (after - before) / idle;
      results['idle'] = { streams: idle, rssBefore: before, rssAfter: after, bytesPerStream: perStream };
      log(
        `idle: ${idle.toLocaleString('en-US')} streams open, RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MB: ${(perStream / 1024).toFixed(1)} KB a stream`,
      );
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const out = new URL('../results/', import.meta.url);
  mkdirSync(out, { recursive: true });
  const file = new URL(`feed-${String(results['date']).replace(/[:.]/g, '-')}.json`, out);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  log(`results: ${file.pathname}`);
};

await main();
