import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/ops/metrics.js';
import { startMetricsServer } from '../../src/ops/metrics-server.js';
import { family, parseScrape, runMetricsTests, sampleSum, type Family } from '../support/prometheus.js';
import { bearer, createPlant, request, startTestServer, testStoreKind, type TestServer } from './support.js';

/**
 * GET /metrics on its own listener, scraped and read with a real Prometheus text-format parser,
 * after a known mix of requests through a listening app (both stores).
 */

let server: TestServer;
let metricsUrl: string;
let closeMetrics: () => Promise<void>;
beforeAll(async () => {
  if (!runMetricsTests) return;
  const metrics = createMetrics({ store: testStoreKind });
  server = await startTestServer({ metrics });
  const started = await startMetricsServer(metrics.registry, '127.0.0.1', 0);
  metricsUrl = started.url;
  closeMetrics = () => started.close();
});
afterAll(async () => {
  await closeMetrics?.();
  await server?.close();
});

const scrape = async (): Promise<readonly Family[]> => {
  const response = await fetch(metricsUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseScrape(await response.text());
};

describe.runIf(runMetricsTests)('GET /metrics', () => {
  it('counts requests by method, route template and status, and their durations', async () => {
    for (let i = 0; i < 3; i++) expect((await createPlant(server, { name: `m${i}` })).status).toBe(201);
    await createPlant(server, { id: 4242, name: 'fixed' });
    expect((await createPlant(server, { id: 4242, name: 'again' })).status).toBe(409);
    for (const id of [4242, 4242, 999_999])
      await request(server, `/plants/${id}`, { headers: bearer(server.tokens.all) });
    await request(server, '/nowhere');
    await request(server, '/plants', { method: 'PUT' });

    const families = await scrape();
    expect(sampleSum(families, 'http_requests_total', { method: 'POST', route: '/plants', status: '201' })).toBe(4);
    expect(sampleSum(families, 'http_requests_total', { method: 'POST', route: '/plants', status: '409' })).toBe(1);
    expect(sampleSum(families, 'http_requests_total', { method: 'GET', route: '/plants/{id}', status: '200' })).toBe(2);
    expect(sampleSum(families, 'http_requests_total', { method: 'GET', route: '/plants/{id}', status: '404' })).toBe(1);
    expect(sampleSum(families, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sampleSum(families, 'http_requests_total', { method: 'PUT', route: 'unmatched', status: '405' })).toBe(1);
    expect(sampleSum(families, 'http_request_duration_seconds_count', { method: 'POST', route: '/plants' })).toBe(5);
    expect(family(families, 'http_request_duration_seconds')?.type).toBe('histogram');
    expect(sampleSum(families, 'http_requests_in_flight')).toBe(0);
  });

  it('counts PATCH under /plants/{id}, and a 412 or 304 as no store error', async () => {
    const created = await createPlant(server, { id: 5151, name: 'patched' });
    const etag = String(created.headers.etag);
    const patch = (headers: Record<string, string>) =>
      request(server, '/plants/5151', {
        method: 'PATCH',
        headers: { ...bearer(server.tokens.all), 'content-type': 'application/merge-patch+json', ...headers },
        body: JSON.stringify({ tag: 'x' }),
      });
    expect((await patch({ 'if-match': etag })).status).toBe(200);
    expect((await patch({ 'if-match': etag })).status).toBe(412);
    expect(
      (await request(server, '/plants/5151', { headers: { ...bearer(server.tokens.all), 'if-none-match': '*' } }))
        .status,
    ).toBe(304);
    const families = await scrape();
    expect(sampleSum(families, 'http_requests_total', { method: 'PATCH', route: '/plants/{id}', status: '200' })).toBe(
      1,
    );
    expect(sampleSum(families, 'http_requests_total', { method: 'PATCH', route: '/plants/{id}', status: '412' })).toBe(
      1,
    );
    expect(sampleSum(families, 'http_requests_total', { method: 'GET', route: '/plants/{id}', status: '304' })).toBe(1);
    expect(sampleSum(families, 'plant_store_store_errors_total')).toBe(0);
  });

  it('counts PUT under /plants/{id}: a create, a replace and a 412, none of them a store error', async () => {
    const put = (headers: Record<string, string> = {}) =>
      request(server, '/plants/6161', {
        method: 'PUT',
        headers: { ...bearer(server.tokens.all), 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ name: 'put' }),
      });
    expect((await put()).status).toBe(201);
    expect((await put()).status).toBe(200);
    expect((await put({ 'if-none-match': '*' })).status).toBe(412);
    const families = await scrape();
    for (const [status, n] of [
      ['201', 1],
      ['200', 1],
      ['412', 1],
    ] as const)
      expect(sampleSum(families, 'http_requests_total', { method: 'PUT', route: '/plants/{id}', status }), status).toBe(
        n,
      );
    expect(sampleSum(families, 'http_request_duration_seconds_count', { method: 'PUT', route: '/plants/{id}' })).toBe(
      3,
    );
    expect(sampleSum(families, 'plant_store_store_errors_total')).toBe(0);
  });

  it('never labels with a raw path, an id, a token or plant data', async () => {
    await createPlant(server, { id: 777_001, name: 'secret-plant-name', tag: 'secret-tag' });
    const text = await (await fetch(metricsUrl)).text();
    for (const secret of ['777001', 'secret-plant-name', 'secret-tag', server.tokens.all, server.tokens.read])
      expect(text).not.toContain(secret);
    const routes = new Set((family(parseScrape(text), 'http_requests')?.samples ?? []).map((s) => s.labels['route']));
    for (const route of routes)
      expect(['/plants', '/plants/{id}', 'unmatched', '/healthz', '/readyz', '/openapi.json']).toContain(route);
  });

  it('counts authentication failures by reason and rate-limit-free 429s as none', async () => {
    await request(server, '/plants');
    await request(server, '/plants', { headers: bearer('pst_unknown_token_0000000000') });
    await request(server, '/plants', { headers: bearer(server.tokens.revoked) });
    await createPlant(server, { name: 'x' }, server.tokens.read);
    await request(server, '/plants', { headers: { authorization: 'Bearer ' } });
    const families = await scrape();
    expect(sampleSum(families, 'plant_store_auth_failures_total', { reason: 'missing_credentials' })).toBe(1);
    expect(sampleSum(families, 'plant_store_auth_failures_total', { reason: 'invalid_token' })).toBe(2);
    expect(sampleSum(families, 'plant_store_auth_failures_total', { reason: 'insufficient_scope' })).toBe(1);
    expect(sampleSum(families, 'plant_store_auth_failures_total', { reason: 'invalid_request' })).toBe(1);
    expect(sampleSum(families, 'plant_store_rate_limited_total')).toBe(0);
    expect(sampleSum(families, 'plant_store_store_errors_total')).toBe(0);
  });

  it(`reports the store's own series (${testStoreKind}) and the process defaults`, async () => {
    const families = await scrape();
    if (testStoreKind === 'sqlite')
      expect(sampleSum(families, 'plant_store_sqlite_group_commit_batch_size_count')).toBeGreaterThan(0);
    else expect(sampleSum(families, 'plant_store_postgres_pool_wait_seconds_count')).toBeGreaterThan(0);
    for (const name of [
      'process_cpu_user_seconds',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(family(families, name), name).toBeDefined();
    }
  });

  it('answers only GET and HEAD on /metrics', async () => {
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405);
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
    const head = await fetch(metricsUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});
