import { describe, expect, it } from 'vitest';
import { formatTable, rate, type Row } from './report.js';
import { checkTargets } from './targets.js';
import type { WebhookDrain } from './webhook-drain.js';

const row = (over: Partial<Row> & Pick<Row, 'scenario' | 'store' | 'rps'>): Row => ({
  storeLabel: over.store,
  connections: 50,
  responses: 1000,
  measuredSeconds: 10,
  latency: { p50: 1.5, p90: 2, p99: 4.25, max: 9, mean: 1.6 },
  errors: 0,
  timeouts: 0,
  unexpected: 0,
  statusCounts: { '201': 1000 },
  rssPeak: 80 * 1024 * 1024,
  rssHighWater: 90 * 1024 * 1024,
  serverCpu: 0.98,
  driverCpu: 0.5,
  otherCpuServerCore: 0.02,
  otherCpuDriverCore: 0.1,
  ...over,
});

describe('rate', () => {
  it('compares arrays of creates with single creates by plants per second, the search index caught up', () => {
    const rated = rate([
      row({ scenario: 'create', store: 'sqlite', rps: 1000, responses: 10_000 }),
      // 80 arrays of 1000 in 8 s, the index caught up 2 s later: 8,000 plants/s.
      row({
        scenario: 'create-batch',
        store: 'sqlite',
        rps: 10,
        responses: 80,
        measuredSeconds: 8,
        indexCatchUpSeconds: 2,
        connections: 4,
      }),
      row({ scenario: 'create-batch', store: 'postgres', rps: 5, responses: 40, measuredSeconds: 8 }),
      row({ scenario: 'create', store: 'postgres', rps: 500, responses: 5000 }),
    ]);
    const batch = rated.find((r) => r.scenario === 'create-batch' && r.store === 'sqlite');
    expect(batch?.vsScenario).toBe(8);
    expect(rated.find((r) => r.scenario === 'create-batch' && r.store === 'postgres')?.vsScenario).toBe(10);
    const table = formatTable(rated);
    expect(table).toContain('8,000 plants/s (search index caught up 2.0 s after); 8.00× create (plants/s)');
    expect(table).toContain('5,000 plants/s; 10.00× create (plants/s)');
    const checks = checkTargets(rated).filter((c) => c.target.includes('issue 56'));
    expect(checks.map((c) => [c.value.split(' (')[0], c.met])).toEqual([
      ['8.00×', true],
      ['1.00×', true],
      ['10.00×', true],
      ['1.00×', true],
    ]);
  });

  it('divides by the ceiling of the same scenario and orders ceiling first', () => {
    const rated = rate([
      row({ scenario: 'get', store: 'sqlite', rps: 5000 }),
      row({ scenario: 'create', store: 'sqlite', rps: 3000 }),
      row({ scenario: 'create', store: 'ceiling', rps: 12000 }),
      row({ scenario: 'get', store: 'ceiling', rps: 10000 }),
    ]);
    expect(rated.map((r) => [r.scenario, r.store, r.ratio])).toEqual([
      ['create', 'ceiling', 1],
      ['create', 'sqlite', 0.25],
      ['get', 'ceiling', 1],
      ['get', 'sqlite', 0.5],
    ]);
  });

  it('gives the preloaded row its ratio to the empty store', () => {
    const rated = rate([
      row({ scenario: 'create', store: 'sqlite', rps: 4000 }),
      row({ scenario: 'create', store: 'sqlite-preloaded', rps: 3800 }),
    ]);
    expect(rated[1]?.vsBase).toBeCloseTo(0.95);
    expect(rated[1]?.ratio).toBeUndefined();
  });
});

describe('formatTable', () => {
  it('prints one Markdown row per result with the ratio, errors and RSS', () => {
    const text = formatTable(
      rate([
        row({ scenario: 'create', store: 'ceiling', rps: 20000 }),
        row({ scenario: 'create', store: 'sqlite', rps: 8000, errors: 3, timeouts: 1, storeLabel: 'sqlite FULL' }),
      ]),
    );
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\| scenario +\| store +\| conns \|/);
    expect(lines[0]).toMatch(/\| +req\/s \| × ceiling \| × peer \| × floor \| p50 ms \|/);
    expect(lines[3]).toMatch(
      /\| create +\| sqlite FULL +\| +50 \| +8,000 \| +0\.40× \| +– \| +– \| +1\.50 \| +4\.25 \| 3 \(1 t\/o\) \| +80 \| +98% \| +50% \| +2%\/10% \|/,
    );
  });
});

describe('the traced rows', () => {
  const exported = { requests: 140, bytes: 1_234_567, spans: 45_210, unreadable: 0 };

  it('compares each with the untraced row of its store, side by side, and says what its sink received', () => {
    const rows = [
      row({ scenario: 'create', store: 'sqlite', rps: 8000, storeLabel: 'sqlite FULL' }),
      row({
        scenario: 'create',
        store: 'sqlite-traced',
        rps: 7000,
        storeLabel: 'sqlite FULL +tracing',
        statusCounts: { '201': 46_000 },
        traceExport: exported,
      }),
      row({ scenario: 'latency', store: 'postgres', rps: 1200, connections: 1 }),
      row({
        scenario: 'latency',
        store: 'postgres-traced-ratio',
        rps: 1140,
        connections: 1,
        storeLabel: 'postgres +tracing 10%',
        statusCounts: { '201': 12_000 },
        traceExport: { requests: 0, bytes: 0, spans: 0, unreadable: 0 },
      }),
    ];
    const rated = rate(rows, [{ scenario: 'create', store: 'sqlite-traced', ratios: [0.9, 0.86, 0.88] }]);
    expect(rated.map((r) => [r.store, r.vsBase, r.sideBySide])).toEqual([
      ['sqlite', undefined, undefined],
      ['sqlite-traced', 0.88, 3],
      ['postgres', undefined, undefined],
      ['postgres-traced-ratio', 0.95, undefined],
    ]);
    const table = formatTable(rated);
    expect(table).toMatch(
      /\| sqlite FULL \+tracing +\|.*\| 0\.88× untraced \(side by side, median of 3\); exported 1\.2 MB in 140 requests, 45,210 spans \(0\.98 per response\) +\|/,
    );
    expect(table).toMatch(
      /\| postgres \+tracing 10% +\|.*\| 0\.95× untraced; exported nothing during the run \(0 requests to the sink\) +\|/,
    );
  });
});

describe('checkTargets', () => {
  it('checks the targets on the SQLite FULL rows and leaves unmeasured ones open', () => {
    const checks = checkTargets(
      rate([
        row({ scenario: 'create', store: 'ceiling', rps: 20000 }),
        row({ scenario: 'create', store: 'sqlite', rps: 8000, latency: { p50: 5, p90: 8, p99: 12, max: 30, mean: 6 } }),
        row({ scenario: 'create', store: 'sqlite-preloaded', rps: 7600, storeLabel: 'sqlite FULL +5M' }),
      ]),
    );
    expect(checks.map((c) => [c.target, c.value, c.met, c.noisy])).toEqual([
      ['create, 50 connections: ≥ 0.33× the ceiling', '0.40×', true, false],
      ['create, 50 connections: p99 ≤ 10 ms', '12.0 ms', false, false],
      ['create, 1 connection: p99 ≤ 2 ms', '–', undefined, false],
      ['server RSS ≤ 150 MB', '80 MB', true, false],
      ['zero errors', '0', true, false],
      ['create with +5M plants: ≥ 0.9× the empty store', '0.95×', true, false],
      ['create and get with metrics on: ≥ 0.95× off (issue 12)', '– / –', undefined, false],
      ['create with an Idempotency-Key on every request: ≥ 0.85× without (issue 10)', '–', undefined, false],
      ['create with one webhook endpoint: ≥ 0.85× without (issue 11)', '–', undefined, false],
      ['webhook outbox empty ≤ 5 s after the create load stops (issue 11)', '–', undefined, false],
      ['patch, 50 connections: ≥ 0.9× create on the same store (issue 18), sqlite FULL', '–', undefined, false],
      ['patch, 50 connections: ≥ 0.9× create on the same store (issue 18), postgres', '–', undefined, false],
      [
        'create batch 1000, 4 connections: ≥ 3× the plants/s of create at 50 (issue 56), sqlite FULL',
        '–',
        undefined,
        false,
      ],
      ["create batch 1000: RSS ≤ 1.5× create's (issue 56), sqlite FULL", '–', undefined, false],
      [
        'create batch 1000, 4 connections: ≥ 5× the plants/s of create at 50 (issue 56), postgres',
        '–',
        undefined,
        false,
      ],
      ["create batch 1000: RSS ≤ 1.5× create's (issue 56), postgres", '–', undefined, false],
      ['tag page (limit 100), larger vs smaller plants: ≥ 0.8× req/s (issue 18), sqlite FULL', '–', undefined, false],
      ['tag page (limit 100), larger vs smaller plants: ≥ 0.8× req/s (issue 18), postgres', '–', undefined, false],
      ...['sqlite FULL', 'postgres'].flatMap((store) => [
        [
          `page by name (after a cursor mid-store), larger vs smaller plants: ≥ 0.8× req/s (search, ≤ 1.25× the cost), ${store}`,
          '–',
          undefined,
          false,
        ],
        [
          `page by -name (after a cursor mid-store), larger vs smaller plants: ≥ 0.8× req/s (search, ≤ 1.25× the cost), ${store}`,
          '–',
          undefined,
          false,
        ],
        [
          `page by -id (after an id mid-store), larger vs smaller plants: ≥ 0.8× req/s (search, ≤ 1.25× the cost), ${store}`,
          '–',
          undefined,
          false,
        ],
        [
          `q page (q=fern, 1 plant in 16, by id), larger vs smaller plants: ≥ 0.8× req/s (search, ≤ 1.25× the cost), ${store}`,
          '–',
          undefined,
          false,
        ],
        [`X-Total-Count, whole store, larger store: p50 ≤ 50 ms (search), ${store}`, '–', undefined, false],
        [`X-Total-Count, one tag (1 plant in 10), larger store: p50 ≤ 50 ms (search), ${store}`, '–', undefined, false],
      ]),
      ['create, 1 connection, sqlite NORMAL: ≥ 1.0× koa minimal NORMAL (issue 19)', '–', undefined, false],
      ["create, 1 connection: p50 ≤ the disk's fsync p50 + 0.1 ms (issue 19)", '–', undefined, false],
      ['create, 50 connections: ≥ 1.0× fastify sqlite NORMAL (issue 19)', '–', undefined, false],
      ['create+delete, 50 connections: ≥ 1.0× fastify sqlite NORMAL (issue 19)', '–', undefined, false],
      ['create, 1 connection, postgres: ≥ 0.9× fastify postgres (issue 19)', '–', undefined, false],
      ['create, 50 connections, postgres: ≥ 1.2× fastify postgres (issue 19)', '–', undefined, false],
      ['list 100, 50 connections: ≥ 0.5× the ceiling (issue 19)', '–', undefined, false],
    ]);
  });

  it('compares the metrics row with the plain SQLite row of the same scenario', () => {
    const checks = checkTargets(
      rate([
        row({ scenario: 'create', store: 'sqlite', rps: 8000 }),
        row({ scenario: 'create', store: 'sqlite-metrics', rps: 7800 }),
        row({ scenario: 'get', store: 'sqlite', rps: 10000 }),
        row({ scenario: 'get', store: 'sqlite-metrics', rps: 9400 }),
      ]),
    );
    expect(checks.find((c) => c.target.startsWith('create and get with metrics on'))).toMatchObject({
      value: '0.97× / 0.94×',
      met: false,
    });
  });

  it('compares the keyed create row with the plain SQLite create', () => {
    const checks = checkTargets(
      rate(
        [
          row({ scenario: 'create', store: 'sqlite', rps: 8000 }),
          row({ scenario: 'create', store: 'sqlite-keyed', rps: 7000 }),
        ],
        [{ scenario: 'create', store: 'sqlite-keyed', ratios: [0.86, 0.88, 0.84] }],
      ),
    );
    expect(checks.find((c) => c.target.startsWith('create with an Idempotency-Key'))).toMatchObject({
      value: '0.86×',
      met: true,
    });
  });

  const drain = (over: Partial<WebhookDrain> = {}): WebhookDrain => ({
    backlogAtStop: 12_345,
    backlogAtStart: 0,
    seconds: 2.34,
    limitSeconds: 60,
    backlogAtEnd: 0,
    delivered: 120_000,
    retried: 0,
    failed: 0,
    ...over,
  });

  it('compares the webhook create row with the plain SQLite create, p99s beside, and checks its drain', () => {
    const rows = [
      row({ scenario: 'create', store: 'sqlite', rps: 8000, latency: { p50: 4, p90: 6, p99: 8.7, max: 30, mean: 4 } }),
      row({
        scenario: 'create',
        store: 'sqlite-webhook',
        rps: 7000,
        latency: { p50: 4, p90: 6, p99: 9.12, max: 30, mean: 4 },
        webhookDrain: drain(),
      }),
    ];
    const checks = checkTargets(
      rate(rows, [{ scenario: 'create', store: 'sqlite-webhook', ratios: [0.9, 0.84, 0.88] }]),
    );
    expect(checks.filter((c) => c.target.includes('issue 11')).map((c) => [c.target, c.value, c.met, c.noisy])).toEqual(
      [
        [
          'create with one webhook endpoint: ≥ 0.85× without (issue 11)',
          '0.88× (p99 9.12 ms with, 8.70 ms without)',
          true,
          false,
        ],
        [
          'webhook outbox empty ≤ 5 s after the create load stops (issue 11)',
          '2.3 s (backlog at stop 12,345)',
          true,
          false,
        ],
      ],
    );
    expect(formatTable(rate(rows))).toMatch(
      /0\.88× no webhook; outbox 12,345 at stop, drained in 2\.3 s \(5,276\/s\) \|/,
    );
  });

  it('misses the drain target when the outbox took too long or never emptied, and shows failed attempts', () => {
    const check = (d: WebhookDrain) =>
      checkTargets(rate([row({ scenario: 'create', store: 'sqlite-webhook', rps: 7000, webhookDrain: d })])).find((c) =>
        c.target.startsWith('webhook outbox'),
      );
    expect(check(drain({ seconds: 5.01 }))).toMatchObject({ value: '5.0 s (backlog at stop 12,345)', met: false });
    expect(check(drain({ seconds: undefined, backlogAtEnd: 4000, retried: 7 }))).toMatchObject({
      value: '> 60 s, 4,000 left (backlog at stop 12,345; 7 attempts retried, 0 failed)',
      met: false,
    });
  });

  it('marks a target resting on a noisy row', () => {
    const checks = checkTargets(
      rate([
        row({ scenario: 'create', store: 'ceiling', rps: 6000, otherCpuServerCore: 0.56 }),
        row({ scenario: 'create', store: 'sqlite', rps: 6000 }),
      ]),
    );
    expect(checks[0]).toMatchObject({ met: true, noisy: true });
    expect(checks[1]).toMatchObject({ noisy: false });
  });
});

describe('rate over several rounds', () => {
  it('keeps the run of median req/s and the median of the ratios taken within each round', () => {
    const rated = rate([
      row({ scenario: 'get', store: 'sqlite', rps: 10_000, round: 0 }),
      row({ scenario: 'get', store: 'sqlite-metrics', rps: 9_800, round: 0 }),
      // a noisy stretch slows both rows of round 1: the paired ratio stays near the others
      row({ scenario: 'get', store: 'sqlite', rps: 6_000, round: 1 }),
      row({ scenario: 'get', store: 'sqlite-metrics', rps: 5_700, round: 1 }),
      row({ scenario: 'get', store: 'sqlite', rps: 11_000, round: 2 }),
      row({ scenario: 'get', store: 'sqlite-metrics', rps: 11_000, round: 2 }),
    ]);
    const metrics = rated.find((r) => r.store === 'sqlite-metrics');
    expect(metrics?.rps).toBe(9_800);
    expect(metrics?.roundsRps).toEqual([9_800, 5_700, 11_000]);
    expect(metrics?.vsBase).toBeCloseTo(0.98);
    expect(formatTable(rated)).toMatch(/0\.98× metrics off; median of 3/);
  });
});

describe('rate with side-by-side runs', () => {
  it('takes a variant’s ratio to its base from the runs made at the same time', () => {
    const rated = rate(
      [
        row({ scenario: 'get', store: 'sqlite', rps: 10_000 }),
        row({ scenario: 'get', store: 'sqlite-metrics', rps: 8_000 }),
      ],
      [{ scenario: 'get', store: 'sqlite-metrics', ratios: [0.97, 1.01, 0.99] }],
    );
    const metrics = rated.find((r) => r.store === 'sqlite-metrics');
    expect(metrics?.vsBase).toBeCloseTo(0.99);
    expect(formatTable(rated)).toMatch(/0\.99× metrics off \(side by side, median of 3\)/);
  });
});

describe('patch against create', () => {
  it('divides each store’s patch by its create of the same round and shows it in the note', () => {
    const rated = rate([
      row({ scenario: 'create', store: 'sqlite', rps: 10_000, storeLabel: 'sqlite FULL' }),
      row({
        scenario: 'patch',
        store: 'sqlite',
        rps: 9_300,
        storeLabel: 'sqlite FULL',
        statusCounts: { '200': 93_000 },
      }),
      row({ scenario: 'create', store: 'postgres', rps: 8_000 }),
      row({ scenario: 'patch', store: 'postgres', rps: 6_000, otherCpuServerCore: 0.4 }),
      row({ scenario: 'create', store: 'ceiling', rps: 20_000 }),
      row({ scenario: 'patch', store: 'ceiling', rps: 18_600 }),
    ]);
    const patch = rated.find((r) => r.scenario === 'patch' && r.store === 'sqlite');
    expect(patch).toMatchObject({ ratio: 0.5, vsBase: undefined });
    expect(patch?.vsScenario).toBeCloseTo(0.93);
    expect(rated.find((r) => r.scenario === 'create' && r.store === 'sqlite')?.vsScenario).toBeUndefined();
    expect(formatTable(rated)).toMatch(/\| patch +\| sqlite FULL +\| +50 \| +9,300 \| +0\.50× \|.*\| 0\.93× create \|/);
    const checks = checkTargets(rated).filter((c) => c.target.startsWith('patch'));
    expect(checks.map((c) => [c.target, c.value, c.met, c.noisy])).toEqual([
      [
        'patch, 50 connections: ≥ 0.9× create on the same store (issue 18), sqlite FULL',
        '0.93× (9,300 vs 10,000 req/s)',
        true,
        false,
      ],
      [
        'patch, 50 connections: ≥ 0.9× create on the same store (issue 18), postgres',
        '0.75× (6,000 vs 8,000 req/s)',
        false,
        true,
      ],
    ]);
  });

  it('pairs patch and create round by round and takes the median ratio', () => {
    const rated = rate([
      row({ scenario: 'create', store: 'sqlite', rps: 10_000, round: 0 }),
      row({ scenario: 'patch', store: 'sqlite', rps: 9_000, round: 0 }),
      row({ scenario: 'create', store: 'sqlite', rps: 5_000, round: 1 }),
      row({ scenario: 'patch', store: 'sqlite', rps: 4_750, round: 1 }),
      row({ scenario: 'create', store: 'sqlite', rps: 8_000, round: 2 }),
      row({ scenario: 'patch', store: 'sqlite', rps: 7_600, round: 2 }),
    ]);
    expect(rated.find((r) => r.scenario === 'patch')?.vsScenario).toBeCloseTo(0.95);
  });
});

describe('tag page on the larger store against the smaller', () => {
  const tagRows = [
    row({
      scenario: 'list-tag',
      store: 'sqlite-tag-small',
      rps: 4_000,
      storeLabel: 'sqlite FULL 10k',
      latency: { p50: 11.5, p90: 14, p99: 20, max: 40, mean: 12 },
    }),
    row({
      scenario: 'list-tag',
      store: 'sqlite-tag-large',
      rps: 3_600,
      storeLabel: 'sqlite FULL 1M',
      latency: { p50: 12.25, p90: 15, p99: 22, max: 45, mean: 13 },
    }),
    row({ scenario: 'list-tag', store: 'postgres-tag-small', rps: 2_000, storeLabel: 'postgres 10k' }),
    row({ scenario: 'list-tag', store: 'postgres-tag-large', rps: 1_500, storeLabel: 'postgres 1M' }),
  ];

  it('reads the side-by-side ratio when there is one, the sequential one beside it, and both p50s', () => {
    const rated = rate(tagRows, [{ scenario: 'list-tag', store: 'sqlite-tag-large', ratios: [0.97, 1.01, 0.95] }]);
    const checks = checkTargets(rated).filter((c) => c.target.startsWith('tag page'));
    expect(checks.map((c) => [c.target, c.value, c.met])).toEqual([
      [
        'tag page (limit 100), 1M vs 10k plants: ≥ 0.8× req/s (issue 18), sqlite FULL',
        '0.97× (side by side, median of 3; sequential 0.90×; p50 12.3 vs 11.5 ms)',
        true,
      ],
      [
        'tag page (limit 100), 1M vs 10k plants: ≥ 0.8× req/s (issue 18), postgres',
        '0.75× (sequential; p50 1.50 vs 1.50 ms)',
        false,
      ],
    ]);
    expect(formatTable(rated)).toMatch(
      /\| list tag 100 +\| sqlite FULL 1M +\|.*\| 0\.97× smaller store \(side by side, median of 3\) \|/,
    );
    expect(rated.find((r) => r.store === 'sqlite-tag-large')?.ratio).toBeUndefined();
  });
});

describe('our rows against the peers and the floor', () => {
  const one = { connections: 1 };
  const runs = [
    row({ scenario: 'create', store: 'koa-minimal', rps: 10_000, storeLabel: 'koa minimal NORMAL' }),
    row({ scenario: 'create', store: 'fastify-sqlite', rps: 8_000, storeLabel: 'fastify sqlite NORMAL' }),
    row({ scenario: 'create', store: 'sqlite', rps: 9_000, storeLabel: 'sqlite FULL' }),
    row({ scenario: 'create', store: 'sqlite-normal', rps: 11_000, storeLabel: 'sqlite NORMAL' }),
    row({ scenario: 'create', store: 'fastify-postgres', rps: 5_000, storeLabel: 'fastify postgres' }),
    row({ scenario: 'create', store: 'postgres', rps: 5_500 }),
    row({ scenario: 'create-delete', store: 'fastify-sqlite', rps: 10_000 }),
    row({ scenario: 'create-delete', store: 'sqlite', rps: 10_500, otherCpuServerCore: 0.3 }),
    row({ scenario: 'latency', store: 'koa-minimal', rps: 4_000, ...one }),
    row({ scenario: 'latency', store: 'sqlite-normal', rps: 3_800, ...one }),
    row({
      scenario: 'latency',
      store: 'sqlite',
      rps: 1_500,
      latency: { p50: 0.3, p90: 0.4, p99: 2, max: 9, mean: 0.35 },
      ...one,
    }),
    row({ scenario: 'latency', store: 'fastify-postgres', rps: 1_000, ...one }),
    row({ scenario: 'latency', store: 'postgres', rps: 950, ...one }),
    row({ scenario: 'list', store: 'ceiling', rps: 14_000 }),
    row({ scenario: 'list', store: 'sqlite', rps: 7_700 }),
    row({ scenario: 'get-1', store: 'koa-minimal', rps: 6_000, ...one }),
    row({ scenario: 'get-1', store: 'fastify-sqlite', rps: 5_000, ...one }),
    row({ scenario: 'get-1', store: 'sqlite-normal', rps: 4_500, ...one }),
  ];
  const rated = rate(runs);
  const find = (scenario: Row['scenario'], store: Row['store']) =>
    rated.find((r) => r.scenario === scenario && r.store === store);

  it('divides each row of ours by its store’s peer and by the floor, same scenario', () => {
    expect(find('create', 'sqlite')).toMatchObject({ vsPeer: 9_000 / 8_000, vsFloor: 0.9 });
    expect(find('create', 'sqlite-normal')).toMatchObject({ vsPeer: 11_000 / 8_000, vsFloor: 1.1 });
    expect(find('create', 'postgres')).toMatchObject({ vsPeer: 1.1, vsFloor: 0.55 });
    expect(find('get-1', 'sqlite-normal')).toMatchObject({ vsPeer: 0.9, vsFloor: 0.75 });
    // A scenario the peer did not run leaves the ratio open.
    expect(find('latency', 'sqlite')).toMatchObject({ vsPeer: undefined, vsFloor: 1_500 / 4_000 });
  });

  it('gives the ceiling and the peers themselves no ratio to a peer or the floor', () => {
    for (const store of ['ceiling', 'koa-minimal', 'fastify-sqlite', 'fastify-postgres'] as const) {
      for (const r of rated.filter((x) => x.store === store))
        expect([r.store, r.vsPeer, r.vsFloor]).toEqual([store, undefined, undefined]);
    }
  });

  it('takes the median of the ratios paired within each round', () => {
    const rounds = rate([
      row({ scenario: 'create', store: 'fastify-sqlite', rps: 10_000, round: 0 }),
      row({ scenario: 'create', store: 'sqlite', rps: 9_000, round: 0 }),
      row({ scenario: 'create', store: 'fastify-sqlite', rps: 5_000, round: 1 }),
      row({ scenario: 'create', store: 'sqlite', rps: 6_000, round: 1 }),
      row({ scenario: 'create', store: 'fastify-sqlite', rps: 8_000, round: 2 }),
      row({ scenario: 'create', store: 'sqlite', rps: 8_000, round: 2 }),
    ]);
    expect(rounds.find((r) => r.store === 'sqlite')?.vsPeer).toBeCloseTo(1.0);
  });

  it('prints × peer and × floor, 1.00× on the reference rows', () => {
    const lines = formatTable(rated).split('\n');
    const line = (scenario: string, store: string) =>
      lines.find((l) => l.startsWith(`| ${scenario} `) && l.includes(`| ${store} `)) ?? '';
    expect(line('create', 'sqlite FULL')).toMatch(/\| +– \| +1\.13× \| +0\.90× \|/);
    expect(line('create', 'koa minimal NORMAL')).toMatch(/\| +– \| +– \| +1\.00× \|/);
    expect(line('create', 'fastify sqlite NORMAL')).toMatch(/\| +– \| +1\.00× \| +– \|/);
    expect(line('create', 'fastify postgres')).toMatch(/\| +– \| +1\.00× \| +– \|/);
  });

  it('checks the targets against the peers, the floor and the disk: met, MISS and n/a with their values', () => {
    const disk = { syncs: 9000, p50Ms: 0.12, p99Ms: 0.3, maxMs: 5 };
    const checks = checkTargets(rated, disk).filter((c) => c.target.includes('issue 19'));
    expect(checks.map((c) => [c.target, c.value, c.met, c.noisy])).toEqual([
      [
        'create, 1 connection, sqlite NORMAL: ≥ 1.0× koa minimal NORMAL (issue 19)',
        '0.95× (3,800 vs 4,000 req/s)',
        false,
        false,
      ],
      [
        "create, 1 connection: p50 ≤ the disk's fsync p50 + 0.1 ms (issue 19)",
        '0.30 ms (fsync p50 0.12 ms before the runs: ≤ 0.22 ms)',
        false,
        false,
      ],
      ['create, 50 connections: ≥ 1.0× fastify sqlite NORMAL (issue 19)', '1.13× (9,000 vs 8,000 req/s)', true, false],
      [
        'create+delete, 50 connections: ≥ 1.0× fastify sqlite NORMAL (issue 19)',
        '1.05× (10,500 vs 10,000 req/s)',
        true,
        true,
      ],
      ['create, 1 connection, postgres: ≥ 0.9× fastify postgres (issue 19)', '0.95× (950 vs 1,000 req/s)', true, false],
      [
        'create, 50 connections, postgres: ≥ 1.2× fastify postgres (issue 19)',
        '1.10× (5,500 vs 5,000 req/s)',
        false,
        false,
      ],
      ['list 100, 50 connections: ≥ 0.5× the ceiling (issue 19)', '0.55× (7,700 vs 14,000 req/s)', true, false],
    ]);
    const fast = checkTargets(rated, { ...disk, p50Ms: 0.25 }).find((c) => c.target.includes('fsync'));
    expect(fast).toMatchObject({ value: '0.30 ms (fsync p50 0.25 ms before the runs: ≤ 0.35 ms)', met: true });
    expect(checkTargets(rated).find((c) => c.target.includes('fsync'))).toMatchObject({ value: '–', met: undefined });
  });
});

describe('search pages and counts on the larger store against the smaller', () => {
  const latency = (p50: number) => ({ p50, p90: p50, p99: 2 * p50, max: 3 * p50, mean: p50 });
  const rows = [
    row({ scenario: 'list-q', store: 'sqlite-tag-small', rps: 3_000, storeLabel: 'sqlite FULL 10k' }),
    row({ scenario: 'list-q', store: 'sqlite-tag-large', rps: 1_000, storeLabel: 'sqlite FULL 1M' }),
    row({ scenario: 'list-name', store: 'postgres-tag-small', rps: 2_000, storeLabel: 'postgres 10k' }),
    row({ scenario: 'list-name', store: 'postgres-tag-large', rps: 1_900, storeLabel: 'postgres 1M' }),
    row({ scenario: 'count', store: 'sqlite-tag-small', rps: 900, storeLabel: 'sqlite FULL 10k', latency: latency(1) }),
    row({ scenario: 'count', store: 'sqlite-tag-large', rps: 30, storeLabel: 'sqlite FULL 1M', latency: latency(32) }),
    row({
      scenario: 'count-tag',
      store: 'postgres-tag-large',
      rps: 10,
      storeLabel: 'postgres 1M',
      latency: latency(95),
    }),
  ];

  it('holds each page within 1.25× the cost on the smaller store and each count to 50 ms at the median', () => {
    const rated = rate(rows, [{ scenario: 'list-q', store: 'sqlite-tag-large', ratios: [0.31, 0.35, 0.33] }]);
    const checks = checkTargets(rated).filter((c) => c.target.includes('(search'));
    const measured = checks.filter((c) => c.met !== undefined).map((c) => [c.target, c.value, c.met]);
    expect(measured).toEqual([
      [
        'q page (q=fern, 1 plant in 16, by id), 1M vs 10k plants: ≥ 0.8× req/s (search, ≤ 1.25× the cost), sqlite FULL',
        '0.33× (side by side, median of 3; sequential 0.33×; p50 1.50 vs 1.50 ms)',
        false,
      ],
      [
        'X-Total-Count, whole store, 1M: p50 ≤ 50 ms (search), sqlite FULL',
        '32.0 ms (p99 64.0 ms; 10k: 1.00 ms)',
        true,
      ],
      [
        'page by name (after a cursor mid-store), 1M vs 10k plants: ≥ 0.8× req/s (search, ≤ 1.25× the cost), postgres',
        '0.95× (sequential; p50 1.50 vs 1.50 ms)',
        true,
      ],
      ['X-Total-Count, one tag (1 plant in 10), 1M: p50 ≤ 50 ms (search), postgres', '95.0 ms (p99 190 ms)', false],
    ]);
  });
});
