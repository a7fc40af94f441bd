import {
  context,
  createTraceState,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AlwaysOffSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPlantStoreClient, type RetryInfo } from '../src/index.js';
import { fastRetryingClient, reply, startFakeServer, TOKEN, type FakeServer } from './fake-server.js';

// A caller's upstream context with a tracestate: the SDK gives child spans their parent's tracestate.
const upstream = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
  traceState: createTraceState('vendor=opaque,other=1'),
  isRemote: true,
});

const tracer = () => trace.getTracer('plant-store-client-test');

/** Runs `fn` inside an active span (a child of `parent`) and ends the span afterwards. */
const inSpan = <A>(fn: (span: Span) => Promise<A>, parent: Context = upstream): Promise<A> =>
  tracer().startActiveSpan('caller', {}, parent, async (span) => {
    try {
      return await fn(span);
    } finally {
      span.end();
    }
  });

const traceparentOf = (span: Span, flags = '01'): string => {
  const { traceId, spanId } = span.spanContext();
  return `00-${traceId}-${spanId}-${flags}`;
};

/** The W3C Trace Context format as a registered propagator writes it; `injected` counts its calls. */
const w3cPropagator = () => {
  let injected = 0;
  const propagator: TextMapPropagator = {
    inject(ctx, carrier, setter) {
      injected++;
      const span = trace.getSpanContext(ctx);
      if (span === undefined || !trace.isSpanContextValid(span)) return;
      const flags = (span.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00';
      setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-${flags}`);
      const state = span.traceState?.serialize();
      if (state !== undefined && state !== '') setter.set(carrier, 'tracestate', state);
    },
    extract: (ctx) => ctx,
    fields: () => ['traceparent', 'tracestate'],
  };
  return { propagator, injected: () => injected };
};

/** A caller's propagator of another format (B3 single header). */
const b3Propagator: TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const span = trace.getSpanContext(ctx);
    if (span !== undefined) setter.set(carrier, 'B3', `${span.traceId}-${span.spanId}-1`);
  },
  extract: (ctx) => ctx,
  fields: () => ['b3'],
};

const contextManager = new AsyncLocalStorageContextManager();
const provider = new TracerProvider();
let server: FakeServer;
let retries: RetryInfo[];

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});

afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});

beforeEach(async () => {
  retries = [];
  server = await startFakeServer();
  server.plants.set(1, { id: 1, name: 'Fern' } as never);
});

afterEach(async () => {
  propagation.disable();
  await server.close();
});

describe('trace context without a registered propagator', () => {
  it('sends the active span as traceparent with its tracestate', async () => {
    const client = fastRetryingClient(server, retries);
    const span = await inSpan(async (span) => {
      await client.plants.get(1);
      return span;
    });
    const [request] = server.requests;
    expect(request?.headers['traceparent']).toBe(traceparentOf(span));
    expect(request?.headers['traceparent']).toContain('0af7651916cd43dd8448eb211c80319c');
    expect(request?.headers['tracestate']).toBe('vendor=opaque,other=1');
  });

  it('sends no tracestate when the span has none', async () => {
    const client = fastRetryingClient(server, retries);
    const span = await inSpan(async (span) => {
      await client.plants.get(1);
      return span;
    }, ROOT_CONTEXT);
    const [request] = server.requests;
    expect(request?.headers['traceparent']).toBe(traceparentOf(span));
    expect(request?.headers).not.toHaveProperty('tracestate');
  });

  it('marks a span that is not sampled with flags 00', async () => {
    const unsampled = new TracerProvider({ sampler: new AlwaysOffSampler() });
    const client = fastRetryingClient(server, retries);
    const span = await unsampled.getTracer('test').startActiveSpan('caller', async (span) => {
      await client.plants.get(1);
      span.end();
      return span;
    });
    expect(span.isRecording()).toBe(false);
    expect(server.requests[0]?.headers['traceparent']).toBe(traceparentOf(span, '00'));
    await unsampled.shutdown();
  });

  it('sends no trace headers without an active span', async () => {
    await fastRetryingClient(server, retries).plants.get(1);
    const [request] = server.requests;
    expect(request?.headers).not.toHaveProperty('traceparent');
    expect(request?.headers).not.toHaveProperty('tracestate');
  });

  it('sends the same traceparent on every retry of a call', async () => {
    server.enqueue(reply(503), reply(503));
    const client = fastRetryingClient(server, retries);
    const span = await inSpan(async (span) => {
      await client.plants.get(1);
      return span;
    });
    expect(server.requests.map((r) => r.headers['traceparent'])).toEqual(Array(3).fill(traceparentOf(span)));
    expect(retries).toHaveLength(2);
  });

  it("sends the caller's span on the change feed's requests as on a plant call", async () => {
    const client = fastRetryingClient(server, retries);
    await client.plants.create({ name: 'Moss' });
    const span = await inSpan(async (span) => {
      await client.plants.get(1);
      for await (const change of client.plants.changes({ since: 0 })) {
        expect(change.seq).toBe(1);
        break;
      }
      return span;
    });
    const [, get, stream] = server.requests;
    expect(stream?.url).toBe('/plants/changes?since=0');
    for (const request of [get, stream]) {
      expect(request?.headers['traceparent']).toBe(traceparentOf(span));
      expect(request?.headers['tracestate']).toBe('vendor=opaque,other=1');
    }
  });

  it("keeps the traceparent a caller's beforeRequest hook sets", async () => {
    const own = '00-11111111111111111111111111111111-2222222222222222-01';
    const client = fastRetryingClient(server, retries, {
      hooks: { beforeRequest: [(request) => void (request.headers['traceparent'] = own)] },
    });
    await inSpan(() => client.plants.get(1));
    expect(server.requests[0]?.headers['traceparent']).toBe(own);
  });

  it('gives each concurrent call the span active where it was made', async () => {
    const client = fastRetryingClient(server, retries);
    const spans = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        tracer().startActiveSpan(name, async (span) => {
          await client.plants.get(1, { requestId: name });
          span.end();
          return span;
        }),
      ),
    );
    const sent = new Map(server.requests.map((r) => [r.headers['x-request-id'], r.headers['traceparent']]));
    expect([...sent.entries()].sort()).toEqual(spans.map((span, i) => [['a', 'b', 'c'][i], traceparentOf(span)]));
  });
});

describe('trace context through the registered propagator', () => {
  it('sends what the W3C propagator writes', async () => {
    const w3c = w3cPropagator();
    propagation.setGlobalPropagator(w3c.propagator);
    const client = fastRetryingClient(server, retries);
    const span = await inSpan(async (span) => {
      await client.plants.create({ name: 'Fern' });
      return span;
    });
    expect(w3c.injected()).toBe(1);
    const [request] = server.requests;
    expect(request?.headers['traceparent']).toBe(traceparentOf(span));
    expect(request?.headers['tracestate']).toBe('vendor=opaque,other=1');
  });

  it('does not ask the propagator without an active span', async () => {
    const w3c = w3cPropagator();
    propagation.setGlobalPropagator(w3c.propagator);
    await fastRetryingClient(server, retries).plants.get(1);
    expect(w3c.injected()).toBe(0);
    expect(server.requests[0]?.headers).not.toHaveProperty('traceparent');
  });

  it("sends another format's headers and adds traceparent when the propagator writes none", async () => {
    propagation.setGlobalPropagator(b3Propagator);
    const client = fastRetryingClient(server, retries);
    const span = await inSpan(async (span) => {
      await client.plants.get(1);
      return span;
    });
    const { traceId, spanId } = span.spanContext();
    const [request] = server.requests;
    expect(request?.headers['b3']).toBe(`${traceId}-${spanId}-1`);
    expect(request?.headers['traceparent']).toBe(traceparentOf(span));
    expect(request?.headers['tracestate']).toBe('vendor=opaque,other=1');
  });

  it("keeps the client's own headers over a propagator's", async () => {
    propagation.setGlobalPropagator({
      inject: (_ctx, carrier, setter) => {
        setter.set(carrier, 'Authorization', 'Basic from-propagator');
        setter.set(carrier, 'X-Request-Id', 'from-propagator');
      },
      extract: (ctx) => ctx,
      fields: () => ['authorization', 'x-request-id'],
    });
    const client = fastRetryingClient(server, retries);
    await inSpan(() => client.plants.get(1, { requestId: 'own-id' }));
    const [request] = server.requests;
    expect(request?.headers['x-request-id']).toBe('own-id');
    expect(request?.headers.authorization).toMatch(/^Bearer /);
  });
});

it('runs the README tracing snippet', async () => {
  const client = createPlantStoreClient({ baseUrl: server.url, token: TOKEN });
  let traceId = '';
  let spanId = '';

  await trace.getTracer('nursery').startActiveSpan('restock', async (span) => {
    await client.plants.create({ name: 'Fern' }); // traceparent: 00-<span's trace id>-<span id>-01
    span.end();
    ({ traceId, spanId } = span.spanContext());
  });

  expect(server.requests[0]?.headers['traceparent']).toBe(`00-${traceId}-${spanId}-01`);
});
