import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOtlpSink, type OtlpSink, type SinkStats } from '../src/otlp-sink.js';
import { serverPackageDir } from '../src/stores.js';

let sink: OtlpSink;
let base: string;
let before: SinkStats;

beforeAll(async () => {
  sink = createOtlpSink();
  await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(sink.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  sink.server.closeAllConnections();
  await new Promise<void>((resolve) => sink.server.close(() => resolve()));
});

beforeEach(() => {
  before = sink.stats();
});

/** What the sink counted since the test started. */
const counted = (): SinkStats => {
  const now = sink.stats();
  return {
    requests: now.requests - before.requests,
    bytes: now.bytes - before.bytes,
    spans: now.spans - before.spans,
    unreadable: now.unreadable - before.unreadable,
  };
};

const post = (path: string, body: string | Uint8Array, contentType?: string) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
  });

describe('createOtlpSink', () => {
  it('answers every export 200 with an empty body in its own content type, and counts it', async () => {
    const json = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{}, {}] }] }] });
    const answers = await Promise.all([
      post('/v1/traces', json, 'application/json'),
      post('/v1/traces', new Uint8Array(), 'application/x-protobuf'),
      post('/v1/traces', 'hello', 'text/plain; charset=utf-8'),
    ]);
    expect(
      await Promise.all(answers.map(async (r) => [r.status, r.headers.get('content-type'), await r.text()])),
    ).toEqual([
      [200, 'application/json', ''],
      [200, 'application/x-protobuf', ''],
      [200, 'text/plain; charset=utf-8', ''],
    ]);
    expect(counted()).toEqual({ requests: 3, bytes: json.length + 5, spans: 2, unreadable: 1 });
    const stats = await fetch(`${base}/stats`);
    expect(stats.status).toBe(200);
    expect(await stats.json()).toEqual(sink.stats());
  });

  it('answers GET /readyz 200 and anything else 404, without counting it', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await post('/v1/metrics', '{}', 'application/json')).status).toBe(404);
    expect((await fetch(`${base}/v1/traces`)).status).toBe(404);
    expect(counted().requests).toBe(0);
  });
});

/**
 * The server's own OpenTelemetry SDK and exporters, from its package folder (the bench does not
 * depend on them; src/stores.ts loads the server's drivers the same way).
 */
interface Span {
  setAttribute(key: string, value: string | number): Span;
  end(): void;
}
interface Provider {
  getTracer(name: string): { startSpan(name: string): Span };
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}
type ExporterClass = new (options: { url: string; compression?: 'gzip' | 'none' }) => unknown;
const fromServer = createRequire(join(serverPackageDir(), 'package.json'));
const sdk = fromServer('@opentelemetry/sdk-trace') as {
  TracerProvider: new (options: { spanProcessors: unknown[] }) => Provider;
  BatchSpanProcessor: new (options: { exporter: unknown }) => unknown;
};
const exporters: Record<string, ExporterClass> = {
  'http/protobuf': (fromServer('@opentelemetry/exporter-trace-otlp-proto') as { OTLPTraceExporter: ExporterClass })
    .OTLPTraceExporter,
  'http/json': (fromServer('@opentelemetry/exporter-trace-otlp-http') as { OTLPTraceExporter: ExporterClass })
    .OTLPTraceExporter,
};

describe('createOtlpSink with the OTLP exporters of the server', () => {
  it.each([
    ['http/protobuf', 'none'],
    ['http/protobuf', 'gzip'],
    ['http/json', 'none'],
    ['http/json', 'gzip'],
  ] as const)('counts every span %s sends (compression %s)', async (protocol, compression) => {
    const Exporter = exporters[protocol] as ExporterClass;
    const exporter = new Exporter({ url: `${base}/v1/traces`, compression });
    const provider = new sdk.TracerProvider({ spanProcessors: [new sdk.BatchSpanProcessor({ exporter })] });
    // Two scopes, and more spans than one batch holds (512 by default).
    for (const [scope, spans] of [
      ['plant-store', 1200],
      ['plant-store-db', 34],
    ] as const) {
      const tracer = provider.getTracer(scope);
      for (let i = 0; i < spans; i++) tracer.startSpan(`span ${i}`).setAttribute('plant.id', i).end();
    }
    await provider.forceFlush();
    await provider.shutdown();
    const got = counted();
    expect(got).toMatchObject({ spans: 1234, unreadable: 0 });
    expect(got.requests).toBeGreaterThanOrEqual(3);
  });
});

describe('otlp-sink-main', () => {
  // The process entry from the build (turbo builds before testing).
  const entry = fileURLToPath(new URL('../dist/otlp-sink-main.js', import.meta.url));

  it('stops by itself after its lifetime', async () => {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`pnpm build\` in apps/bench first`);
    const started = Date.now();
    const child = spawn(process.execPath, [entry], {
      env: { ...process.env, PORT: '0', RECEIVER_LIFETIME_SECONDS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(/^otlp sink listening on \d+/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
