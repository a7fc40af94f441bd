import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, ROOT_CONTEXT, trace, TraceFlags, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createPlantStoreClient, type PlantsApi } from '@plant-store/client';
import {
  describePostgres,
  freshPostgresUrl,
  spanTree,
  startOtlpReceiver,
  type FreshPostgres,
  type OtlpReceiver,
  type ReceivedSpan,
  until,
} from '@plant-store/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode, startServer, tempDir, type ServerProcess } from './support/processes.js';
import { createToken } from './support/token.js';

// Traces through real processes: the built server exporting to an OTLP/HTTP receiver this test
// starts (both encodings), the client in this process continuing a trace of ours, and a webhook
// receiver that gets the trace's `traceparent` — across a restart of the server between the
// create and the delivery, on SQLite and on PostgreSQL.

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const ALLOW_LOOPBACK = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
/** Spans leave the server within a tenth of a second. */
const FAST_EXPORT = { OTEL_BSP_SCHEDULE_DELAY: '100' };

const hex = (bytes: number): string =>
  Array.from({ length: bytes }, () =>
    Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');

/** A caller's span context of our own: what the client continues. */
const callerSpan = (): SpanContext => ({ traceId: hex(16), spanId: hex(8), traceFlags: TraceFlags.SAMPLED });

const inCallerTrace = <T>(caller: SpanContext, fn: () => Promise<T>): Promise<T> =>
  context.with(trace.setSpanContext(ROOT_CONTEXT, caller), fn);

interface Delivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A webhook receiver that records what it got; `failOnce(text)` answers the next attempt whose body has `text` 503. */
const startWebhookReceiver = async () => {
  const received: Delivery[] = [];
  let failing: string | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers, body });
      if (failing !== undefined && body.includes(failing)) {
        failing = undefined;
        res.writeHead(503).end();
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/secret-path-part`,
    received,
    failOnce: (text: string) => {
      failing = text;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** Every span received, once `check` holds for them (the receiver's waitForSpans looks at one span at a time). */
const spansWhen = async (
  otlp: OtlpReceiver,
  check: (spans: readonly ReceivedSpan[]) => boolean,
  options: { readonly timeoutMs: number },
): Promise<readonly ReceivedSpan[]> => {
  await until('the spans', () => check(otlp.spans()), options.timeoutMs).catch((err: unknown) => {
    throw new Error(
      `${String(err)}; received: ${otlp
        .spans()
        .map((s) => `${s.name} [${s.kind}]`)
        .join(', ')}`,
    );
  });
  return otlp.spans();
};

const isWebhookAttempt = (s: ReceivedSpan): boolean => s.kind === 'CLIENT' && s.name === 'POST';

const inTrace = (spans: readonly ReceivedSpan[], traceId: string): ReceivedSpan[] =>
  spans.filter((s) => s.traceId === traceId);

const one = (spans: readonly ReceivedSpan[], predicate: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan => {
  const found = spans.filter(predicate);
  if (found.length !== 1) {
    throw new Error(
      `expected one ${what}, found ${found.length}:\n${spans.map((s) => `${s.name} [${s.kind}]`).join('\n')}`,
    );
  }
  return found[0] as ReceivedSpan;
};

interface StoreCase {
  readonly name: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  readonly system: 'sqlite' | 'postgresql';
  readonly batchSpan: string;
  /** A fresh store's DATABASE_URL, and how to remove it. */
  readonly open: () => Promise<{ url: string; remove: () => Promise<void> }>;
}

const sqliteCase: StoreCase = {
  name: 'SQLite',
  protocol: 'http/protobuf',
  system: 'sqlite',
  batchSpan: 'sqlite group commit',
  open: async () => {
    const dir = await tempDir('e2e-traces');
    return { url: `sqlite:${dir.path}/plant-store.db`, remove: dir.remove };
  },
};

const postgresCase: StoreCase = {
  name: 'PostgreSQL',
  protocol: 'http/json',
  system: 'postgresql',
  batchSpan: 'postgresql write batch',
  open: async () => {
    const fresh: FreshPostgres = await freshPostgresUrl();
    return { url: fresh.url, remove: fresh.drop };
  },
};

const tracedStore = (c: StoreCase): void => {
  let otlp: OtlpReceiver;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let store: { url: string; remove: () => Promise<void> };
  let server: ServerProcess;
  let token: string;
  let client: PlantsApi;
  let env: Record<string, string>;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    hooks = await startWebhookReceiver();
    store = await c.open();
    token = await createToken(store.url, 'traces');
    const added = await runNode(paths.webhooksCli, ['add', '--url', hooks.url], {
      DATABASE_URL: store.url,
      ...ALLOW_LOOPBACK,
    });
    expect(added.code, added.stderr).toBe(0);
    env = {
      DATABASE_URL: store.url,
      ...ALLOW_LOOPBACK,
      ...FAST_EXPORT,
      WEBHOOK_RETRY_SCHEDULE: '1500ms',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: c.protocol,
      OTEL_SERVICE_NAME: 'plant-store-e2e',
    };
    server = await startServer(env);
    client = createPlantStoreClient({ baseUrl: server.url, token }).plants;
  });
  afterAll(async () => {
    await server?.stop();
    await hooks?.close();
    await otlp?.close();
    await store?.remove();
  });

  it('exports the span tree of a create, from the caller through the store to the webhook receiver', async () => {
    const caller = callerSpan();
    const created = await inCallerTrace(caller, () => client.create({ name: 'Secret Fern Name', tag: 'ferns' }));
    const id = created.id;
    await until('the webhook delivery', () => hooks.received.some((d) => d.body.includes(`"id":${id}`)), 15_000);
    const delivery = hooks.received.find((d) => d.body.includes(`"id":${id}`)) as Delivery;

    const spans = await spansWhen(
      otlp,
      (all) => inTrace(all, caller.traceId).some((s) => s.kind === 'CLIENT' && s.name === 'POST'),
      { timeoutMs: 15_000 },
    );
    const tree = inTrace(spans, caller.traceId);
    const why = spanTree(spans, caller.traceId);

    const request = one(tree, (s) => s.kind === 'SERVER', 'SERVER span');
    expect(request.name, why).toBe('POST /plants');
    expect(request.parentSpanId).toBe(caller.spanId);
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/plants',
      'http.response.status_code': 201,
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'server.port': server.port,
    });
    expect(request.resource['service.name']).toBe('plant-store-e2e');

    const insert = one(tree, (s) => s.name === 'INSERT plants', 'store span');
    expect(insert.parentSpanId, why).toBe(request.spanId);
    expect(insert.attributes).toMatchObject({ 'db.system.name': c.system, 'db.operation.name': 'INSERT' });

    // The batch span is in this trace (a child of the first write it carried), linked from each.
    const batch = one(spans, (s) => s.name === c.batchSpan && s.links.some((l) => l.spanId === insert.spanId), 'batch');
    expect(batch.links.map((l) => l.traceId)).toContain(caller.traceId);
    expect(batch.attributes['db.system.name']).toBe(c.system);

    const attempt = one(tree, (s) => s.kind === 'CLIENT' && s.name === 'POST', 'webhook attempt');
    expect(attempt.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 204 });
    expect(delivery.headers['traceparent']).toBe(`00-${caller.traceId}-${attempt.spanId}-01`);

    // Each log line of the request names the trace. The server writes its log in chunks, flushed at
    // least every LOG_FLUSH_INTERVAL_MS (100 ms): the line may reach us after the spans did.
    const line = await until(
      'the request log line with its span_id',
      () =>
        server
          .output()
          .split('\n')
          .find((l) => l.includes('"route":"/plants"') && l.includes(request.spanId)),
      5_000,
    );
    expect(JSON.parse(line)).toMatchObject({ trace_id: caller.traceId, span_id: request.spanId });
  });

  it('puts a store span beneath the SERVER span of every route that reads or writes the store', async () => {
    // One trace of ours per request, sent as a bare `traceparent`. Each route awaits on its way to
    // the store (authentication, the rate limit, a count beside the page), so a context that did
    // not flow through every await would leave these spans without a parent.
    const authorization = `Bearer ${token}`;
    const json = { authorization, 'content-type': 'application/json' };
    const created = await client.create({ name: 'Traced Fern', tag: 'traced' });
    const path = `/plants/${created.id}`;
    const requests: readonly {
      readonly route: string;
      readonly operation: string;
      readonly send: (traceparent: string) => Promise<Response>;
    }[] = [
      {
        route: 'POST /plants',
        operation: 'INSERT',
        send: (traceparent) =>
          fetch(`${server.url}/plants`, {
            method: 'POST',
            headers: { ...json, traceparent },
            body: '{"name":"Another Traced Fern"}',
          }),
      },
      {
        route: 'GET /plants',
        operation: 'SELECT',
        send: (traceparent) => fetch(`${server.url}/plants`, { headers: { authorization, traceparent } }),
      },
      {
        route: 'GET /plants',
        operation: 'SELECT',
        send: (traceparent) =>
          fetch(`${server.url}/plants?q=fern&sort=-name&tag=traced`, {
            headers: { authorization, traceparent, prefer: 'count=exact' },
          }),
      },
      {
        route: 'GET /plants/{id}',
        operation: 'SELECT',
        send: (traceparent) => fetch(`${server.url}${path}`, { headers: { authorization, traceparent } }),
      },
      {
        route: 'PATCH /plants/{id}',
        operation: 'UPDATE',
        send: (traceparent) =>
          fetch(`${server.url}${path}`, {
            method: 'PATCH',
            headers: { ...json, traceparent },
            body: '{"tag":"retagged"}',
          }),
      },
      {
        route: 'DELETE /plants/{id}',
        operation: 'DELETE',
        send: (traceparent) =>
          fetch(`${server.url}${path}`, { method: 'DELETE', headers: { authorization, traceparent } }),
      },
      {
        route: 'GET /readyz',
        operation: 'SELECT',
        send: (traceparent) => fetch(`${server.url}/readyz`, { headers: { traceparent } }),
      },
    ];
    const sent: { readonly route: string; readonly operation: string; readonly caller: SpanContext }[] = [];
    for (const request of requests) {
      const caller = callerSpan();
      const answer = await request.send(`00-${caller.traceId}-${caller.spanId}-01`);
      await answer.arrayBuffer();
      expect(answer.status, request.route).toBeLessThan(300);
      sent.push({ route: request.route, operation: request.operation, caller });
    }
    const spans = await spansWhen(
      otlp,
      (all) => sent.every(({ caller }) => inTrace(all, caller.traceId).some((s) => s.kind === 'CLIENT')),
      { timeoutMs: 15_000 },
    );
    for (const { route, operation, caller } of sent) {
      const tree = inTrace(spans, caller.traceId);
      const why = `${route}:\n${spanTree(spans, caller.traceId)}`;
      const request = one(tree, (s) => s.kind === 'SERVER', `SERVER span of ${route}`);
      expect(request.name, why).toBe(route);
      const store = tree.filter(
        (s) =>
          s.kind === 'CLIENT' &&
          s.parentSpanId === request.spanId &&
          s.attributes['db.collection.name'] === 'plants' &&
          s.attributes['db.operation.name'] === operation,
      );
      expect(store.length, why).toBeGreaterThanOrEqual(1);
      for (const span of store) expect(span.attributes['db.system.name'], why).toBe(c.system);
    }
  });

  it('marks a keyed replay and a failed precondition on the request span', async () => {
    const caller = callerSpan();
    const key = `trace-key-${hex(4)}`;
    const first = await inCallerTrace(caller, () => client.create({ name: 'replayed fern' }, { idempotencyKey: key }));
    await inCallerTrace(caller, () => client.create({ name: 'replayed fern' }, { idempotencyKey: key }));
    await inCallerTrace(caller, () =>
      client.update(first.id, { name: 'changed' }, { ifMatch: '"999999999"' }).catch(() => undefined),
    );
    const spans = await spansWhen(
      otlp,
      (all) => inTrace(all, caller.traceId).filter((s) => s.kind === 'SERVER').length >= 3,
      { timeoutMs: 15_000 },
    );
    const requests = inTrace(spans, caller.traceId).filter((s) => s.kind === 'SERVER');
    const replay = one(requests, (s) => s.attributes['plant_store.idempotent_replay'] === true, 'replay');
    expect(replay.events.map((e) => e.name)).toContain('idempotent replay');
    const failed = one(requests, (s) => s.attributes['http.response.status_code'] === 412, '412');
    expect(failed.name).toBe('PATCH /plants/{id}');
    expect(failed.attributes['plant_store.error']).toBe('PreconditionFailed');
    expect(failed.events.map((e) => e.name)).toContain('precondition failed');
  });

  it("continues the request's trace in a delivery made after a restart", async () => {
    hooks.failOnce('restart fern');
    const before = hooks.received.length;
    const caller = callerSpan();
    const created = await inCallerTrace(caller, () => client.create({ name: 'restart fern' }));
    // The first attempt is answered 503; the retry is due 1.5 s later, by then in the next process.
    await until('the first attempt', () => hooks.received.length > before, 15_000);
    await server.stop();
    server = await startServer(env);
    client = createPlantStoreClient({ baseUrl: server.url, token }).plants;
    await until(
      'the retried delivery',
      () => hooks.received.slice(before).filter((d) => d.body.includes(`"id":${created.id}`)).length >= 2,
      15_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${hooks.received.length - before} received\n${server.output()}`);
    });
    const attempts = hooks.received.slice(before).filter((d) => d.body.includes(`"id":${created.id}`));
    for (const attempt of attempts)
      expect(attempt.headers['traceparent']).toMatch(new RegExp(`^00-${caller.traceId}-`));
    const spans = await spansWhen(otlp, (all) => inTrace(all, caller.traceId).filter(isWebhookAttempt).length >= 2, {
      timeoutMs: 15_000,
    });
    const clientSpans = inTrace(spans, caller.traceId).filter(isWebhookAttempt);
    expect(clientSpans.map((s) => s.attributes['http.response.status_code']).sort()).toEqual([204, 503]);
    const retry = one(clientSpans, (s) => s.attributes['http.response.status_code'] === 204, 'retry');
    expect(retry.attributes['http.request.resend_count']).toBe(1);
    expect(attempts.at(-1)?.headers['traceparent']).toBe(`00-${caller.traceId}-${retry.spanId}-01`);
  });

  it('exports no token, body text, query text or webhook URL path', async () => {
    const list = await fetch(`${server.url}/plants?q=zzsecretquery&limit=5`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(list.status).toBe(200);
    // A later request as a barrier: the batch processor exports spans in the order they ended,
    // so once its span has arrived, every span of the requests before it has too.
    const barrier = await fetch(`${server.url}/plants/987654321`, { headers: { authorization: `Bearer ${token}` } });
    expect(barrier.status).toBe(404);
    await spansWhen(
      otlp,
      (all) =>
        all.some((s) => s.attributes['url.path'] === '/plants' && s.kind === 'SERVER') &&
        all.some((s) => s.attributes['url.path'] === '/plants/987654321' && s.kind === 'SERVER'),
      { timeoutMs: 15_000 },
    );
    const exported = Buffer.concat(otlp.rawBodies()).toString('latin1');
    for (const secret of [
      token,
      token.slice(4),
      'Secret Fern Name',
      'secret fern name',
      'zzsecretquery',
      'secret-path-part',
    ]) {
      expect(exported.includes(secret), secret).toBe(false);
    }
  });
};

describe('traces on SQLite (http/protobuf)', () => tracedStore(sqliteCase));
describePostgres('traces on PostgreSQL (http/json)', () => tracedStore(postgresCase));

describe('a rate-limited request', () => {
  it('is marked on its span', async () => {
    const otlp = await startOtlpReceiver();
    const store = await sqliteCase.open();
    const token = await createToken(store.url, 'limited');
    const server = await startServer({
      DATABASE_URL: store.url,
      ...FAST_EXPORT,
      RATE_LIMIT_PER_SECOND: '1',
      RATE_LIMIT_BURST: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const response = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      expect(statuses).toContain(429);
      const spans = await spansWhen(otlp, (all) => all.some((s) => s.attributes['http.response.status_code'] === 429), {
        timeoutMs: 15_000,
      });
      const limited = spans.find((s) => s.kind === 'SERVER' && s.attributes['http.response.status_code'] === 429);
      if (limited === undefined) throw new Error('no SERVER span of a 429');
      expect(limited.attributes['plant_store.error']).toBe('RateLimited');
      expect(limited.events.map((e) => e.name)).toContain('rate limited');
    } finally {
      await server.stop();
      await otlp.close();
      await store.remove();
    }
  });
});

describe('an exporter that is down or slow', () => {
  it('changes no answer; the spans it cannot take are dropped and counted', async () => {
    const otlp = await startOtlpReceiver({ delayMs: 12_000 });
    const store = await sqliteCase.open();
    const token = await createToken(store.url, 'slow');
    const metricsPort = 0;
    const server = await startServer({
      DATABASE_URL: store.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_BSP_MAX_QUEUE_SIZE: '64',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '16',
      METRICS_PORT: String(metricsPort),
    });
    try {
      const client = createPlantStoreClient({ baseUrl: server.url, token }).plants;
      const created = await Promise.all(Array.from({ length: 300 }, (_, i) => client.create({ name: `slow ${i}` })));
      expect(created).toHaveLength(300);
      expect(new Set(created.map((p) => p.id)).size).toBe(300);
      const page = await client.list({ limit: 1000 });
      expect(page.plants).toHaveLength(300);
      const metricsUrl = /"url":"(http:\/\/[^"]+)","msg":"metrics listening"/.exec(server.output())?.[1];
      expect(metricsUrl, server.output()).toBeDefined();
      const metrics = await (await fetch(metricsUrl as string)).text();
      const dropped = /plant_store_trace_spans_total\{outcome="queue_full"\} (\d+)/.exec(metrics)?.[1];
      expect(Number(dropped), metrics).toBeGreaterThan(0);
    } finally {
      await server.stop();
      await otlp.close();
      await store.remove();
    }
  });

  it('changes no answer when nothing listens at the endpoint', async () => {
    const store = await sqliteCase.open();
    const token = await createToken(store.url, 'down');
    // A port that was free a moment ago: connections to it are refused.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const server = await startServer({
      DATABASE_URL: store.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      ...FAST_EXPORT,
    });
    try {
      const client = createPlantStoreClient({ baseUrl: server.url, token }).plants;
      const created = await Promise.all(Array.from({ length: 100 }, (_, i) => client.create({ name: `down ${i}` })));
      expect(created).toHaveLength(100);
      expect((await client.get(created[0]?.id as number)).name).toBe('down 0');
      expect(server.alive()).toBe(true);
    } finally {
      await server.stop();
      await store.remove();
    }
  });
});

describe('traces off', () => {
  it('loads no OpenTelemetry module; on, the server loads the SDK', async () => {
    const register = fileURLToPath(new URL('./support/module-log-register.mjs', import.meta.url));
    const loaded = async (env: Record<string, string>): Promise<string[]> => {
      const store = await sqliteCase.open();
      const log = join(store.url.slice('sqlite:'.length, -'plant-store.db'.length), 'modules.log');
      const server = await startServer({
        DATABASE_URL: store.url,
        NODE_OPTIONS: `--import ${register}`,
        MODULE_LOG: log,
        ...env,
      });
      try {
        const response = await fetch(`${server.url}/plants`);
        await response.arrayBuffer();
        expect(response.status).toBe(401);
      } finally {
        await server.stop();
      }
      const urls = (await readFile(log, 'utf8')).split('\n').filter((url) => url !== '');
      await store.remove();
      expect(
        urls.some((url) => url.includes('/koa/')),
        'the hooks saw the server load',
      ).toBe(true);
      return urls.filter((url) => url.includes('/@opentelemetry/'));
    };
    expect(await loaded({})).toEqual([]);
    const on = await loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.some((url) => url.includes('/@opentelemetry/sdk-trace/'))).toBe(true);
  });
});
