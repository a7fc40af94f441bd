import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import * as E from 'fp-ts/lib/Either.js';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { childrenCpuSecondsOf } from './processes.js';
import { BATCH_PLANTS, batchBody, DriverSpec, SCENARIOS, summarize, type DriverResult } from './scenarios.js';
import { COUNT_PREFER } from './search-pages.js';
import { tagPagePrefix } from './tag-pages.js';
import { runWrk, type WrkOptions } from './wrk.js';

/**
 * The load generator process (`node dist/driver.js '<DriverSpec JSON>'`), pinned to its own core
 * by the orchestrator. Prints `MEASURE` when the warm-up ends and `RESULT <json>` at the end.
 *
 * autocannon: one run covers warm-up and measurement so connections stay open; responses are
 * timed here with sub-millisecond precision (autocannon's own histogram keeps whole
 * milliseconds) and only those completing after the warm-up count.
 * wrk: a warm-up run, then a measured run, as child processes (they inherit the pinning).
 */

const decoded = DriverSpec.decode(JSON.parse(process.argv[2] ?? 'null'));
if (E.isLeft(decoded)) throw new TypeError(`driver: bad spec: ${PathReporter.report(decoded).join('; ')}`);
const spec = decoded.right;
const expected = new Set(SCENARIOS[spec.kind].expected);

/** The request paths of a `pages` or `counted` scenario (one a line). */
const readPaths = (file: string): readonly string[] => {
  const paths = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  if (paths.length === 0) throw new TypeError(`driver: no request paths in ${file}`);
  return paths;
};

const countUnexpected = (counts: Readonly<Record<string, number>>): number =>
  Object.entries(counts).reduce((sum, [status, n]) => (expected.has(Number(status)) ? sum : sum + n), 0);

const withAutocannon = (): Promise<DriverResult> => {
  const jsonHeaders = { authorization: `Bearer ${spec.token}`, 'content-type': 'application/json' };
  const authHeaders = { authorization: `Bearer ${spec.token}` };
  const patchHeaders = { authorization: `Bearer ${spec.token}`, 'content-type': 'application/merge-patch+json' };
  let nextId = spec.firstId;
  const createRequest = (): autocannon.RequestSpec => ({
    method: 'POST',
    path: '/plants',
    headers: jsonHeaders,
    setupRequest: (request, context) => {
      const id = nextId++;
      context['id'] = id;
      const body = JSON.stringify({ id, name: `bench plant ${id}`, tag: 'bench' });
      if (spec.idempotencyKeys === 'none') return { ...request, body };
      const key = spec.idempotencyKeys === 'ordered' ? `bench-${id}` : `${randomBytes(8).toString('hex')}-${id}`;
      return { ...request, headers: { ...jsonHeaders, 'idempotency-key': key }, body };
    },
  });
  const seedSpan = spec.seedTo - spec.seedFrom + 1;
  const seeded = (): number => spec.seedFrom + Math.floor(Math.random() * seedSpan);
  const requests = ((): autocannon.RequestSpec[] => {
    switch (SCENARIOS[spec.kind].requests) {
      case 'create':
        return [createRequest()];
      case 'create-delete':
        // Each connection loops over [create, delete]; the delete names the id its own create
        // just got a 201 for (the context is per connection).
        return [
          createRequest(),
          {
            method: 'DELETE',
            path: '/plants/0',
            headers: authHeaders,
            setupRequest: (request, context) => ({ ...request, path: `/plants/${String(context['id'])}` }),
          },
        ];
      case 'get':
        return [
          {
            method: 'GET',
            path: `/plants/${spec.seedFrom}`,
            headers: authHeaders,
            setupRequest: (request) => ({ ...request, path: `/plants/${seeded()}` }),
          },
        ];
      case 'patch':
        // A seeded plant, renamed to a name no request of the run used before: every PATCH
        // changes the plant (a patch to the values it has would write nothing).
        return [
          {
            method: 'PATCH',
            path: `/plants/${spec.seedFrom}`,
            headers: patchHeaders,
            setupRequest: (request) => ({
              ...request,
              path: `/plants/${seeded()}`,
              body: JSON.stringify({ name: `bench patch ${nextId++}` }),
            }),
          },
        ];
      case 'list':
        return [{ method: 'GET', path: '/plants?limit=100', headers: authHeaders }];
      case 'create-batch':
        return [
          {
            method: 'POST',
            path: '/plants/batch',
            headers: jsonHeaders,
            setupRequest: (request) => {
              const body = batchBody(nextId);
              nextId += BATCH_PLANTS;
              return { ...request, body };
            },
          },
        ];
      case 'pages':
      case 'counted': {
        if (spec.paths === null) throw new TypeError(`driver: ${spec.kind} needs paths in the spec`);
        const paths = readPaths(spec.paths);
        const headers =
          SCENARIOS[spec.kind].requests === 'counted' ? { ...authHeaders, prefer: COUNT_PREFER } : authHeaders;
        const draw = (): string => paths[Math.floor(Math.random() * paths.length)] as string;
        return [{ method: 'GET', path: draw(), headers, setupRequest: (request) => ({ ...request, path: draw() }) }];
      }
      case 'list-tag': {
        if (spec.tagPage === null) throw new TypeError('driver: list-tag needs tagPage in the spec');
        const prefix = tagPagePrefix(spec.tagPage.tag);
        const cursors = spec.tagPage.lastCursor + 1;
        return [
          {
            method: 'GET',
            path: `${prefix}0`,
            headers: authHeaders,
            setupRequest: (request) => ({ ...request, path: `${prefix}${Math.floor(Math.random() * cursors)}` }),
          },
        ];
      }
    }
  })();

  let samples = new Float64Array(1 << 16);
  let measured = 0;
  let measuring = false;
  const statusCounts: Record<string, number> = {};
  let measureStart = process.hrtime.bigint();
  let cpuAtMeasure = process.cpuUsage();

  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: spec.warmupSeconds + spec.seconds,
        timeout: 10,
        requests,
      },
      (error, result) => {
        clearTimeout(warmup);
        if (error !== null) return reject(error);
        const measuredSeconds = Number(process.hrtime.bigint() - measureStart) / 1e9;
        const cpu = process.cpuUsage(cpuAtMeasure);
        resolve({
          measuredSeconds,
          responses: measured,
          rps: measuredSeconds > 0 ? measured / measuredSeconds : 0,
          latency: summarize(samples.subarray(0, measured)),
          statusCounts,
          unexpected: countUnexpected(statusCounts),
          errors: result.errors,
          timeouts: result.timeouts,
          nextId,
          driverCpu: measuredSeconds > 0 ? (cpu.user + cpu.system) / 1e6 / measuredSeconds : 0,
        });
      },
    );
    const warmup = setTimeout(() => {
      measuring = true;
      measureStart = process.hrtime.bigint();
      cpuAtMeasure = process.cpuUsage();
      process.stdout.write('MEASURE\n');
    }, spec.warmupSeconds * 1000);
    instance.on('response', (_client: unknown, status: number, _bytes: number, milliseconds: number) => {
      const key = String(status);
      statusCounts[key] = (statusCounts[key] ?? 0) + 1;
      if (!measuring) return;
      if (measured === samples.length) {
        const bigger = new Float64Array(samples.length * 2);
        bigger.set(samples);
        samples = bigger;
      }
      samples[measured++] = milliseconds;
    });
  });
};

const withWrk = async (): Promise<DriverResult> => {
  const base: WrkOptions = { ...spec, firstId: spec.firstId };
  const warm = spec.warmupSeconds > 0 ? await runWrk({ ...base, seconds: spec.warmupSeconds }) : undefined;
  process.stdout.write('MEASURE\n');
  const cpuBefore = childrenCpuSecondsOf('self') ?? 0;
  const run = await runWrk({ ...base, firstId: warm?.nextId ?? spec.firstId });
  const cpu = (childrenCpuSecondsOf('self') ?? 0) - cpuBefore;
  const statusCounts: Record<string, number> = { ...warm?.statusCounts };
  for (const [status, n] of Object.entries(run.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + n;
  return {
    measuredSeconds: run.seconds,
    responses: run.requests,
    rps: run.seconds > 0 ? run.requests / run.seconds : 0,
    latency: run.latency,
    statusCounts,
    unexpected: countUnexpected(statusCounts),
    errors: (warm?.socketErrors ?? 0) + (warm?.timeouts ?? 0) + run.socketErrors + run.timeouts,
    timeouts: (warm?.timeouts ?? 0) + run.timeouts,
    nextId: run.nextId,
    driverCpu: run.seconds > 0 ? cpu / run.seconds : 0,
  };
};

(spec.generator === 'wrk' ? withWrk() : withAutocannon()).then(
  (result) => process.stdout.write(`RESULT ${JSON.stringify(result)}\n`),
  (error: unknown) => {
    process.stderr.write(`driver: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
