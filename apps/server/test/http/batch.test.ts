import { Writable } from 'node:stream';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createMetrics, type Metrics } from '../../src/ops/metrics.js';
import { startMetricsServer } from '../../src/ops/metrics-server.js';
import { createMemoryBackend } from '../../src/rate-limit/local-backends.js';
import { createRateLimiter, rateLimitPolicy } from '../../src/rate-limit/rate-limiter.js';
import { parseScrape, runMetricsTests, sampleSum } from '../support/prometheus.js';
import {
  bearer,
  createPlant,
  expectError,
  jsonHeaders,
  request,
  startTestServer,
  testStoreKind,
  type Reply,
  type TestServer,
} from './support.js';

/** POST /plants/batch (docs/reference/api.md), through a listening server, on the store PLANT_STORE_TEST_STORE names. */

interface Plant {
  readonly id: number;
  readonly name: string;
  readonly tag?: string;
}

let server: TestServer;
let metrics: Metrics;
let metricsUrl = '';
let closeMetrics: () => Promise<void> = async () => undefined;
beforeAll(async () => {
  metrics = createMetrics({ store: testStoreKind, processMetrics: false });
  server = await startTestServer({ metrics });
  if (runMetricsTests) {
    const started = await startMetricsServer(metrics.registry, '127.0.0.1', 0);
    metricsUrl = started.url;
    closeMetrics = () => started.close();
  }
});
afterAll(async () => {
  await closeMetrics();
  await server.close();
});

let counter = 0;
const unique = (what: string): string => `${what} ${testStoreKind} ${process.pid} ${(counter += 1)}`;
/** Ids no other test of this file gives. */
let nextBase = 1_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
const freshIds = (): number => (nextBase += 10_000);

const postBatch = (
  body: unknown,
  headers: Record<string, string> = {},
  path = '/plants/batch',
  token = server.tokens.all,
): Promise<Reply> =>
  request(server, path, {
    method: 'POST',
    headers: { ...jsonHeaders(token), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const get = (id: number): Promise<Reply> => request(server, `/plants/${id}`, { headers: bearer(server.tokens.all) });

/** How many plants have `name` (the whole store, read page by page). */
const countNamed = async (...names: string[]): Promise<number> => {
  let n = 0;
  for (let after = 0; ;) {
    const page = (await request(server, `/plants?limit=1000&after=${after}`, { headers: bearer(server.tokens.all) }))
      .json as Plant[];
    n += page.filter((p) => names.includes(p.name)).length;
    if (page.length < 1000) return n;
    after = page[page.length - 1]?.id ?? after;
  }
};

const changesAbove = async (since: number): Promise<{ seq: number; type: string; data: Plant }[]> =>
  (await request(server, `/plants/changes?since=${since}&limit=1000`, { headers: bearer(server.tokens.all) })).json as {
    seq: number;
    type: string;
    data: Plant;
  }[];

describe('POST /plants/batch', () => {
  it('creates every plant in one commit and answers them with their ids in request order', async () => {
    const base = freshIds();
    const names = [unique('a'), unique('b'), unique('c')];
    const before = Number(
      (await request(server, '/plants?limit=1', { headers: bearer(server.tokens.all) })).headers['x-change-seq'],
    );
    const reply = await postBatch([{ name: names[0], tag: 'x' }, { id: base + 7, name: names[1] }, { name: names[2] }]);
    expect(reply.status).toBe(201);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reply.headers.location).toBeUndefined();
    expect(reply.headers.etag).toBeUndefined();
    const plants = reply.json as Plant[];
    expect(plants.map(({ id: _id, ...rest }) => rest)).toEqual([
      { name: names[0], tag: 'x' },
      { name: names[1] },
      { name: names[2] },
    ]);
    expect(plants[1]?.id).toBe(base + 7);
    // Members in the plant's order, as GET writes them.
    expect(reply.text).toMatch(/^\[\{"id":\d+,"name":"[^"]+","tag":"x"\},\{"id":/);
    for (const plant of plants) expect((await get(plant.id)).json).toEqual(plant);
    const seq = Number(reply.headers['x-change-seq']);
    expect(seq).toBeGreaterThan(before);
    const mine = (await changesAbove(before)).filter((c) => plants.some((p) => p.id === c.data.id));
    expect(mine.map((c) => c.type)).toEqual(['plant.created', 'plant.created', 'plant.created']);
    expect(Math.max(...mine.map((c) => c.seq))).toBe(seq);
  });

  it('never assigns an id the same array gives', async () => {
    const probe = (await postBatch([{ name: unique('probe') }])).json as Plant[];
    const next = (probe[0]?.id ?? 0) + 1;
    const reply = await postBatch([
      { name: unique('assigned') },
      { id: next, name: unique('given') },
      { name: unique('assigned') },
    ]);
    expect(reply.status).toBe(201);
    const ids = (reply.json as Plant[]).map((p) => p.id);
    expect(ids[1]).toBe(next);
    expect(new Set(ids).size).toBe(3);
  });

  it('takes a thousand of the longest plants, escaped, within the default limit', async () => {
    const escaped = (n: number) => '\\ud83c\\udf35'.repeat(n);
    const body = `[${Array.from({ length: 1000 }, () => `{"name":"${escaped(200)}","tag":"${escaped(100)}"}`).join(',')}]`;
    expect(Buffer.byteLength(body)).toBeGreaterThan(3_500_000);
    const reply = await postBatch(body);
    expect(reply.status).toBe(201);
    const plants = reply.json as Plant[];
    expect(plants).toHaveLength(1000);
    expect(plants[999]?.name).toBe('🌵'.repeat(200));
  });

  it.each([
    [{ name: 'x' }, 'expected a JSON array of 1 to 1000 plants, got an object'],
    [[], 'expected a JSON array of 1 to 1000 plants, got none'],
    ['"x"', 'request body: expected a JSON array'],
    [[{ name: 'a' }, 7], '[1]: expected a JSON object, got 7'],
    [
      [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: '', tag: 5 }, { name: 9 }],
      '[3].name: expected 1–200 characters, got 0; [3].tag: expected a string, got 5',
    ],
    [[{ name: 'a', colour: 'red' }], '[0].colour: unknown member (allowed: name, tag, id)'],
  ])('refuses %j with a 400 naming the first invalid element, and creates nothing', async (body, message) => {
    const reply = await postBatch(body);
    expectError(reply, 400, message);
    expect(reply.json).toEqual({ error: 400, message });
  });

  it('refuses more than 1000 plants, and an empty body', async () => {
    expectError(
      await postBatch(Array.from({ length: 1001 }, () => ({ name: 'p' }))),
      400,
      'expected at most 1000 plants, got 1001',
    );
    expectError(await postBatch(''), 400, 'request body is empty; expected a JSON array');
  });

  it('reads an id as written: a fraction JSON.parse rounds is refused, naming its element', async () => {
    const name = unique('fraction');
    const reply = await postBatch(`[{"name":"${name}"},{"id":5.0000000000000001,"name":"${name}"}]`);
    expectError(reply, 400, '[1].id: expected an integer from 1 to 9007199254740991, got 5.0000000000000001');
    expect(await countNamed(name)).toBe(0);
    const integral = await postBatch(`[{"id":${freshIds()}.0,"name":"${name}"}]`);
    expect(integral.status).toBe(201);
  });

  it('refuses an id given twice with a 409 naming it, before the store', async () => {
    const base = freshIds();
    const name = unique('twice');
    const reply = await postBatch([{ id: base + 1, name }, { name }, { id: base + 2, name }, { id: base + 1, name }]);
    expectError(reply, 409, `id ${base + 1} is given twice in the array ([0] and [3]); nothing was created`);
    expect(await countNamed(name)).toBe(0);
  });

  it('refuses ids other plants have with a 409 naming them, and creates none of the array', async () => {
    const base = freshIds();
    for (const n of [2, 1]) expect((await createPlant(server, { id: base + n, name: `holder ${n}` })).status).toBe(201);
    const name = unique('late');
    const reply = await postBatch([{ id: base + 3, name }, { id: base + 2, name }, { name }, { id: base + 1, name }]);
    expectError(reply, 409, `plants with ids ${base + 2}, ${base + 1} already exist; nothing was created`);
    expect(await countNamed(name)).toBe(0);
    expect((await get(base + 3)).status).toBe(404);
  });

  it('answers 413 beyond BULK_BODY_LIMIT_BYTES, and keeps POST /plants at its own limit', async () => {
    const small = await startTestServer({ bulkBodyLimitBytes: 64 * 1024 });
    try {
      const body = JSON.stringify(
        Array.from({ length: 1000 }, (_, i) => ({ name: `plant number ${i} ${'x'.repeat(60)}` })),
      );
      expect(Buffer.byteLength(body)).toBeGreaterThan(64 * 1024);
      const reply = await request(small, '/plants/batch', {
        method: 'POST',
        headers: jsonHeaders(small.tokens.all),
        body,
      });
      expectError(reply, 413, 'request body larger than 65536 bytes');
      const single = await request(small, '/plants', {
        method: 'POST',
        headers: jsonHeaders(small.tokens.all),
        body: JSON.stringify({ name: 'x'.repeat(200), tag: 'y'.repeat(100) }).padEnd(17_000, ' '),
      });
      expectError(single, 413, 'request body larger than 16384 bytes');
    } finally {
      await small.close();
    }
  });

  it('answers 415 for another media type or a compressed body, 401 and 403 before anything', async () => {
    expectError(await postBatch([{ name: 'x' }], { 'content-type': 'text/plain' }), 415);
    expectError(await postBatch([{ name: 'x' }], { 'content-encoding': 'gzip' }), 415);
    expectError(await request(server, '/plants/batch', { method: 'POST', body: 'nonsense' }), 401);
    expectError(await postBatch('nonsense', {}, '/plants/batch', server.tokens.read), 403);
  });

  it('answers every other method 405 with Allow: POST, OPTIONS, before authentication, and OPTIONS 204', async () => {
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']) {
      const reply = await request(server, '/plants/batch', { method });
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow).toBe('POST, OPTIONS');
      if (method !== 'HEAD')
        expect(reply.json).toEqual({
          error: 405,
          message: `method ${method} is not allowed on /plants/batch; allowed: POST, OPTIONS`,
        });
    }
    const options = await request(server, '/plants/batch', { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('POST, OPTIONS');
  });

  it('writes one plant.created event per plant with the commit, and none for a refused array', async () => {
    const endpoint = `we_batch${testStoreKind}${process.pid}`;
    const added = await server.store.webhooks.addEndpoint({
      id: endpoint,
      url: 'https://receiver.example/hook',
      events: ['plant.created'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    })();
    expect(E.isRight(added)).toBe(true);
    try {
      const base = freshIds();
      const refused = await postBatch([
        { id: base + 1, name: 'first' },
        { id: base + 1, name: 'again' },
      ]);
      expect(refused.status).toBe(409);
      expect((await postBatch([{ id: base + 1, name: 'holder' }])).status).toBe(201);
      expect(
        (
          await postBatch([
            { id: base + 2, name: 'x' },
            { id: base + 1, name: 'y' },
          ])
        ).status,
      ).toBe(409);
      const reply = await postBatch([
        { id: base + 3, name: 'e1' },
        { id: base + 4, name: 'e2', tag: 't' },
      ]);
      expect(reply.status).toBe(201);
      const claimed = await server.store.webhooks.claimDue('batch-test', 1000, 60_000)();
      if (E.isLeft(claimed)) throw new Error('claim failed');
      const events = claimed.right
        .filter((d) => d.endpointId === endpoint)
        .map((d) => (JSON.parse(d.body) as { type: string; data: Plant }).data);
      expect(events.sort((a, b) => a.id - b.id)).toEqual([
        { id: base + 1, name: 'holder' },
        { id: base + 3, name: 'e1' },
        { id: base + 4, name: 'e2', tag: 't' },
      ]);
    } finally {
      await server.store.webhooks.removeEndpoint(endpoint)();
    }
  });
});

describe('POST /plants/batch with Idempotency-Key', () => {
  let keys = 0;
  const newKey = (): string => `b-${testStoreKind}-${process.pid}-${(keys += 1)}-${Date.now()}`;

  it('replays the saved 201 with its body and X-Change-Seq, and creates nothing more', async () => {
    const key = newKey();
    const name = unique('keyed');
    const body = [{ name }, { name, tag: 't' }];
    const first = await postBatch(body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect((await createPlant(server, { name: unique('between') })).status).toBe(201);
    const again = await postBatch(JSON.stringify(body, null, 2), { 'idempotency-key': `"${key}"` });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers['x-change-seq']).toBe(first.headers['x-change-seq']);
    expect(await countNamed(name)).toBe(2);
  });

  it('answers 422 for another array (an element or the order), and for the key on the other route', async () => {
    const key = newKey();
    const [a, b] = [unique('one'), unique('two')];
    expect((await postBatch([{ name: a }, { name: b }], { 'idempotency-key': key })).status).toBe(201);
    expectError(
      await postBatch([{ name: b }, { name: a }], { 'idempotency-key': key }),
      422,
      `Idempotency-Key "${key}"`,
    );
    expectError(await postBatch([{ name: a }], { 'idempotency-key': key }), 422);
    expectError(await postBatch({ name: a }, { 'idempotency-key': key }, '/plants'), 422);
    const single = newKey();
    expect((await postBatch({ name: unique('single') }, { 'idempotency-key': single }, '/plants')).status).toBe(201);
    expectError(await postBatch([{ name: unique('single') }], { 'idempotency-key': single }), 422);
    expect(await countNamed(a, b)).toBe(2);
  });

  it('saves and replays a 409 for taken ids, but saves nothing for an id given twice', async () => {
    const base = freshIds();
    expect((await createPlant(server, { id: base + 1, name: 'holder' })).status).toBe(201);
    const key = newKey();
    const taken = [
      { id: base + 2, name: 'x' },
      { id: base + 1, name: 'y' },
    ];
    expectError(await postBatch(taken, { 'idempotency-key': key }), 409, `a plant with id ${base + 1} already exists`);
    expect(
      (await request(server, `/plants/${base + 1}`, { method: 'DELETE', headers: bearer(server.tokens.all) })).status,
    ).toBe(204);
    const replay = await postBatch(taken, { 'idempotency-key': key });
    expectError(replay, 409, `a plant with id ${base + 1} already exists`);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const twice = newKey();
    expectError(
      await postBatch(
        [
          { id: base + 5, name: 'a' },
          { id: base + 5, name: 'b' },
        ],
        { 'idempotency-key': twice },
      ),
      409,
      'given twice',
    );
    const fixed = await postBatch([{ id: base + 5, name: 'a' }], { 'idempotency-key': twice });
    expect(fixed.status).toBe(201);
  });

  it('checks the key syntax like POST /plants', async () => {
    expectError(await postBatch([{ name: 'x' }], { 'idempotency-key': 'a b' }), 400, /Idempotency-Key/);
  });
});

describe('POST /plants/batch, rate limited', () => {
  it('counts an array as one request', async () => {
    const quiet = createLogger({
      level: 'silent',
      destination: new Writable({ write: (_c, _e, callback) => callback() }),
    });
    const policy = rateLimitPolicy(1, 2);
    const limited = await startTestServer({
      rateLimiter: createRateLimiter({ policy, backend: createMemoryBackend(policy), logger: quiet }),
    });
    try {
      const body = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ name: `limited ${i}` })));
      const headers = jsonHeaders(limited.tokens.all);
      const first = await request(limited, '/plants/batch', { method: 'POST', headers, body });
      expect(first.status).toBe(201);
      expect(first.headers.ratelimit).toMatch(/^"default";r=1;t=\d+$/);
      expect((await request(limited, '/plants/batch', { method: 'POST', headers, body })).status).toBe(201);
      expect((await request(limited, '/plants/batch', { method: 'POST', headers, body })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe.runIf(runMetricsTests)('POST /plants/batch in the metrics', () => {
  it('counts requests under the route POST /plants/batch and the arrays in a histogram of lengths', async () => {
    const families = parseScrape(await (await fetch(metricsUrl)).text());
    expect(
      sampleSum(families, 'http_requests_total', { method: 'POST', route: '/plants/batch', status: '201' }),
    ).toBeGreaterThan(5);
    expect(sampleSum(families, 'http_requests_total', { method: 'GET', route: '/plants/batch', status: '405' })).toBe(
      1,
    );
    expect(sampleSum(families, 'plant_store_batch_plants_count')).toBeGreaterThan(5);
    expect(sampleSum(families, 'plant_store_batch_plants_bucket', { le: '1000' })).toBe(
      sampleSum(families, 'plant_store_batch_plants_count'),
    );
    expect(sampleSum(families, 'plant_store_batch_plants_sum')).toBeGreaterThanOrEqual(1000);
  });
});
