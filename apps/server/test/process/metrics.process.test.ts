import http from 'node:http';
import { join } from 'node:path';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  describePostgres,
  freshPostgresUrl,
  startServer,
  tempDir,
  type FreshPostgres,
  type ServerProcess,
  until,
} from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScrape, runMetricsTests, sampleSum } from '../support/prometheus.js';

/**
 * Metrics as an operator meets them: the built server started with METRICS_PORT serves live figures
 * on its second listener — and with WORKERS=2 the figures of both workers together.
 */

const main = join(dirname(fileURLToPath(import.meta.url)), '../../dist/main.js');
const token = 'pst_metrics_process_test_token_0123456789';

/** A request on a new connection each time (with WORKERS, node:cluster hands each to a worker). */
const get = (url: string, requestId: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { agent: false, headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });

/** Waits (up to 30 s) until the server's output so far satisfies `predicate`. */
const waitFor = (what: string, server: ServerProcess, predicate: (output: string) => boolean): Promise<true> =>
  until(what, () => predicate(server.output()), 30_000, { everyMs: 50, detail: () => `\n${server.output()}` });

const scrape = async (port: number) => parseScrape(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());

describe.runIf(runMetricsTests)('METRICS_PORT on a single process (SQLite)', () => {
  let dir: { path: string; remove(): Promise<void> };
  let server: ServerProcess;
  let metricsPort: number;
  beforeAll(async () => {
    dir = await tempDir('plant-store-metrics-');
    // Port 0: the OS picks it as the server binds, so no other process can take it first.
    server = await startServer(
      { DATABASE_URL: `sqlite:${join(dir.path, 'plants.db')}`, PLANT_STORE_STATIC_TOKEN: token, METRICS_PORT: '0' },
      { main },
    );
    metricsPort = server.metricsPort as number;
  });
  afterAll(async () => {
    await server?.stop('SIGTERM');
    await dir?.remove();
  });

  it('serves live figures that follow the traffic, and logs where', async () => {
    expect(server.output()).toContain(`"url":"http://127.0.0.1:${metricsPort}/metrics"`);
    const before = sampleSum(await scrape(metricsPort), 'http_requests_total', {
      method: 'GET',
      route: '/plants',
      status: '200',
    });
    for (let i = 0; i < 7; i++) expect(await get(`${server.url}/plants`, `single-${i}`)).toBe(200);
    const after = await scrape(metricsPort);
    expect(sampleSum(after, 'http_requests_total', { method: 'GET', route: '/plants', status: '200' }) - before).toBe(
      7,
    );
    expect(sampleSum(after, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
  });
});

describePostgres('METRICS_PORT with WORKERS=2 (PostgreSQL)', () => {
  let database: FreshPostgres;
  let server: ServerProcess;
  let metricsPort: number;
  beforeAll(async () => {
    if (!runMetricsTests) return;
    database = await freshPostgresUrl();
    server = await startServer(
      { DATABASE_URL: database.url, WORKERS: '2', PLANT_STORE_STATIC_TOKEN: token, METRICS_PORT: '0' },
      { main },
    );
    metricsPort = server.metricsPort as number;
    await waitFor(
      'both workers and the metrics listener',
      server,
      (out) => out.split('"msg":"listening"').length === 3 && out.includes('metrics listening (all workers)'),
    );
  });
  afterAll(async () => {
    await server?.stop('SIGTERM');
    await database?.drop();
  });

  it.runIf(runMetricsTests)('aggregates the figures of both workers on the one port', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `workers-metrics-${i}`);
    for (const id of ids) expect(await get(`${server.url}/plants`, id)).toBe(200);
    await waitFor('the request log lines', server, (out) => ids.every((id) => out.includes(`"reqId":"${id}"`)));
    const pids = new Set(
      server
        .output()
        .split('\n')
        .filter((line) => ids.some((id) => line.includes(`"reqId":"${id}"`)))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
    expect(pids.size).toBe(2);
    const families = await scrape(metricsPort);
    expect(sampleSum(families, 'http_requests_total', { method: 'GET', route: '/plants', status: '200' })).toBe(20);
    expect(sampleSum(families, 'plant_store_postgres_pool_wait_seconds_count')).toBeGreaterThan(0);
  });
});
