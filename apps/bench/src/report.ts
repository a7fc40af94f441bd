import { STORES, type StoreName } from './config.js';
import { SCENARIOS, type Latency, type ScenarioKind } from './scenarios.js';

/** One measured (scenario, store) pair: a row of the table and of the JSON results. */
export interface Row {
  readonly scenario: ScenarioKind;
  readonly store: StoreName;
  readonly storeLabel: string;
  readonly connections: number;
  readonly rps: number;
  readonly responses: number;
  readonly measuredSeconds: number;
  /** Milliseconds. */
  readonly latency: Latency;
  /** Unexpected statuses + socket errors (timeouts included). 0 on a good run. */
  readonly errors: number;
  readonly timeouts: number;
  readonly unexpected: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** Bytes: largest VmRSS sampled during the scenario; VmHWM after it (peak over the process's life). */
  readonly rssPeak: number | undefined;
  readonly rssHighWater: number | undefined;
  /** Fraction of one core over the measured interval. */
  readonly serverCpu: number | undefined;
  readonly driverCpu: number;
  /**
   * Busy time of the server's / the driver's core not spent by that process (other processes,
   * interrupts, hypervisor steal), as a fraction of the core; undefined when not pinned.
   */
  readonly otherCpuServerCore: number | undefined;
  readonly otherCpuDriverCore: number | undefined;
  /** Noisier runs of the same scenario that this row replaced. */
  readonly discarded?: readonly { readonly rps: number; readonly p99: number; readonly otherCpuServerCore: number | undefined }[];
}

export interface RatedRow extends Row {
  /** rps / the ceiling's rps for the same scenario. */
  readonly ratio: number | undefined;
  /** For the preloaded and the metrics rows: rps / the plain SQLite row's rps (same scenario). */
  readonly vsEmpty: number | undefined;
}

const SCENARIO_ORDER = Object.keys(SCENARIOS) as ScenarioKind[];

/** Adds the ratios and orders rows by scenario, then store (ceiling first). */
export const rate = (rows: readonly Row[]): readonly RatedRow[] => {
  const find = (scenario: ScenarioKind, store: StoreName): Row | undefined =>
    rows.find((r) => r.scenario === scenario && r.store === store);
  return rows
    .map((row): RatedRow => {
      const ceiling = find(row.scenario, 'ceiling');
      const empty = row.store === 'sqlite-preloaded' || row.store === 'sqlite-metrics' ? find(row.scenario, 'sqlite') : undefined;
      return {
        ...row,
        ratio: ceiling !== undefined && ceiling.rps > 0 ? row.rps / ceiling.rps : undefined,
        vsEmpty: empty !== undefined && empty.rps > 0 ? row.rps / empty.rps : undefined,
      };
    })
    .sort(
      (a, b) =>
        SCENARIO_ORDER.indexOf(a.scenario) - SCENARIO_ORDER.indexOf(b.scenario) || STORES.indexOf(a.store) - STORES.indexOf(b.store),
    );
};

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const mb = (bytes: number | undefined): string => (bytes === undefined ? '–' : (bytes / 1024 / 1024).toFixed(0));
const pct = (fraction: number | undefined): string => (fraction === undefined ? '–' : `${Math.round(fraction * 100)}%`);
const times = (ratio: number | undefined): string => (ratio === undefined ? '–' : `${ratio.toFixed(2)}×`);

const HEADER = ['scenario', 'store', 'conns', 'req/s', '× ceiling', 'p50 ms', 'p99 ms', 'errors', 'RSS MB', 'srv CPU', 'drv CPU', 'other', 'note'];
const RIGHT = new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);

export const tableCells = (rows: readonly RatedRow[]): string[][] =>
  rows.map((r) => [
    SCENARIOS[r.scenario].label,
    r.storeLabel,
    String(r.connections),
    int(r.rps),
    r.store === 'ceiling' ? '1.00×' : times(r.ratio),
    ms(r.latency.p50),
    ms(r.latency.p99),
    r.timeouts > 0 ? `${r.errors} (${r.timeouts} t/o)` : String(r.errors),
    mb(r.rssPeak),
    pct(r.serverCpu),
    pct(r.driverCpu),
    r.otherCpuServerCore === undefined && r.otherCpuDriverCore === undefined
      ? '–'
      : `${pct(r.otherCpuServerCore)}/${pct(r.otherCpuDriverCore)}`,
    [r.vsEmpty === undefined ? '' : `${times(r.vsEmpty)} ${r.store === 'sqlite-metrics' ? 'metrics off' : 'empty'}`, r.discarded === undefined ? '' : 'quieter of 2 runs']
      .filter((n) => n !== '')
      .join('; '),
  ]);

/** A Markdown table (renders in the README, reads fine on a terminal). */
export const formatTable = (rows: readonly RatedRow[]): string => {
  const cells = [HEADER, ...tableCells(rows)];
  const widths = HEADER.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    `| ${row.map((cell, i) => (RIGHT.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (RIGHT.has(i) ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(HEADER), rule, ...cells.slice(1).map(line)].join('\n');
};

/** Share of the server's core taken by other work above which a run counts as noisy. */
export const NOISY = 0.25;

const noisy = (...rows: readonly (Row | undefined)[]): boolean => rows.some((r) => (r?.otherCpuServerCore ?? 0) > NOISY);

export interface TargetCheck {
  readonly target: string;
  readonly value: string;
  /** undefined when the rows it needs were not measured. */
  readonly met: boolean | undefined;
  /** Some row it rests on lost over NOISY of the server's core to other work: do not trust it. */
  readonly noisy: boolean;
}

/**
 * Issue 6's targets for SQLite with synchronous=FULL, checked against this run's rows. Printed
 * and written to the JSON for the reader; they never change the exit code (speed on a shared
 * machine is not a pass/fail signal, wrong answers are).
 */
export const checkTargets = (rows: readonly RatedRow[]): readonly TargetCheck[] => {
  const find = (scenario: Row['scenario'], store: StoreName): RatedRow | undefined =>
    rows.find((r) => r.scenario === scenario && r.store === store);
  const create = find('create', 'sqlite');
  const latency = find('latency', 'sqlite');
  const preloaded = find('create', 'sqlite-preloaded');
  const metered = (['create', 'get'] as const).map((scenario) => find(scenario, 'sqlite-metrics'));
  const ours = rows.filter((r) => r.store === 'sqlite' || r.store === 'sqlite-preloaded');
  const peakRss = ours.reduce<number | undefined>((max, r) => (r.rssPeak === undefined ? max : Math.max(max ?? 0, r.rssPeak)), undefined);
  return [
    {
      target: 'create, 50 connections: ≥ 0.33× the ceiling',
      value: times(create?.ratio),
      met: create?.ratio === undefined ? undefined : create.ratio >= 0.33,
      noisy: noisy(create, find('create', 'ceiling')),
    },
    {
      target: 'create, 50 connections: p99 ≤ 10 ms',
      value: create === undefined ? '–' : `${ms(create.latency.p99)} ms`,
      met: create === undefined ? undefined : create.latency.p99 <= 10,
      noisy: noisy(create),
    },
    {
      target: 'create, 1 connection: p99 ≤ 2 ms',
      value: latency === undefined ? '–' : `${ms(latency.latency.p99)} ms`,
      met: latency === undefined ? undefined : latency.latency.p99 <= 2,
      noisy: noisy(latency),
    },
    {
      target: 'server RSS ≤ 150 MB',
      value: `${mb(peakRss)} MB`,
      met: peakRss === undefined ? undefined : peakRss <= 150 * 1024 * 1024,
      noisy: false,
    },
    {
      target: 'zero errors',
      value: String(ours.reduce((sum, r) => sum + r.errors, 0)),
      met: ours.length === 0 ? undefined : ours.every((r) => r.errors === 0),
      noisy: false,
    },
    {
      target: `create with ${preloaded?.storeLabel.replace('sqlite FULL ', '') ?? 'the preload'} plants: ≥ 0.9× the empty store`,
      value: times(preloaded?.vsEmpty),
      met: preloaded?.vsEmpty === undefined ? undefined : preloaded.vsEmpty >= 0.9,
      noisy: noisy(preloaded, create),
    },
    {
      target: 'create and get with metrics on: ≥ 0.95× off (issue 12)',
      value: metered.map((r) => times(r?.vsEmpty)).join(' / '),
      met: metered.some((r) => r?.vsEmpty === undefined) ? undefined : metered.every((r) => (r?.vsEmpty ?? 0) >= 0.95),
      noisy: metered.some((r) => noisy(r, find(r?.scenario ?? 'create', 'sqlite'))),
    },
  ];
};

export const formatTargets = (checks: readonly TargetCheck[]): string =>
  [
    'issue 6 targets (SQLite, synchronous=FULL):',
    ...checks.map(
      (c) =>
        `  ${c.met === undefined ? 'n/a ' : c.met ? 'met ' : 'MISS'}  ${c.target}: ${c.value}` +
        (c.noisy ? `  (noisy: other work took over ${NOISY * 100}% of the server's core; rerun)` : ''),
    ),
  ].join('\n');
