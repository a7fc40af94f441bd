import { PEER_STORES, STORES, type StoreName } from './config.js';
import { SCENARIOS, type Latency, type ScenarioKind } from './scenarios.js';
import { formatExport, type TraceExport } from './trace-export.js';
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
  readonly discarded?: readonly {
    readonly rps: number;
    readonly p99: number;
    readonly otherCpuServerCore: number | undefined;
  }[];
  /** For a server with a webhook endpoint: its outbox when this run's load stopped, and how long it took to empty. */
  readonly webhookDrain?: WebhookDrain;
  /** For a traced server: what its OTLP sink received during this run. */
  readonly traceExport?: TraceExport;
  /**
   * SQLite, a creating scenario: seconds from the end of the load until the search index had
   * every plant (migration 7 indexes them behind the writes); the plants/s of its row count them.
   */
  readonly indexCatchUpSeconds?: number;
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
  /**
   * For a row of ours: rps / its store's peer's rps (PEER_OF: SQLite rows against `fastify sqlite
   * NORMAL`, PostgreSQL rows against `fastify postgres`), same scenario and round (median over
   * rounds).
   */
  readonly vsPeer: number | undefined;
  /** For a row of ours: rps / the floor's (`koa minimal NORMAL`), same scenario and round (median over rounds). */
  readonly vsFloor: number | undefined;
}

/**
 * Rows measured as a variant of another row of the same run: the preloaded store against the
 * empty one, the server with metrics on against the same server with them off, another build
 * (BENCH_BASELINE_DIR) against this one.
 */
export const BASES: Partial<Record<StoreName, { readonly store: StoreName; readonly note: string }>> = {
  'fastify-sqlite-async': { store: 'fastify-sqlite', note: 'sync handlers' },
  'sqlite-preloaded': { store: 'sqlite', note: 'empty' },
  'sqlite-metrics': { store: 'sqlite', note: 'metrics off' },
  'sqlite-keyed': { store: 'sqlite', note: 'no key' },
  'sqlite-webhook': { store: 'sqlite', note: 'no webhook' },
  'sqlite-webhook-baseline': { store: 'sqlite-webhook', note: 'this build' },
  'sqlite-redis-down': { store: 'sqlite', note: 'no rate limit' },
  'sqlite-traced': { store: 'sqlite', note: 'untraced' },
  'sqlite-traced-ratio': { store: 'sqlite', note: 'untraced' },
  'sqlite-baseline': { store: 'sqlite', note: 'this build' },
  'postgres-baseline': { store: 'postgres', note: 'this build' },
  'postgres-traced': { store: 'postgres', note: 'untraced' },
  'postgres-traced-ratio': { store: 'postgres', note: 'untraced' },
  'sqlite-tag-large': { store: 'sqlite-tag-small', note: 'smaller store' },
  'postgres-tag-large': { store: 'postgres-tag-small', note: 'smaller store' },
  'sqlite-tag-baseline': { store: 'sqlite-tag-small', note: 'this build' },
  'postgres-tag-baseline': { store: 'postgres-tag-small', note: 'this build' },
};

/** The floor of our own stack: Koa, its router and body parser, SQLite at NORMAL, nothing else. */
export const FLOOR: StoreName = 'koa-minimal';

/** Ours: every row but the ceiling and the peers. */
export const isOurs = (store: StoreName): boolean => store !== 'ceiling' && !PEER_STORES.includes(store);

/** Each row of ours and the peer of its store: another stack on the same database. */
export const PEER_OF: Partial<Record<StoreName, StoreName>> = Object.fromEntries(
  STORES.filter(isOurs).map((store) => [store, store.startsWith('postgres') ? 'fastify-postgres' : 'fastify-sqlite']),
);

/** Scenarios measured against another scenario on the same store (patch against create). */
export const SCENARIO_BASES: Partial<Record<ScenarioKind, { readonly scenario: ScenarioKind; readonly note: string }>> =
  {
    patch: { scenario: 'create', note: 'create' },
    'create-batch': { scenario: 'create', note: 'create (plants/s)' },
  };

/**
 * Plants (or requests) per second over the measured interval and, on SQLite, the search index's
 * catch-up after it: what a scenario that creates many plants a request is compared by.
 */
export const plantsPerSecond = (row: Row): number =>
  (row.responses * (SCENARIOS[row.scenario].plants ?? 1)) / (row.measuredSeconds + (row.indexCatchUpSeconds ?? 0));

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
  /** What the variant's OTLP sink received during each of these runs (for the JSON). */
  readonly traceExports?: readonly TraceExport[];
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
    // A scenario of many plants a request (arrays) is compared by its plants per second, the
    // search index caught up; every other row by req/s.
    const rateOf = (r: Row): number => (SCENARIOS[r.scenario].plants === undefined ? r.rps : plantsPerSecond(r));
    const ratios = group.flatMap((row) => {
      const other = partner(row, store, scenario);
      return other !== undefined && rateOf(other) > 0 ? [rateOf(row) / rateOf(other)] : [];
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
      const peer = PEER_OF[representative.store];
      return {
        ...representative,
        ratio: medianRatio(group, 'ceiling'),
        vsPeer: peer === undefined ? undefined : medianRatio(group, peer),
        vsFloor: isOurs(representative.store) ? medianRatio(group, FLOOR) : undefined,
        vsBase:
          base === undefined
            ? undefined
            : paired === undefined
              ? medianRatio(group, base.store)
              : median(paired.ratios),
        vsScenario: baseScenario === undefined ? undefined : medianRatio(group, representative.store, baseScenario),
        sideBySide: paired?.ratios.length,
        roundsRps: group.map((r) => r.rps),
      };
    })
    .sort(
      (a, b) =>
        SCENARIO_ORDER.indexOf(a.scenario) - SCENARIO_ORDER.indexOf(b.scenario) ||
        STORES.indexOf(a.store) - STORES.indexOf(b.store),
    );
};

export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
export const ms = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
export const mb = (bytes: number | undefined): string => (bytes === undefined ? '–' : (bytes / 1024 / 1024).toFixed(0));
const pct = (fraction: number | undefined): string => (fraction === undefined ? '–' : `${Math.round(fraction * 100)}%`);
export const times = (ratio: number | undefined): string => (ratio === undefined ? '–' : `${ratio.toFixed(2)}×`);

const HEADER = [
  'scenario',
  'store',
  'conns',
  'req/s',
  '× ceiling',
  '× peer',
  '× floor',
  'p50 ms',
  'p99 ms',
  'errors',
  'RSS MB',
  'srv CPU',
  'drv CPU',
  'other',
  'note',
];
const RIGHT = new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);

/** The reference rows show 1.00× in their own column, as the ceiling does under `× ceiling`. */
const isPeerOfSome = (store: StoreName): boolean => Object.values(PEER_OF).includes(store);

export const tableCells = (rows: readonly RatedRow[]): string[][] =>
  rows.map((r) => [
    SCENARIOS[r.scenario].label,
    r.storeLabel,
    String(r.connections),
    int(r.rps),
    r.store === 'ceiling' ? '1.00×' : times(r.ratio),
    isPeerOfSome(r.store) ? '1.00×' : times(r.vsPeer),
    r.store === FLOOR ? '1.00×' : times(r.vsFloor),
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
      r.vsBase === undefined
        ? ''
        : `${times(r.vsBase)} ${BASES[r.store]?.note ?? ''}${r.sideBySide === undefined ? '' : ` (side by side, median of ${r.sideBySide})`}`,
      SCENARIOS[r.scenario].plants === undefined
        ? ''
        : `${int(plantsPerSecond(r))} plants/s${r.indexCatchUpSeconds === undefined ? '' : ` (search index caught up ${r.indexCatchUpSeconds.toFixed(1)} s after)`}`,
      r.vsScenario === undefined ? '' : `${times(r.vsScenario)} ${SCENARIO_BASES[r.scenario]?.note ?? ''}`,
      r.roundsRps.length > 1 ? `median of ${r.roundsRps.length}` : '',
      r.webhookDrain === undefined
        ? ''
        : `outbox ${int(r.webhookDrain.backlogAtStop)} at stop, ${drainTime(r.webhookDrain)}`,
      r.traceExport === undefined ? '' : formatExport(r.traceExport, responsesOf(r)),
      r.discarded === undefined ? '' : 'quieter of 2 runs',
    ]
      .filter((n) => n !== '')
      .join('; '),
  ]);

/** Responses of the whole run, warm-up included (what an OTLP sink's counts of the run stand beside). */
export const responsesOf = (row: Row): number => Object.values(row.statusCounts).reduce((sum, n) => sum + n, 0);

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
