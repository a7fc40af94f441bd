import { STORES, type StoreName } from './config.js';
import { SCENARIOS, type Latency, type ScenarioKind } from './scenarios.js';
import { drainTime, type WebhookDrain } from './webhook-drain.js';

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
  /** Which round of BENCH_ROUNDS this run belongs to (0 when there is one). */
  readonly round?: number;
  /** Noisier runs of the same scenario that this row replaced. */
  readonly discarded?: readonly { readonly rps: number; readonly p99: number; readonly otherCpuServerCore: number | undefined }[];
  /** For a server with a webhook endpoint: its outbox when this run's load stopped, and how long it took to empty. */
  readonly webhookDrain?: WebhookDrain;
}

export interface RatedRow extends Row {
  /** rps / the ceiling's rps for the same scenario (the median of the per-round ratios). */
  readonly ratio: number | undefined;
  /** For a row with a base (BASES): rps / the base row's rps, same scenario and round (median over rounds). */
  readonly vsBase: number | undefined;
  /**
   * For a scenario measured against another (SCENARIO_BASES: patch against create): rps / the
   * same store's rps in that scenario, same round (median over rounds).
   */
  readonly vsScenario: number | undefined;
  /** req/s of every round, in round order; the row itself is the round of median req/s. */
  readonly roundsRps: readonly number[];
  /** How many side-by-side runs `vsBase` is the median of (undefined: taken from the rounds). */
  readonly sideBySide: number | undefined;
}

/**
 * Rows measured as a variant of another row of the same run: the preloaded store against the
 * empty one, the server with metrics on against the same server with them off, another build
 * (BENCH_BASELINE_DIR) against this one.
 */
export const BASES: Partial<Record<StoreName, { readonly store: StoreName; readonly note: string }>> = {
  'sqlite-preloaded': { store: 'sqlite', note: 'empty' },
  'sqlite-metrics': { store: 'sqlite', note: 'metrics off' },
  'sqlite-keyed': { store: 'sqlite', note: 'no key' },
  'sqlite-webhook': { store: 'sqlite', note: 'no webhook' },
  'sqlite-baseline': { store: 'sqlite', note: 'this build' },
  'sqlite-tag-large': { store: 'sqlite-tag-small', note: 'smaller store' },
  'postgres-tag-large': { store: 'postgres-tag-small', note: 'smaller store' },
};

/** Scenarios measured against another scenario on the same store (issue 18: patch ≥ 0.9× create). */
export const SCENARIO_BASES: Partial<Record<ScenarioKind, { readonly scenario: ScenarioKind; readonly note: string }>> = {
  patch: { scenario: 'create', note: 'create' },
};

const SCENARIO_ORDER = Object.keys(SCENARIOS) as ScenarioKind[];

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
};

/** The req/s ratios of a variant to its base (BASES) measured at the same time on one core. */
export interface SideBySide {
  readonly scenario: ScenarioKind;
  readonly store: StoreName;
  readonly ratios: readonly number[];
  /** The variant's webhook outbox after each of these runs (for the JSON). */
  readonly webhookDrains?: readonly WebhookDrain[];
}

/**
 * One row per (scenario, store): with several rounds, the round of median req/s, and each ratio
 * the median of the ratios taken within a round (a paired comparison: both rows of a ratio ran
 * minutes apart at most, under the same neighbours). A variant's ratio to its base comes from the
 * side-by-side runs when there are some (the median of their ratios). Rows are ordered by scenario,
 * then store.
 */
export const rate = (rows: readonly Row[], sideBySide: readonly SideBySide[] = []): readonly RatedRow[] => {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = `${row.scenario} ${row.store}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const partner = (row: Row, store: StoreName, scenario: ScenarioKind = row.scenario): Row | undefined =>
    rows.find((r) => r.scenario === scenario && r.store === store && (r.round ?? 0) === (row.round ?? 0));
  const medianRatio = (group: readonly Row[], store: StoreName, scenario?: ScenarioKind): number | undefined => {
    const ratios = group.flatMap((row) => {
      const other = partner(row, store, scenario);
      return other !== undefined && other.rps > 0 ? [row.rps / other.rps] : [];
    });
    return ratios.length === 0 ? undefined : median(ratios);
  };
  return [...groups.values()]
    .map((group): RatedRow => {
      const byRps = [...group].sort((a, b) => a.rps - b.rps);
      const representative = byRps[Math.floor((byRps.length - 1) / 2)] as Row;
      const base = BASES[representative.store];
      const paired = sideBySide.find((p) => p.scenario === representative.scenario && p.store === representative.store);
      const baseScenario = SCENARIO_BASES[representative.scenario]?.scenario;
      return {
        ...representative,
        ratio: medianRatio(group, 'ceiling'),
        vsBase: base === undefined ? undefined : paired === undefined ? medianRatio(group, base.store) : median(paired.ratios),
        vsScenario: baseScenario === undefined ? undefined : medianRatio(group, representative.store, baseScenario),
        sideBySide: paired?.ratios.length,
        roundsRps: group.map((r) => r.rps),
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
    [
      r.vsBase === undefined ? '' : `${times(r.vsBase)} ${BASES[r.store]?.note ?? ''}${r.sideBySide === undefined ? '' : ` (side by side, median of ${r.sideBySide})`}`,
      r.vsScenario === undefined ? '' : `${times(r.vsScenario)} ${SCENARIO_BASES[r.scenario]?.note ?? ''}`,
      r.roundsRps.length > 1 ? `median of ${r.roundsRps.length}` : '',
      r.webhookDrain === undefined ? '' : `outbox ${int(r.webhookDrain.backlogAtStop)} at stop, ${drainTime(r.webhookDrain)}`,
      r.discarded === undefined ? '' : 'quieter of 2 runs',
    ]
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
 * Issue 6's targets for SQLite with synchronous=FULL, and those of the later issues each names
 * (issue 18's on SQLite and PostgreSQL), checked against this run's rows. Printed and written to
 * the JSON for the reader; they never change the exit code (speed on a shared machine is not a
 * pass/fail signal, wrong answers are).
 */
export const checkTargets = (rows: readonly RatedRow[]): readonly TargetCheck[] => {
  const find = (scenario: Row['scenario'], store: StoreName): RatedRow | undefined =>
    rows.find((r) => r.scenario === scenario && r.store === store);
  const create = find('create', 'sqlite');
  const latency = find('latency', 'sqlite');
  const preloaded = find('create', 'sqlite-preloaded');
  const metered = (['create', 'get'] as const).map((scenario) => find(scenario, 'sqlite-metrics'));
  const keyed = find('create', 'sqlite-keyed');
  const webhook = find('create', 'sqlite-webhook');
  const drain = webhook?.webhookDrain;
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
      value: times(preloaded?.vsBase),
      met: preloaded?.vsBase === undefined ? undefined : preloaded.vsBase >= 0.9,
      noisy: noisy(preloaded, create),
    },
    {
      target: 'create and get with metrics on: ≥ 0.95× off (issue 12)',
      value: metered.map((r) => times(r?.vsBase)).join(' / '),
      met: metered.some((r) => r?.vsBase === undefined) ? undefined : metered.every((r) => (r?.vsBase ?? 0) >= 0.95),
      noisy: metered.some((r) => noisy(r, find(r?.scenario ?? 'create', 'sqlite'))),
    },
    {
      target: 'create with an Idempotency-Key on every request: ≥ 0.85× without (issue 10)',
      value: times(keyed?.vsBase),
      met: keyed?.vsBase === undefined ? undefined : keyed.vsBase >= 0.85,
      noisy: noisy(keyed, create),
    },
    {
      target: 'create with one webhook endpoint: ≥ 0.85× without (issue 11)',
      value:
        times(webhook?.vsBase) +
        (webhook === undefined ? '' : ` (p99 ${ms(webhook.latency.p99)} ms with, ${create === undefined ? '–' : `${ms(create.latency.p99)} ms`} without)`),
      met: webhook?.vsBase === undefined ? undefined : webhook.vsBase >= 0.85,
      noisy: noisy(webhook, create),
    },
    {
      target: 'webhook outbox empty ≤ 5 s after the create load stops (issue 11)',
      value:
        drain === undefined
          ? '–'
          : `${drain.seconds === undefined ? `> ${drain.limitSeconds} s, ${int(drain.backlogAtEnd)} left` : `${drain.seconds.toFixed(1)} s`}` +
            ` (backlog at stop ${int(drain.backlogAtStop)}` +
            (drain.retried + drain.failed > 0 ? `; ${int(drain.retried)} attempts retried, ${int(drain.failed)} failed` : '') +
            ')',
      met: drain === undefined ? undefined : drain.seconds !== undefined && drain.seconds <= 5,
      noisy: noisy(webhook),
    },
    ...(['sqlite', 'postgres'] as const).map((store) => patchTarget(find('patch', store), find('create', store), store === 'sqlite' ? 'sqlite FULL' : 'postgres')),
    ...(
      [
        ['sqlite-tag-large', 'sqlite-tag-small', 'sqlite FULL'],
        ['postgres-tag-large', 'postgres-tag-small', 'postgres'],
      ] as const
    ).map(([large, small, store]) => tagPageTarget(find('list-tag', large), find('list-tag', small), store)),
  ];
};

/** Issue 18: PATCH at 50 connections ≥ 0.9× create's req/s, on the same store in the same run. */
const patchTarget = (patch: RatedRow | undefined, create: RatedRow | undefined, store: string): TargetCheck => ({
  target: `patch, 50 connections: ≥ 0.9× create on the same store (issue 18), ${store}`,
  value: patch?.vsScenario === undefined || create === undefined ? '–' : `${times(patch.vsScenario)} (${int(patch.rps)} vs ${int(create.rps)} req/s)`,
  met: patch?.vsScenario === undefined ? undefined : patch.vsScenario >= 0.9,
  noisy: noisy(patch, create),
});

/**
 * Issue 18: the tag page on the larger store within 20 % of the smaller one, read on req/s: the
 * larger store's req/s ≥ 0.8× the smaller's, side by side when those runs were made (else the
 * sequential rows); the sequential ratio and both p50s are shown beside it.
 */
const tagPageTarget = (large: RatedRow | undefined, small: RatedRow | undefined, store: string): TargetCheck => {
  const size = (row: RatedRow | undefined, fallback: string): string => row?.storeLabel.replace(`${store} `, '') ?? fallback;
  const sequential = large !== undefined && small !== undefined && small.rps > 0 ? large.rps / small.rps : undefined;
  const how = large?.sideBySide === undefined ? 'sequential' : `side by side, median of ${large.sideBySide}`;
  return {
    target: `tag page (limit 100), ${size(large, 'larger')} vs ${size(small, 'smaller')} plants: ≥ 0.8× req/s (issue 18), ${store}`,
    value:
      large?.vsBase === undefined || small === undefined
        ? '–'
        : `${times(large.vsBase)} (${how}` +
          (large.sideBySide === undefined ? '' : `; sequential ${times(sequential)}`) +
          `; p50 ${ms(large.latency.p50)} vs ${ms(small.latency.p50)} ms)`,
    met: large?.vsBase === undefined ? undefined : large.vsBase >= 0.8,
    noisy: noisy(large, small),
  };
};

export const formatTargets = (checks: readonly TargetCheck[]): string =>
  [
    'targets (issue 6 unless another is named; SQLite synchronous=FULL unless another store is named):',
    ...checks.map(
      (c) =>
        `  ${c.met === undefined ? 'n/a ' : c.met ? 'met ' : 'MISS'}  ${c.target}: ${c.value}` +
        (c.noisy ? `  (noisy: other work took over ${NOISY * 100}% of the server's core; rerun)` : ''),
    ),
  ].join('\n');
