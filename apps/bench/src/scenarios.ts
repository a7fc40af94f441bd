import * as t from 'io-ts';

/**
 * The load scenarios. Each names the statuses a healthy server answers; any other status, socket
 * error or timeout during a run (warm-up included) fails `pnpm bench`.
 */
export const ScenarioKind = t.keyof(
  {
    create: null,
    'create-delete': null,
    get: null,
    patch: null,
    list: null,
    'list-tag': null,
    latency: null,
    'get-1': null,
    'create-delete-1': null,
    'list-name': null,
    'list-name-desc': null,
    'list-id-desc': null,
    'list-q': null,
    count: null,
    'count-tag': null,
    'create-batch': null,
  },
  'ScenarioKind',
);
export type ScenarioKind = t.TypeOf<typeof ScenarioKind>;

/**
 * The requests a scenario sends (the load generators build them): one per multi-connection
 * scenario, and for the searched, sorted and counted pages a GET of a path drawn from the
 * scenario's pool (src/search-checks.ts), with `Prefer: count=exact` when counted.
 */
export type RequestMix =
  'create' | 'create-delete' | 'get' | 'patch' | 'list' | 'list-tag' | 'pages' | 'counted' | 'create-batch';

/** Plants in each request of `create-batch` (POST /plants/batch), each with a fresh id. */
export const BATCH_PLANTS = 1000;

export interface ScenarioInfo {
  readonly kind: ScenarioKind;
  /** What the table prints. */
  readonly label: string;
  readonly expected: readonly number[];
  /** Whether the scenario adds plants (needs fresh ids). */
  readonly creates: boolean;
  readonly requests: RequestMix;
  /** One connection (the latency of one request at a time) rather than BENCH_CONNECTIONS. */
  readonly oneConnection: boolean;
  /** Connections of its own, whatever BENCH_CONNECTIONS says (`create-batch`: 4). */
  readonly connections?: number;
  /** Plants each request creates, when more than one: its rows also say plants/s. */
  readonly plants?: number;
}

const scenario = (
  kind: ScenarioKind,
  label: string,
  requests: RequestMix,
  expected: readonly number[],
  oneConnection = false,
): ScenarioInfo => ({
  kind,
  label,
  expected,
  creates: requests === 'create' || requests === 'create-delete' || requests === 'create-batch',
  requests,
  oneConnection,
});

/** In the table's order. */
export const SCENARIOS: Readonly<Record<ScenarioKind, ScenarioInfo>> = {
  create: scenario('create', 'create', 'create', [201]),
  'create-delete': scenario('create-delete', 'create+delete', 'create-delete', [201, 204]),
  get: scenario('get', 'get by id', 'get', [200]),
  // Every PATCH renames a seeded plant to a name no request used before, so each one changes it.
  patch: scenario('patch', 'patch', 'patch', [200]),
  list: scenario('list', 'list 100', 'list', [200]),
  'list-tag': scenario('list-tag', 'list tag 100', 'list-tag', [200]),
  latency: scenario('latency', 'create 1 conn', 'create', [201], true),
  'create-delete-1': scenario('create-delete-1', 'create+delete 1 conn', 'create-delete', [201, 204], true),
  'get-1': scenario('get-1', 'get 1 conn', 'get', [200], true),
  // The searched and sorted pages of the tagged stores, each after a cursor across the middle.
  'list-name': scenario('list-name', 'list name 100', 'pages', [200]),
  'list-name-desc': scenario('list-name-desc', 'list -name 100', 'pages', [200]),
  'list-id-desc': scenario('list-id-desc', 'list -id 100', 'pages', [200]),
  'list-q': scenario('list-q', 'list q 100', 'pages', [200]),
  // A count's latency, one request at a time: the whole store's, and one tag's.
  count: scenario('count', 'count 1 conn', 'counted', [200], true),
  'count-tag': scenario('count-tag', 'count tag 1 conn', 'counted', [200], true),
  // Arrays of BATCH_PLANTS plants (issue 56), each plant a fresh id, from 4 connections: the
  // plants per second an import reaches, against `create` at 50 connections.
  'create-batch': {
    ...scenario('create-batch', 'create batch 1000', 'create-batch', [201]),
    connections: 4,
    plants: BATCH_PLANTS,
  },
};

/** A batch's body: plants `firstId … firstId + BATCH_PLANTS − 1`, named and tagged as `create`'s. */
export const batchBody = (firstId: number): string => {
  const plants: string[] = [];
  for (let id = firstId; id < firstId + BATCH_PLANTS; id++)
    plants.push(`{"id":${id},"name":"bench plant ${id}","tag":"bench"}`);
  return `[${plants.join(',')}]`;
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
    /** For `pages` and `counted`: a file of request paths, one a line, each request drawing one at random. */
    paths: t.union([t.null, t.string]),
    /** Every create with its own `Idempotency-Key`: none, ascending (`bench-<id>`) or random hex. */
    idempotencyKeys: t.keyof({ none: null, ordered: null, random: null }),
  },
  'DriverSpec',
);
export type DriverSpec = t.TypeOf<typeof DriverSpec>;

export const Latency = t.type(
  { p50: t.number, p90: t.number, p99: t.number, max: t.number, mean: t.number },
  'Latency',
);
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
