import * as t from 'io-ts';

/**
 * The load scenarios of issue 6 (and `patch`, `list-tag` of issue 18). Each names the statuses a
 * healthy server answers; any other status, socket error or timeout during a run (warm-up
 * included) fails `pnpm bench`.
 */
export const ScenarioKind = t.keyof(
  { create: null, 'create-delete': null, get: null, patch: null, list: null, 'list-tag': null, latency: null },
  'ScenarioKind',
);
export type ScenarioKind = t.TypeOf<typeof ScenarioKind>;

export interface ScenarioInfo {
  readonly kind: ScenarioKind;
  /** What the table prints. */
  readonly label: string;
  readonly expected: readonly number[];
  /** Whether the scenario adds plants (needs fresh ids). */
  readonly creates: boolean;
}

export const SCENARIOS: Readonly<Record<ScenarioKind, ScenarioInfo>> = {
  create: { kind: 'create', label: 'create', expected: [201], creates: true },
  'create-delete': { kind: 'create-delete', label: 'create+delete', expected: [201, 204], creates: true },
  get: { kind: 'get', label: 'get by id', expected: [200], creates: false },
  // Every PATCH renames a seeded plant to a name no request used before, so each one changes it.
  patch: { kind: 'patch', label: 'patch', expected: [200], creates: false },
  list: { kind: 'list', label: 'list 100', expected: [200], creates: false },
  'list-tag': { kind: 'list-tag', label: 'list tag 100', expected: [200], creates: false },
  latency: { kind: 'latency', label: 'create 1 conn', expected: [201], creates: true },
};

const Count = t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 0, 'Count');

/** What the orchestrator hands the driver process (as JSON in argv[2]). */
export const LoadGenerator = t.keyof({ autocannon: null, wrk: null }, 'LoadGenerator');
export type LoadGenerator = t.TypeOf<typeof LoadGenerator>;

export const DriverSpec = t.type(
  {
    generator: LoadGenerator,
    kind: ScenarioKind,
    /** Base URL, e.g. http://127.0.0.1:40123 */
    url: t.string,
    token: t.string,
    connections: Count,
    warmupSeconds: Count,
    seconds: Count,
    /**
     * First id the creates may use; every create gets its own, ascending. `patch` numbers its
     * names from the same counter (`bench patch <n>`), so no two patches set the same name.
     */
    firstId: Count,
    /** Ids known to exist, for `get` and `patch`: [from, to] inclusive. */
    seedFrom: Count,
    seedTo: Count,
    /** For `list-tag`: the tag asked for and the largest `after` cursor drawn (src/tag-pages.ts). */
    tagPage: t.union([t.null, t.type({ tag: t.string, lastCursor: Count })]),
    /** Every create with its own `Idempotency-Key`: none, ascending (`bench-<id>`) or random hex. */
    idempotencyKeys: t.keyof({ none: null, ordered: null, random: null }),
  },
  'DriverSpec',
);
export type DriverSpec = t.TypeOf<typeof DriverSpec>;

export const Latency = t.type({ p50: t.number, p90: t.number, p99: t.number, max: t.number, mean: t.number }, 'Latency');
export type Latency = t.TypeOf<typeof Latency>;

/** What the driver reports back (one `RESULT {json}` line on its stdout). */
export const DriverResult = t.type(
  {
    /** Length of the measured interval (after warm-up), seconds. */
    measuredSeconds: t.number,
    /** Responses received in the measured interval. */
    responses: t.number,
    rps: t.number,
    /** Milliseconds, measured interval only, every response. */
    latency: Latency,
    /** Responses by status over the whole run, warm-up included. */
    statusCounts: t.record(t.string, t.number),
    /** Responses whose status is not one the scenario expects (whole run). */
    unexpected: t.number,
    /** Socket errors including timeouts (whole run), and timeouts alone. */
    errors: t.number,
    timeouts: t.number,
    /** The next id not used by this run. */
    nextId: t.number,
    /** CPU time of the driver process over the measured interval, as a fraction of one core. */
    driverCpu: t.number,
  },
  'DriverResult',
);
export type DriverResult = t.TypeOf<typeof DriverResult>;

/** Nearest-rank percentile of an ascending array; 0 for an empty one. */
export const percentile = (sorted: ArrayLike<number>, p: number): number => {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
};

export const summarize = (samples: Float64Array): Latency => {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? 0 : (sorted[sorted.length - 1] as number),
    mean: sorted.length === 0 ? 0 : sum / sorted.length,
  };
};
