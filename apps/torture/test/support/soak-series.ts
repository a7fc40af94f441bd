import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The soak's time series: one sample every few seconds of the server process's RSS, V8 heap used,
 * open descriptors, the p99 latency of the requests answered in that interval, and the server's CPU
 * time and run-queue wait (how busy the machine was); the leak verdict over the memory and
 * descriptor figures (the others are reported, never judged: a timing is the bench's to measure,
 * apps/torture/README.md § Soak); and the series as CSV and as a small hand-written SVG.
 */

export interface SoakSample {
  /** Seconds since the load started, and since the previous sample. */
  readonly timeS: number;
  readonly intervalS: number;
  readonly rssMb: number;
  readonly heapMb: number;
  readonly fds: number;
  /** p99 of the regular requests answered in the interval (NaN when none were). */
  readonly p99Ms: number;
  /** Requests answered in the interval. */
  readonly requests: number;
  /** The server's CPU time in the interval (every thread), and its event loop's run-queue wait. */
  readonly cpuMs: number;
  readonly runQueueMs: number;
}

/** Growth allowed from the first third of the steady samples to the last (see the README's § Soak). */
export interface GrowthBounds {
  /** RSS and heap may grow by the larger of `mb` and `share` × the first third's median. */
  readonly rss: { readonly mb: number; readonly share: number };
  readonly heap: { readonly mb: number; readonly share: number };
  /** Descriptors: an absolute allowance. */
  readonly fds: number;
}

export type Metric = 'rssMb' | 'heapMb' | 'fds' | 'p99Ms' | 'cpuPerRequestMs' | 'runQueueMsPerS';

/** A sample's value of `metric` (the last two derived per interval). */
export const valueOf = (s: SoakSample, metric: Metric): number =>
  metric === 'cpuPerRequestMs'
    ? s.requests === 0
      ? NaN
      : s.cpuMs / s.requests
    : metric === 'runQueueMsPerS'
      ? s.runQueueMs / s.intervalS
      : s[metric];

export interface Verdict {
  readonly metric: Metric;
  /** Medians (the heap: troughs) of the first and the last third of the steady samples. */
  readonly first: number;
  readonly last: number;
  /** The largest `last` allowed (NaN: a figure reported, not judged). */
  readonly limit: number;
  readonly ok: boolean;
}

export const median = (values: readonly number[]): number => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** The least of `values` (NaN when none). */
export const least = (values: readonly number[]): number => {
  const kept = values.filter((v) => !Number.isNaN(v));
  return kept.length === 0 ? NaN : Math.min(...kept);
};

/** The samples after the warm-up, split in thirds (the middle one unused); empty thirds when too few. */
export const thirds = (
  samples: readonly SoakSample[],
  warmupS: number,
): { first: SoakSample[]; last: SoakSample[] } => {
  const steady = samples.filter((s) => s.timeS > warmupS);
  const n = Math.floor(steady.length / 3);
  return { first: steady.slice(0, n), last: n === 0 ? [] : steady.slice(-n) };
};

/**
 * Compares the medians of the first and last thirds after `warmupS` against `bounds`: one verdict
 * per bounded metric (RSS, heap, descriptors), then p99, CPU per request and run-queue wait,
 * reported with no bound: timings that follow the machine's load as much as the server.
 */
export const judgeGrowth = (samples: readonly SoakSample[], warmupS: number, bounds: GrowthBounds): Verdict[] => {
  const { first, last } = thirds(samples, warmupS);
  // The heap is a sawtooth whose teeth are as tall as its bound (Node 24 and 26 collect less often
  // than 20 did: 25–56 MB at this load): its thirds are judged by their troughs, the heap a
  // collection leaves, which is what a leak raises. Every other figure by its median.
  const summary = (metric: Metric) => (metric === 'heapMb' ? least : median);
  const medians = (metric: Metric) => ({
    a: summary(metric)(first.map((s) => valueOf(s, metric))),
    b: summary(metric)(last.map((s) => valueOf(s, metric))),
  });
  const limits: [Metric, (base: number) => number][] = [
    ['rssMb', (base) => base + Math.max(bounds.rss.mb, bounds.rss.share * base)],
    ['heapMb', (base) => base + Math.max(bounds.heap.mb, bounds.heap.share * base)],
    ['fds', (base) => base + bounds.fds],
  ];
  const judged = limits.map(([metric, limitOf]): Verdict => {
    const { a, b } = medians(metric);
    const limit = limitOf(a);
    return { metric, first: a, last: b, limit, ok: !Number.isNaN(b) && !(b > limit) };
  });
  const reported = (['p99Ms', 'cpuPerRequestMs', 'runQueueMsPerS'] as const).map((metric): Verdict => {
    const { a, b } = medians(metric);
    return { metric, first: a, last: b, limit: NaN, ok: true };
  });
  return [...judged, ...reported];
};

const fixed = (v: number, digits: number): string => (Number.isNaN(v) ? '' : v.toFixed(digits));

const CSV_HEADER = 'time_s,rss_mb,heap_mb,fds,p99_ms,requests,cpu_ms,runq_wait_ms\n';
const csvLine = (s: SoakSample): string =>
  [
    fixed(s.timeS, 1),
    fixed(s.rssMb, 2),
    fixed(s.heapMb, 2),
    s.fds,
    fixed(s.p99Ms, 2),
    s.requests,
    fixed(s.cpuMs, 0),
    fixed(s.runQueueMs, 1),
  ].join(',') + '\n';

export const seriesCsv = (samples: readonly SoakSample[]): string => CSV_HEADER + samples.map(csvLine).join('');

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Stacked panels sharing the time axis — RSS, heap, descriptors, p99, and the event loop's
 * run-queue wait (how busy the machine was) —: the series as a polyline, the warm-up greyed, the
 * two compared thirds tinted, each third's median and (for the judged figures) the limit as dashed
 * lines. No dependency: SVG written by hand.
 */
export const seriesSvg = (
  samples: readonly SoakSample[],
  warmupS: number,
  verdicts: readonly Verdict[],
  title: string,
): string => {
  const width = 820;
  const left = 70;
  const right = 20;
  const panelHeight = 130;
  const gap = 36;
  const top = 40;
  const plotWidth = width - left - right;
  const tMax = Math.max(1, ...samples.map((s) => s.timeS));
  const x = (t: number): number => left + (t / tMax) * plotWidth;
  const { first, last } = thirds(samples, warmupS);
  const panels: { metric: Metric; label: string; colour: string }[] = [
    { metric: 'rssMb', label: 'RSS (MB)', colour: '#1f77b4' },
    { metric: 'heapMb', label: 'V8 heap used (MB)', colour: '#2ca02c' },
    { metric: 'fds', label: 'open descriptors', colour: '#9467bd' },
    { metric: 'p99Ms', label: 'p99 latency (ms)', colour: '#d62728' },
    { metric: 'runQueueMsPerS', label: "the server's event loop waiting for a CPU (ms per s)", colour: '#7f7f7f' },
  ];
  const height = top + panels.length * (panelHeight + gap) + 10;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="22" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  panels.forEach(({ metric, label, colour }, i) => {
    const y0 = top + i * (panelHeight + gap) + 14;
    const verdict = verdicts.find((v) => v.metric === metric);
    const values = samples.map((s) => valueOf(s, metric)).filter((v) => !Number.isNaN(v));
    const yMax =
      Math.max(1, ...values, ...(verdict === undefined || Number.isNaN(verdict.limit) ? [] : [verdict.limit])) * 1.08;
    const y = (v: number): number => y0 + panelHeight - (v / yMax) * panelHeight;
    const band = (from: SoakSample[], fill: string): string =>
      from.length === 0
        ? ''
        : `<rect x="${x((from[0] as SoakSample).timeS).toFixed(1)}" y="${y0}" width="${(x((from.at(-1) as SoakSample).timeS) - x((from[0] as SoakSample).timeS)).toFixed(1)}" height="${panelHeight}" fill="${fill}"/>`;
    /** A dashed level across the panel, labelled at its start or its end. */
    const hline = (v: number, stroke: string, dash: string, text: string, at: 'start' | 'end'): string =>
      Number.isNaN(v)
        ? ''
        : `<line x1="${left}" x2="${width - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="${stroke}" stroke-dasharray="${dash}"/>` +
          `<text x="${at === 'start' ? left + 4 : width - right - 4}" y="${(y(v) - 3).toFixed(1)}" text-anchor="${at}" fill="${stroke}">${escapeXml(text)}</text>`;
    out.push(
      `<text x="${left}" y="${y0 - 4}" font-weight="bold">${escapeXml(label)}${verdict === undefined || verdict.ok ? '' : ' — beyond the bound'}</text>`,
      `<rect x="${left}" y="${y0}" width="${x(Math.min(warmupS, tMax)) - left}" height="${panelHeight}" fill="#eee"/>`,
      band(first, '#e8f0fb'),
      band(last, '#fbeaea'),
      `<rect x="${left}" y="${y0}" width="${plotWidth}" height="${panelHeight}" fill="none" stroke="#999"/>`,
      `<text x="${left - 6}" y="${y0 + 4}" text-anchor="end">${fixed(yMax, metric === 'fds' ? 0 : 1)}</text>`,
      `<text x="${left - 6}" y="${y0 + panelHeight}" text-anchor="end">0</text>`,
    );
    if (verdict !== undefined) {
      out.push(
        hline(verdict.first, '#1f4e8c', '2,3', `first third ${fixed(verdict.first, 1)}`, 'start'),
        hline(verdict.last, '#8c1f1f', '2,3', `last third ${fixed(verdict.last, 1)}`, 'end'),
        hline(verdict.limit, '#000', '6,4', `limit ${fixed(verdict.limit, 1)}`, 'end'),
      );
    }
    const points = samples
      .filter((s) => !Number.isNaN(valueOf(s, metric)))
      .map((s) => `${x(s.timeS).toFixed(1)},${y(valueOf(s, metric)).toFixed(1)}`);
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${points.join(' ')}"/>`);
    if (i === panels.length - 1) {
      for (let k = 0; k <= 5; k++) {
        const t = (tMax * k) / 5;
        out.push(
          `<text x="${x(t).toFixed(1)}" y="${y0 + panelHeight + 14}" text-anchor="middle">${t.toFixed(0)} s</text>`,
        );
      }
    }
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
};

export interface SeriesFiles {
  readonly csv: string;
  readonly svg: string;
  readonly report: string;
}

/**
 * Opens `<name>.csv` in `dir` (created if need be): `append` adds a sample as it is taken, so a
 * long run's series can be watched and survives a crash of the suite; `finish` writes the plot
 * (`<name>.svg`) and the report (`<name>.txt`) beside it.
 */
export const openSeries = async (
  dir: string,
  name: string,
): Promise<{
  files: SeriesFiles;
  append(sample: SoakSample): Promise<void>;
  finish(svg: string, report: string): Promise<void>;
}> => {
  await mkdir(dir, { recursive: true });
  const files = { csv: join(dir, `${name}.csv`), svg: join(dir, `${name}.svg`), report: join(dir, `${name}.txt`) };
  await writeFile(files.csv, CSV_HEADER);
  return {
    files,
    append: (sample) => appendFile(files.csv, csvLine(sample)),
    finish: async (svg, report) => {
      await Promise.all([writeFile(files.svg, svg), writeFile(files.report, report)]);
    },
  };
};
