import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from './support/http.js';
import { knobs } from './support/knobs.js';
import { seeded } from './support/ledger.js';
import { paths } from './support/paths.js';
import { rssBytes, startServer, tempDir, type ServerProcess } from './support/processes.js';
import { SoakLoad } from './support/soak-load.js';
import { cpuMs, heapUsedBytes, openDescriptors, runQueueWaitMs } from './support/soak-probes.js';
import { judgeGrowth, openSeries, seriesSvg, type GrowthBounds, type SoakSample } from './support/soak-series.js';
import { createToken } from './support/token.js';

/**
 * Soak: TORTURE_SOAK_SECONDS (60 by default, ≥ 1800 documented) of mixed load against one SQLite
 * server — creates with and without Idempotency-Key (some keys replayed), gets, lists, deletes, 1 %
 * hostile requests — sampling the process every SAMPLE_MS: RSS, V8 heap used (its own metrics
 * endpoint), open descriptors (/proc/<pid>/fd), and the interval's p99, CPU and run-queue wait. A
 * leak shows as growth of RSS, heap or descriptors from the first third of the samples after the
 * warm-up to the last third; the bounds are explained in the README (§ Soak). No 5xx but 503, every
 * answer as the contract says, and the process alive throughout and exiting 0 on SIGTERM. The p99
 * is printed and plotted, never asserted: speed is the bench's to measure (README § Soak). The
 * series goes to results/ as CSV and SVG next to a report.
 */

const SAMPLE_MS = 2_000;
const CONCURRENCY = 16;
/**
 * Start-up, JIT, the store reaching its steady size and the heap its first old-space limits. On
 * Node 24 and 26 RSS climbs for the first ~20 s of this load and settles over ~100 s (README § Soak).
 */
const WARMUP_S = Math.max(20, Math.round(knobs.soakSeconds / 6));
/** Leak signals (README § Soak). */
const SOAK_BOUNDS: GrowthBounds = {
  rss: { mb: 30, share: 0.25 },
  heap: { mb: 20, share: 0.5 },
  fds: 20,
};
/** Idempotency keys expire during the run, so the purge sweep is part of the soak. */
const IDEMPOTENCY_TTL_SECONDS = 60;

const mb = (bytes: number): number => bytes / (1024 * 1024);

const stamp = (): string => new Date().toISOString().replace(/[:.]/g, '-');
const grouped = (n: number): string => n.toLocaleString('en-US');

describe('soak: mixed load against SQLite for TORTURE_SOAK_SECONDS', () => {
  let dir: { path: string; remove(): Promise<void> };
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dir = await tempDir('soak');
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await dir?.remove();
  });

  it(
    'keeps RSS, heap and descriptors flat, answers no 5xx but 503, never dies',
    async () => {
      const databaseUrl = `sqlite:${join(dir.path, 'plant-store.db')}`;
      const token = await createToken(databaseUrl, 'soak');
      const live = await startServer({
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: 'warn',
        METRICS_PORT: '0',
        IDEMPOTENCY_TTL_SECONDS: String(IDEMPOTENCY_TTL_SECONDS),
      });
      server = live;
      const seed = Number(process.env['TORTURE_SEED'] ?? Date.now() % 1_000_000_007);
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const load = new SoakLoad(agent, live.port, token, seeded(seed), `soak-${seed}`);
      const series = await openSeries(join(paths.root, 'apps/torture/results'), `soak-${stamp()}`);
      const samples: SoakSample[] = [];
      const sampleProblems: string[] = [];
      const started = Date.now();
      const end = started + knobs.soakSeconds * 1_000;
      let stop = false;
      let died: string | undefined;

      const sampler = (async () => {
        let before = { timeS: 0, answered: 0, cpu: cpuMs(live.pid), runQueue: runQueueWaitMs(live.pid) };
        for (let tick = 1; !stop; tick++) {
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + tick * SAMPLE_MS - Date.now())));
          const latencies = load.drainLatencies();
          let heap = NaN;
          try {
            heap = await heapUsedBytes(live.metricsPort as number);
          } catch (error) {
            if (live.alive()) sampleProblems.push(`${tick}: ${(error as Error).message}`);
          }
          let sample: SoakSample | undefined;
          try {
            const now = {
              timeS: (Date.now() - started) / 1000,
              answered: load.tally.answered,
              cpu: cpuMs(live.pid),
              runQueue: runQueueWaitMs(live.pid),
            };
            sample = {
              timeS: now.timeS,
              intervalS: now.timeS - before.timeS,
              rssMb: mb(rssBytes(live.pid)),
              heapMb: mb(heap),
              fds: openDescriptors(live.pid),
              p99Ms: percentile(latencies, 99),
              requests: now.answered - before.answered,
              cpuMs: now.cpu - before.cpu,
              runQueueMs: now.runQueue - before.runQueue,
            };
            before = now;
          } catch (error) {
            if (live.alive()) throw error;
          }
          if (sample === undefined || !live.alive()) {
            died = `the server died ${((Date.now() - started) / 1000).toFixed(1)} s in:\n${live.output().slice(-3000)}`;
            stop = true;
            break;
          }
          samples.push(sample);
          await series.append(sample);
          if (Date.now() >= end) stop = true;
        }
      })();
      const worker = async (): Promise<void> => {
        while (!stop && Date.now() < end) await load.step();
      };
      await Promise.all([...Array.from({ length: CONCURRENCY }, worker), sampler]);
      agent.destroy();
      const seconds = (Date.now() - started) / 1000;

      const exit = died === undefined ? await live.stop('SIGTERM') : null;
      const verdicts = judgeGrowth(samples, WARMUP_S, SOAK_BOUNDS);
      const leaks = verdicts.filter((v) => !v.ok);
      const verdictOf = (metric: string) => verdicts.find((v) => v.metric === metric);
      const range = (metric: string, digits: number): string => {
        const v = verdictOf(metric);
        return v === undefined
          ? '?'
          : `${v.first.toFixed(digits)} → ${v.last.toFixed(digits)}${Number.isNaN(v.limit) ? '' : ` (limit ${v.limit.toFixed(digits)})`}`;
      };
      const t = load.tally;
      const statuses = [...load.byStatus]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${grouped(n)}`)
        .join(' ');
      const summary =
        `soak sqlite: ${seconds.toFixed(0)} s, ${grouped(t.requests)} requests (${grouped(Math.round(t.requests / seconds))}/s; ` +
        `${grouped(t.creates)} creates, ${grouped(t.keyedCreates)} keyed, ${grouped(t.replays)} replays, ${grouped(t.gets)} gets, ${grouped(t.lists)} lists, ` +
        `${grouped(t.deletes)} deletes, ${grouped(t.hostile)} hostile), ${t.serverErrors} 5xx, ${t.unavailable} 503, ${t.failed} unanswered, ` +
        `${load.violationCount} violations; first → last third after ${WARMUP_S} s (medians; the heap's troughs): RSS ${range('rssMb', 1)} MB, heap ${range('heapMb', 1)} MB, ` +
        `fds ${range('fds', 0)}, p99 ${range('p99Ms', 1)} ms (not asserted); server CPU per request ${range('cpuPerRequestMs', 3)} ms, ` +
        `run-queue wait ${range('runQueueMsPerS', 0)} ms/s; ${samples.length} samples; exit ${String(exit)} (seed ${seed})`;
      await series.finish(
        seriesSvg(
          samples,
          WARMUP_S,
          verdicts,
          `soak ${seconds.toFixed(0)} s, ${grouped(t.requests)} requests, ${paths.serverMain.replace(paths.root, '')}`,
        ),
        [summary, `statuses ${statuses}`, `server ${paths.serverMain}`, ...load.violations, ...sampleProblems].join(
          '\n',
        ) + '\n',
      );
      const files = series.files;
      console.log(`${summary}; statuses ${statuses}; ${files.csv.replace(paths.root, '')} (+ .svg, .txt)`);

      expect(died, died).toBeUndefined();
      expect(load.violations, `${load.violationCount} answers against the contract`).toEqual([]);
      expect(t.serverErrors).toBe(0);
      expect(sampleProblems).toEqual([]);
      expect(samples.length, 'too few samples after the warm-up to compare thirds').toBeGreaterThanOrEqual(
        Math.floor(WARMUP_S / (SAMPLE_MS / 1000)) + 6,
      );
      expect(t.replays, 'the load was real: replays').toBeGreaterThan(0);
      expect(t.hostile, 'the load was real: hostile requests').toBeGreaterThan(0);
      expect(
        leaks.map((v) => `${v.metric} grew ${v.first.toFixed(1)} → ${v.last.toFixed(1)} (limit ${v.limit.toFixed(1)})`),
        `leak signal (the last third vs the first third after ${WARMUP_S} s): ${files.svg}`,
      ).toEqual([]);
      expect(exit, live.output().slice(-3000)).toBe(0);
    },
    (knobs.soakSeconds + 90) * 1_000,
  );
});
