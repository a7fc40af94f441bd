import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { formatErrors } from '@plant-store/domain';
import { MIN_TAGGED_SIZE } from './tag-pages.js';

/** The stores (rows of the table) a run can cover, in the order they run. */
export const STORES = [
  'ceiling',
  'koa-minimal',
  'fastify-sqlite',
  'fastify-sqlite-async',
  'sqlite',
  'sqlite-baseline',
  'sqlite-preloaded',
  'sqlite-normal',
  'sqlite-metrics',
  'sqlite-keyed',
  'sqlite-webhook',
  'sqlite-webhook-baseline',
  'sqlite-redis-down',
  'sqlite-traced',
  'sqlite-traced-ratio',
  'sqlite-tag-small',
  'sqlite-tag-large',
  'sqlite-tag-baseline',
  'fastify-postgres',
  'postgres',
  'postgres-baseline',
  'postgres-traced',
  'postgres-traced-ratio',
  'postgres-tag-small',
  'postgres-tag-large',
  'postgres-tag-baseline',
] as const;
export type StoreName = (typeof STORES)[number];
/**
 * The peers: other stacks serving the same requests under the same rules, started like the ceiling
 * (src/peers/). `koa-minimal` is the floor of our own stack.
 */
export const PEER_STORES: readonly StoreName[] = [
  'koa-minimal',
  'fastify-sqlite',
  'fastify-sqlite-async',
  'fastify-postgres',
];
/**
 * The stores of the tag page: a store of BENCH_TAG_SIZES[0] and one of BENCH_TAG_SIZES[1] plants,
 * written straight into the store before the server starts.
 */
export const TAG_STORES: readonly StoreName[] = [
  'sqlite-tag-small',
  'sqlite-tag-large',
  'postgres-tag-small',
  'postgres-tag-large',
];
/**
 * Another build's server (BENCH_BASELINE_DIR) beside this one's: on each store, with a webhook
 * endpoint (beside `sqlite-webhook`), and on the smaller tagged store of each (beside it).
 */
export const BASELINE_STORES: readonly StoreName[] = [
  'sqlite-baseline',
  'sqlite-webhook-baseline',
  'sqlite-tag-baseline',
  'postgres-baseline',
  'postgres-tag-baseline',
];
/** Our server exporting its traces to an OTLP sink, every root trace kept or one in ten, on each store. */
export const TRACED_STORES: readonly StoreName[] = [
  'sqlite-traced',
  'sqlite-traced-ratio',
  'postgres-traced',
  'postgres-traced-ratio',
];
/**
 * Our server rate limiting in a Redis that is not there (every check fails open): what a request
 * costs while Redis is down.
 */
export const REDIS_DOWN_STORES: readonly StoreName[] = ['sqlite-redis-down'];
/** The SQLite peer written with async hooks and handlers: what that style costs Fastify. */
export const ASYNC_PEER_STORES: readonly StoreName[] = ['fastify-sqlite-async'];
/**
 * What runs when BENCH_STORES is unset: every store but the baselines, which need
 * BENCH_BASELINE_DIR, the tagged stores (four more servers, two of a million plants, and their
 * side-by-side runs), the traced stores (four more servers and sinks, and their side-by-side
 * runs), the Redis-down store (one more server and its side-by-side runs) and the async peer
 * (the same), which are asked for by name.
 */
const DEFAULT_STORES: readonly StoreName[] = STORES.filter(
  (s) =>
    !BASELINE_STORES.includes(s) &&
    !TAG_STORES.includes(s) &&
    !TRACED_STORES.includes(s) &&
    !REDIS_DOWN_STORES.includes(s) &&
    !ASYNC_PEER_STORES.includes(s),
);

/**
 * BENCH_BUDGET's default: the default run's 50 runs (each counted as warm-up + measured + 1.5 s,
 * 11.5 s; ≈ 10.3 s in fact) after ≈ 50 s of start-up (11 servers, the preload, the disk probe),
 * with room for about seven noisy runs to be repeated.
 */
const DEFAULT_BUDGET_SECONDS = 640;

export const intFromString = (name: string, min: number, max: number) =>
  new t.Type<number, string, unknown>(
    name,
    (u): u is number => typeof u === 'number' && Number.isSafeInteger(u) && u >= min && u <= max,
    (u, c) => {
      const text = typeof u === 'string' ? u.replaceAll('_', '').replaceAll(',', '') : '';
      const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      return Number.isSafeInteger(n) && n >= min && n <= max
        ? t.success(n)
        : t.failure(u, c, `expected an integer from ${min} to ${max}, got ${JSON.stringify(u)}`);
    },
    String,
  );

const storeList = new t.Type<readonly StoreName[], string, unknown>(
  'StoreList',
  (u): u is readonly StoreName[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected a comma-separated list');
    const names = u
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const unknown = names.filter((n) => !(STORES as readonly string[]).includes(n));
    return unknown.length > 0 || names.length === 0
      ? t.failure(u, c, `expected some of ${STORES.join(', ')}, got ${JSON.stringify(u)}`)
      : t.success(STORES.filter((s) => names.includes(s)));
  },
  (names) => names.join(','),
);

/** BENCH_SCENARIOS' names: the scenario kinds (`latency` is create with one connection). */
const SCENARIO_NAMES = [
  'create',
  'create-delete',
  'get',
  'patch',
  'list',
  'list-tag',
  'latency',
  'create-delete-1',
  'get-1',
  'list-name',
  'list-name-desc',
  'list-id-desc',
  'list-q',
  'count',
  'count-tag',
  'create-batch',
] as const;
type ScenarioName = (typeof SCENARIO_NAMES)[number];

const scenarioList = new t.Type<readonly ScenarioName[], string, unknown>(
  'ScenarioList',
  (u): u is readonly ScenarioName[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected a comma-separated list');
    const names = u
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    const unknown = names.filter((n) => !(SCENARIO_NAMES as readonly string[]).includes(n));
    return unknown.length > 0 || names.length === 0
      ? t.failure(u, c, `expected some of ${SCENARIO_NAMES.join(', ')}, got ${JSON.stringify(u)}`)
      : t.success(SCENARIO_NAMES.filter((s) => names.includes(s)));
  },
  (names) => names.join(','),
);

/** Two store sizes, the smaller first: `10000,1000000` (`_` allowed inside a number). */
const tagSizes = new t.Type<readonly [number, number], string, unknown>(
  'TagSizes',
  (u): u is readonly [number, number] => Array.isArray(u) && u.length === 2,
  (u, c) => {
    const parts = typeof u === 'string' ? u.split(',').map((s) => s.trim().replaceAll('_', '')) : [];
    const [small, large] = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
    return parts.length === 2 &&
      small !== undefined &&
      large !== undefined &&
      small >= MIN_TAGGED_SIZE &&
      small < large &&
      large <= 100_000_000
      ? t.success([small, large] as const)
      : t.failure(
          u,
          c,
          `expected two sizes, the smaller first, each from ${MIN_TAGGED_SIZE} to 100000000 (e.g. 10000,1000000), got ${JSON.stringify(u)}`,
        );
  },
  (sizes) => sizes.join(','),
);

const onOff = t.keyof({ on: null, off: null, '1': null, '0': null, true: null, false: null }, 'on|off');

/** Environment knobs of `pnpm bench`; README.md lists them. */
const Env = t.partial({
  BENCH_SECONDS: intFromString('BENCH_SECONDS', 1, 600),
  BENCH_ROUNDS: intFromString('BENCH_ROUNDS', 1, 20),
  BENCH_SIDE_BY_SIDE: intFromString('BENCH_SIDE_BY_SIDE', 0, 20),
  BENCH_BUDGET: intFromString('BENCH_BUDGET', 0, 86_400),
  BENCH_WARMUP: intFromString('BENCH_WARMUP', 0, 60),
  BENCH_CONNECTIONS: intFromString('BENCH_CONNECTIONS', 1, 10_000),
  BENCH_PRELOAD: intFromString('BENCH_PRELOAD', 0, 100_000_000),
  BENCH_SEED: intFromString('BENCH_SEED', 1, 1_000_000),
  BENCH_TAG_SIZES: tagSizes,
  BENCH_STORES: storeList,
  BENCH_SCENARIOS: scenarioList,
  BENCH_PG_URL: t.string,
  BENCH_BASELINE_DIR: t.string,
  BENCH_PIN: onOff,
  BENCH_CPU_PROF: onOff,
  BENCH_LOG_LEVEL: t.string,
  BENCH_LOAD: t.keyof({ auto: null, autocannon: null, wrk: null }, 'auto|autocannon|wrk'),
  BENCH_KEYS: t.keyof({ ordered: null, random: null }, 'ordered|random'),
});

export interface BenchConfig {
  /** Measured interval per scenario, seconds. */
  readonly seconds: number;
  readonly warmupSeconds: number;
  /**
   * How many times every scenario runs on every store, interleaved (round 1 of all, then round 2…):
   * each row shows the run of median req/s and each ratio is the median of the per-round ratios,
   * so one noisy stretch of the machine cannot make a comparison.
   */
  readonly rounds: number;
  /**
   * Runs of each variant row (metrics on…) at the same time as its base row, both on the server's
   * core, whose req/s ratio the variant's comparison then takes (0: compare the sequential rows).
   */
  readonly sideBySide: number;
  /** Seconds the bench may take (build excluded); noisy runs are repeated only within it. */
  readonly budgetSeconds: number;
  readonly connections: number;
  /** Rows written straight into the SQLite file before the preloaded create run (0: skip that row). */
  readonly preload: number;
  /** Plants created before the get-by-id and list runs. */
  readonly seed: number;
  /** Plants in the smaller and the larger tagged store (the `list tag 100` rows). */
  readonly tagSizes: readonly [number, number];
  /**
   * The `sqlite FULL keyed` row's Idempotency-Keys: `ordered` (ascending, as the client's UUIDv7
   * keys arrive) or `random` (as UUIDv4 keys would: each lands on a page of its own).
   */
  readonly keys: 'ordered' | 'random';
  readonly stores: readonly StoreName[];
  readonly scenarios: readonly ScenarioName[];
  /** A PostgreSQL URL allowed to CREATE DATABASE / DROP DATABASE. */
  readonly pgAdminUrl: string;
  /**
   * The `apps/server` folder of another checkout (built), run as the `sqlite-baseline` and
   * `postgres-baseline` rows: a before/after comparison measured side by side in one run.
   */
  readonly baselineDir: string | undefined;
  /** Pin server and load generator to cores 0 and 1 with taskset (when present). */
  readonly pin: boolean;
  /** Run our server with `node --cpu-prof`, profiles next to the JSON results. */
  readonly cpuProfile: boolean;
  /** LOG_LEVEL handed to our server. */
  readonly logLevel: string;
  /** The load generator: wrk where installed (auto), or autocannon. */
  readonly load: 'auto' | 'autocannon' | 'wrk';
}

const truthy = (v: string | undefined, fallback: boolean): boolean =>
  v === undefined ? fallback : v === 'on' || v === '1' || v === 'true';

export const parseConfig = (
  env: Readonly<Record<string, string | undefined>>,
): E.Either<readonly string[], BenchConfig> =>
  pipe(
    Env.decode(
      Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('BENCH_') && v !== undefined && v !== '')),
    ),
    E.mapLeft((errors) => formatErrors(errors)),
    E.map((e) => ({
      seconds: e.BENCH_SECONDS ?? 8,
      warmupSeconds: e.BENCH_WARMUP ?? 2,
      rounds: e.BENCH_ROUNDS ?? 1,
      sideBySide: e.BENCH_SIDE_BY_SIDE ?? 3,
      budgetSeconds: e.BENCH_BUDGET ?? DEFAULT_BUDGET_SECONDS,
      connections: e.BENCH_CONNECTIONS ?? 50,
      preload: e.BENCH_PRELOAD ?? 5_000_000,
      seed: e.BENCH_SEED ?? 1000,
      tagSizes: e.BENCH_TAG_SIZES ?? [10_000, 1_000_000],
      keys: e.BENCH_KEYS ?? 'ordered',
      stores: e.BENCH_STORES ?? DEFAULT_STORES,
      scenarios: e.BENCH_SCENARIOS ?? SCENARIO_NAMES,
      pgAdminUrl: e.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      baselineDir: e.BENCH_BASELINE_DIR,
      pin: truthy(e.BENCH_PIN, true),
      cpuProfile: truthy(e.BENCH_CPU_PROF, false),
      logLevel: e.BENCH_LOG_LEVEL ?? 'warn',
      load: e.BENCH_LOAD ?? 'auto',
    })),
  );
