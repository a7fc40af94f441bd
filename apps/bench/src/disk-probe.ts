import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** How long the disk took to make small writes durable, as a durable commit needs. */
export interface DiskProbe {
  readonly syncs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** The nearest-rank percentile `p` (0…1) of ascending `sorted`; 0 for none. */
const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0);

export const summarizeSyncs = (millis: readonly number[]): DiskProbe => {
  const sorted = [...millis].sort((a, b) => a - b);
  return {
    syncs: sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? 0,
  };
};

/**
 * Writes 4 KiB and fdatasyncs it, over and over for `seconds`, in a scratch file under `dir` (the
 * folder the stores live in): the latency floor of any synchronous=FULL commit on this disk. A
 * shared VM's disk stalls now and then; when its p99 or max is high, so is every durable store's.
 */
export const probeDisk = (dir: string, seconds: number): DiskProbe => {
  const file = join(dir, 'disk-probe');
  const fd = openSync(file, 'w');
  const page = Buffer.alloc(4096, 0x2a);
  const millis: number[] = [];
  try {
    const end = performance.now() + seconds * 1000;
    for (let i = 0; performance.now() < end; i++) {
      writeSync(fd, page, 0, page.length, (i % 256) * page.length);
      const start = performance.now();
      fdatasyncSync(fd);
      millis.push(performance.now() - start);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return summarizeSyncs(millis);
};

export const formatProbe = (when: string, probe: DiskProbe): string =>
  `disk (${when}): ${probe.syncs} × 4 KiB write + fdatasync, p50 ${probe.p50Ms.toFixed(2)} ms, p99 ${probe.p99Ms.toFixed(2)} ms, max ${probe.maxMs.toFixed(1)} ms`;
