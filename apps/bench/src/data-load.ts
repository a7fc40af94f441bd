import { writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { PathReporter } from 'io-ts/lib/PathReporter.js';
import { encodeTimeline } from './data-windows.js';

/**
 * The data bench's load process (`node dist/data-load.js '<DataLoadSpec JSON>'`): creates at
 * `connections` connections with autocannon, like the load bench's driver, but open-ended — it
 * runs until SIGUSR2 (or its own bounds) — and it keeps every response's end time
 * and latency, written to `timelineFile`, so that the bench can cut the run into the windows
 * before, during and after a backup whose length nobody knows in advance. Prints `RESULT <json>`.
 */

const Count = t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 0, 'Count');
export const DataLoadSpec = t.type(
  {
    url: t.string,
    token: t.string,
    connections: Count,
    /** The first id the creates use, ascending. */
    firstId: Count,
    /** Bounds: the run stops by itself past either. */
    maxSeconds: Count,
    maxRequests: Count,
    timelineFile: t.string,
  },
  'DataLoadSpec',
);

const decoded = DataLoadSpec.decode(JSON.parse(process.argv[2] ?? 'null'));
if (E.isLeft(decoded)) throw new TypeError(`data-load: bad spec: ${PathReporter.report(decoded).join('; ')}`);
const spec = decoded.right;

let ends = new Float64Array(1 << 18);
let latencies = new Float64Array(1 << 18);
let n = 0;
const statusCounts: Record<string, number> = {};
let nextId = spec.firstId;
const headers = { authorization: `Bearer ${spec.token}`, 'content-type': 'application/json' };

const instance = autocannon(
  {
    url: spec.url,
    connections: spec.connections,
    duration: spec.maxSeconds,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: '/plants',
        headers,
        setupRequest: (request) => {
          const id = nextId++;
          return { ...request, body: JSON.stringify({ id, name: `bench plant ${id}`, tag: 'bench' }) };
        },
      },
    ],
  },
  (error, result) => {
    if (error !== null) {
      process.stderr.write(`data-load: ${error.stack ?? error.message}\n`);
      process.exitCode = 1;
      return;
    }
    writeFileSync(
      spec.timelineFile,
      encodeTimeline({ ends: ends.subarray(0, n), latencies: latencies.subarray(0, n) }),
    );
    const unexpected = Object.entries(statusCounts).reduce((sum, [s, c]) => (s === '201' ? sum : sum + c), 0);
    process.stdout.write(
      `RESULT ${JSON.stringify({ responses: n, statusCounts, unexpected, errors: result.errors, timeouts: result.timeouts, nextId })}\n`,
    );
    process.exit(0);
  },
);

instance.on('response', (_client: unknown, status: number, _bytes: number, milliseconds: number) => {
  const key = String(status);
  statusCounts[key] = (statusCounts[key] ?? 0) + 1;
  if (n === ends.length) {
    const grow = (a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
      const bigger = new Float64Array(a.length * 2);
      bigger.set(a);
      return bigger;
    };
    ends = grow(ends);
    latencies = grow(latencies);
  }
  ends[n] = performance.timeOrigin + performance.now();
  latencies[n] = milliseconds;
  n++;
  if (n === spec.maxRequests) instance.stop();
});

process.on('SIGUSR2', () => instance.stop());
