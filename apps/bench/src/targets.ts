import type { StoreName } from './config.js';
import type { DiskProbe } from './disk-probe.js';
import { FLOOR, int, mb, ms, NOISY, plantsPerSecond, times, type RatedRow, type Row } from './report.js';
import { NAME_WORDS, SEARCH_TEXT } from './search-pages.js';
import { TAG_EVERY } from './tag-pages.js';

/**
 * The performance targets checked against one run's rated rows, and how they are printed.
 */

const noisy = (...rows: readonly (Row | undefined)[]): boolean =>
  rows.some((r) => (r?.otherCpuServerCore ?? 0) > NOISY);

export interface TargetCheck {
  readonly target: string;
  readonly value: string;
  /** undefined when the rows it needs were not measured. */
  readonly met: boolean | undefined;
  /** Some row it rests on lost over NOISY of the server's core to other work: do not trust it. */
  readonly noisy: boolean;
}

/**
 * The targets for SQLite with synchronous=FULL, and those on the stores each names (on SQLite and
 * PostgreSQL, against the peers), checked against this run's rows; `disk` is the probe taken before
 * the first server started (the 1-connection p50 target rests on its fsync p50). Printed and
 * written to the JSON for the reader; they never change the exit code (speed on a shared machine is
 * not a pass/fail signal, wrong answers are).
 */
export const checkTargets = (rows: readonly RatedRow[], disk?: DiskProbe): readonly TargetCheck[] => {
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
  const peakRss = ours.reduce<number | undefined>(
    (max, r) => (r.rssPeak === undefined ? max : Math.max(max ?? 0, r.rssPeak)),
    undefined,
  );
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
        (webhook === undefined
          ? ''
          : ` (p99 ${ms(webhook.latency.p99)} ms with, ${create === undefined ? '–' : `${ms(create.latency.p99)} ms`} without)`),
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
            (drain.retried + drain.failed > 0
              ? `; ${int(drain.retried)} attempts retried, ${int(drain.failed)} failed`
              : '') +
            ')',
      met: drain === undefined ? undefined : drain.seconds !== undefined && drain.seconds <= 5,
      noisy: noisy(webhook),
    },
    ...(['sqlite', 'postgres'] as const).map((store) =>
      patchTarget(find('patch', store), find('create', store), store === 'sqlite' ? 'sqlite FULL' : 'postgres'),
    ),
    ...(['sqlite', 'postgres'] as const).flatMap((store) =>
      batchTargets(find('create-batch', store), find('create', store), store),
    ),
    ...(
      [
        ['sqlite-tag-large', 'sqlite-tag-small', 'sqlite FULL'],
        ['postgres-tag-large', 'postgres-tag-small', 'postgres'],
      ] as const
    ).map(([large, small, store]) => tagPageTarget(find('list-tag', large), find('list-tag', small), store)),
    ...searchTargets(find),
    ...issue19Targets(find, disk),
  ];
};

type Find = (scenario: Row['scenario'], store: StoreName) => RatedRow | undefined;

/** `row`'s req/s ≥ `min` × `other`'s, read on the ratio `rate` took (the median of the rounds' ratios). */
const ratioTarget = (
  target: string,
  row: RatedRow | undefined,
  ratio: number | undefined,
  other: RatedRow | undefined,
  min: number,
): TargetCheck => ({
  target,
  value:
    ratio === undefined || row === undefined || other === undefined
      ? '–'
      : `${times(ratio)} (${int(row.rps)} vs ${int(other.rps)} req/s)`,
  met: ratio === undefined ? undefined : ratio >= min,
  noisy: noisy(row, other),
});

/**
 * Our rows against the peers (src/peers/) and the floor, and the 1-connection create at FULL
 * against the disk's own fsync (what a durable write cannot beat).
 */
const issue19Targets = (find: Find, disk: DiskProbe | undefined): readonly TargetCheck[] => {
  const latency = find('latency', 'sqlite');
  const normalLatency = find('latency', 'sqlite-normal');
  const create = find('create', 'sqlite');
  const createDelete = find('create-delete', 'sqlite');
  const pgLatency = find('latency', 'postgres');
  const pgCreate = find('create', 'postgres');
  const list = find('list', 'sqlite');
  const fsyncLimit = disk === undefined ? undefined : disk.p50Ms + 0.1;
  return [
    ratioTarget(
      'create, 1 connection, sqlite NORMAL: ≥ 1.0× koa minimal NORMAL (issue 19)',
      normalLatency,
      normalLatency?.vsFloor,
      find('latency', FLOOR),
      1.0,
    ),
    {
      target: "create, 1 connection: p50 ≤ the disk's fsync p50 + 0.1 ms (issue 19)",
      value:
        latency === undefined || disk === undefined || fsyncLimit === undefined
          ? '–'
          : `${ms(latency.latency.p50)} ms (fsync p50 ${disk.p50Ms.toFixed(2)} ms before the runs: ≤ ${fsyncLimit.toFixed(2)} ms)`,
      met: latency === undefined || fsyncLimit === undefined ? undefined : latency.latency.p50 <= fsyncLimit,
      noisy: noisy(latency),
    },
    ratioTarget(
      'create, 50 connections: ≥ 1.0× fastify sqlite NORMAL (issue 19)',
      create,
      create?.vsPeer,
      find('create', 'fastify-sqlite'),
      1.0,
    ),
    ratioTarget(
      'create+delete, 50 connections: ≥ 1.0× fastify sqlite NORMAL (issue 19)',
      createDelete,
      createDelete?.vsPeer,
      find('create-delete', 'fastify-sqlite'),
      1.0,
    ),
    ratioTarget(
      'create, 1 connection, postgres: ≥ 0.9× fastify postgres (issue 19)',
      pgLatency,
      pgLatency?.vsPeer,
      find('latency', 'fastify-postgres'),
      0.9,
    ),
    ratioTarget(
      'create, 50 connections, postgres: ≥ 1.2× fastify postgres (issue 19)',
      pgCreate,
      pgCreate?.vsPeer,
      find('create', 'fastify-postgres'),
      1.2,
    ),
    ratioTarget(
      'list 100, 50 connections: ≥ 0.5× the ceiling (issue 19)',
      list,
      list?.ratio,
      find('list', 'ceiling'),
      0.5,
    ),
  ];
};

/** PATCH at 50 connections ≥ 0.9× create's req/s, on the same store in the same run. */
const patchTarget = (patch: RatedRow | undefined, create: RatedRow | undefined, store: string): TargetCheck => ({
  target: `patch, 50 connections: ≥ 0.9× create on the same store (issue 18), ${store}`,
  value:
    patch?.vsScenario === undefined || create === undefined
      ? '–'
      : `${times(patch.vsScenario)} (${int(patch.rps)} vs ${int(create.rps)} req/s)`,
  met: patch?.vsScenario === undefined ? undefined : patch.vsScenario >= 0.9,
  noisy: noisy(patch, create),
});

/**
 * Arrays of 1000 (4 connections) against single creates (50 connections) on one store (issue 56):
 * ≥ 3× the plants/s on SQLite FULL and ≥ 5× on PostgreSQL, the search index caught up; the
 * server's RSS while arrays arrive ≤ 1.5× while creates do.
 */
const batchTargets = (
  batch: RatedRow | undefined,
  create: RatedRow | undefined,
  store: 'sqlite' | 'postgres',
): TargetCheck[] => {
  const label = store === 'sqlite' ? 'sqlite FULL' : 'postgres';
  const min = store === 'sqlite' ? 3 : 5;
  const rss =
    batch?.rssPeak === undefined || create?.rssPeak === undefined ? undefined : batch.rssPeak / create.rssPeak;
  return [
    {
      target: `create batch 1000, 4 connections: ≥ ${min}× the plants/s of create at 50 (issue 56), ${label}`,
      value:
        batch?.vsScenario === undefined || create === undefined
          ? '–'
          : `${times(batch.vsScenario)} (${int(plantsPerSecond(batch))} vs ${int(create.rps)} plants/s; p99 ${ms(batch.latency.p99)} ms an array)`,
      met: batch?.vsScenario === undefined ? undefined : batch.vsScenario >= min,
      noisy: noisy(batch, create),
    },
    {
      target: `create batch 1000: RSS ≤ 1.5× create's (issue 56), ${label}`,
      value: rss === undefined ? '–' : `${times(rss)} (${mb(batch?.rssPeak)} vs ${mb(create?.rssPeak)} MB)`,
      met: rss === undefined ? undefined : rss <= 1.5,
      noisy: false,
    },
  ];
};

/** The size a tagged row's label names (`1M` of `sqlite FULL 1M`). */
const sizeOf = (row: RatedRow | undefined, store: string, fallback: string): string =>
  row?.storeLabel.replace(`${store} `, '') ?? fallback;

/**
 * A page on the larger store at most `1 / min` times as costly as on the smaller one, read on
 * req/s: the larger store's req/s ≥ `min` × the smaller's, side by side when those runs were made
 * (else the sequential rows); the sequential ratio and both p50s are shown beside it.
 */
const largerStoreTarget = (
  page: string,
  large: RatedRow | undefined,
  small: RatedRow | undefined,
  store: string,
  min: number,
  issue: string,
): TargetCheck => {
  const sequential = large !== undefined && small !== undefined && small.rps > 0 ? large.rps / small.rps : undefined;
  const how = large?.sideBySide === undefined ? 'sequential' : `side by side, median of ${large.sideBySide}`;
  return {
    target: `${page}, ${sizeOf(large, store, 'larger')} vs ${sizeOf(small, store, 'smaller')} plants: ≥ ${min}× req/s (${issue}), ${store}`,
    value:
      large?.vsBase === undefined || small === undefined
        ? '–'
        : `${times(large.vsBase)} (${how}` +
          (large.sideBySide === undefined ? '' : `; sequential ${times(sequential)}`) +
          `; p50 ${ms(large.latency.p50)} vs ${ms(small.latency.p50)} ms)`,
    met: large?.vsBase === undefined ? undefined : large.vsBase >= min,
    noisy: noisy(large, small),
  };
};

/** The tag page on the larger store within 20 % of the smaller one (≥ 0.8× its req/s). */
const tagPageTarget = (large: RatedRow | undefined, small: RatedRow | undefined, store: string): TargetCheck =>
  largerStoreTarget('tag page (limit 100)', large, small, store, 0.8, 'issue 18');

/** The searched and sorted pages the larger store must serve as the smaller one does, within 1.25× the cost. */
const SEARCH_PAGES = [
  ['list-name', 'page by name (after a cursor mid-store)'],
  ['list-name-desc', 'page by -name (after a cursor mid-store)'],
  ['list-id-desc', 'page by -id (after an id mid-store)'],
  ['list-q', `q page (q=${SEARCH_TEXT}, 1 plant in ${NAME_WORDS.length}, by id)`],
] as const;
/** The counts' median latency on the larger store, one request at a time. */
const COUNTS = [
  ['count', 'X-Total-Count, whole store'],
  ['count-tag', `X-Total-Count, one tag (1 plant in ${TAG_EVERY})`],
] as const;
const COUNT_P50_LIMIT_MS = 50;

/**
 * The searched, sorted and counted pages (search): each page on the larger tagged store within
 * 1.25× the cost of the smaller one's (req/s ≥ 0.8×), each count on the larger store ≤ 50 ms at
 * the median (one connection; the smaller store's median beside it).
 */
const searchTargets = (find: Find): readonly TargetCheck[] =>
  (
    [
      ['sqlite-tag-large', 'sqlite-tag-small', 'sqlite FULL'],
      ['postgres-tag-large', 'postgres-tag-small', 'postgres'],
    ] as const
  ).flatMap(([large, small, store]) => [
    ...SEARCH_PAGES.map(([kind, page]) =>
      largerStoreTarget(page, find(kind, large), find(kind, small), store, 0.8, 'search, ≤ 1.25× the cost'),
    ),
    ...COUNTS.map(([kind, what]): TargetCheck => {
      const row = find(kind, large);
      const base = find(kind, small);
      return {
        target: `${what}, ${sizeOf(row, store, 'larger store')}: p50 ≤ ${COUNT_P50_LIMIT_MS} ms (search), ${store}`,
        value:
          row === undefined
            ? '–'
            : `${ms(row.latency.p50)} ms (p99 ${ms(row.latency.p99)} ms` +
              (base === undefined ? ')' : `; ${sizeOf(base, store, 'smaller store')}: ${ms(base.latency.p50)} ms)`),
        met: row === undefined ? undefined : row.latency.p50 <= COUNT_P50_LIMIT_MS,
        noisy: noisy(row),
      };
    }),
  ]);

export const formatTargets = (checks: readonly TargetCheck[]): string =>
  [
    'targets (issue 6 unless another is named; SQLite synchronous=FULL unless another store is named):',
    ...checks.map(
      (c) =>
        `  ${c.met === undefined ? 'n/a ' : c.met ? 'met ' : 'MISS'}  ${c.target}: ${c.value}` +
        (c.noisy ? `  (noisy: other work took over ${NOISY * 100}% of the server's core; rerun)` : ''),
    ),
  ].join('\n');
