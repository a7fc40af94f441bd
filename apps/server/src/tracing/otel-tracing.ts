import { AsyncLocalStorage } from 'node:async_hooks';
import {
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
  type Link,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_BATCH_SIZE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
} from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config/tracing.js';
import { startTracerProvider, type TracingOptions } from './otel-sdk.js';
import {
  describeAnswer,
  describeAttemptEnd,
  fail,
  requestSpanStarts,
  webhookAttemptAttributes,
} from './span-attributes.js';
import type {
  FinishedRequest,
  IncomingRequest,
  ServerSpan,
  SpanHandle,
  TracedSystem,
  Tracing,
  WebhookAttempt,
  WebhookAttemptSpan,
  WriteTrace,
} from './tracing.js';

const getter: TextMapGetter<Readonly<Record<string, string | undefined>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};
const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * Starts the OpenTelemetry SDK as `config` says (otel-sdk.ts) and returns the server's tracing on
 * top of it: W3C Trace Context in and out, the current span kept in an AsyncLocalStorage (see
 * tracing.ts), the spans described as span-attributes.ts says.
 */
export const startTracing = async (config: TracingConfig, options: TracingOptions): Promise<Tracing> => {
  const provider = await startTracerProvider(config, options);
  // Nothing is registered globally: the server keeps its own span context (see tracing.ts), so
  // another library's global provider or context manager neither sees nor disturbs it.
  const tracer = provider.getTracer('@plant-store/server', options.version);
  const w3c = new W3CTraceContextPropagator();
  const requestSpanStart = requestSpanStarts();
  /** The span of the request or store operation the running code belongs to, across every await. */
  const active = new AsyncLocalStorage<Span>();
  const within = <T>(span: Span, fn: () => T): T => active.run(span, fn);
  const idsOf = (span: Span): Record<string, string> => {
    const { traceId, spanId } = span.spanContext();
    return { trace_id: traceId, span_id: spanId };
  };

  const startRequest = (request: IncomingRequest): ServerSpan => {
    const carrier = { traceparent: request.traceparent, tracestate: request.tracestate };
    const parent = request.traceparent === undefined ? ROOT_CONTEXT : w3c.extract(ROOT_CONTEXT, carrier, getter);
    const { name, attributes } = requestSpanStart(request);
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    return {
      enter: (fn) => within(span, fn),
      finish: (finished: FinishedRequest) => {
        if (span.isRecording()) describeAnswer(span, name, finished);
        span.end();
      },
    };
  };

  const storeOperation = <A>(
    system: TracedSystem,
    operation: string,
    collection: string,
    run: () => Promise<A>,
    failed: (outcome: A) => unknown,
  ): Promise<A> => {
    const parent = active.getStore();
    // Only inside a recorded request: the background work (purges, the dispatcher's claims) and
    // sampled-out requests make no store spans.
    if (parent?.isRecording() !== true) return run();
    const span = tracer.startSpan(
      `${operation} ${collection}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR_DB_SYSTEM_NAME]: system,
          [ATTR_DB_OPERATION_NAME]: operation,
          [ATTR_DB_COLLECTION_NAME]: collection,
        },
      },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
    return within(span, run).then(
      (outcome) => {
        const failure = failed(outcome);
        if (failure !== undefined) fail(span, failure);
        span.end();
        return outcome;
      },
      (thrown: unknown) => {
        fail(span, thrown);
        span.end();
        throw thrown;
      },
    );
  };

  const writeTrace = (): WriteTrace | undefined => {
    const current = active.getStore();
    if (current === undefined) return undefined;
    const spanContext = current.spanContext();
    if (!isSpanContextValid(spanContext)) return undefined;
    return {
      saved: () => {
        const headers: Record<string, string> = {};
        w3c.inject(trace.setSpanContext(ROOT_CONTEXT, spanContext), headers, setter);
        return { traceparent: headers['traceparent'] ?? '', tracestate: headers['tracestate'] };
      },
      sampled: (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0,
      link: spanContext,
    };
  };

  const batch = (
    system: TracedSystem,
    name: string,
    writes: readonly (WriteTrace | undefined)[],
  ): SpanHandle | undefined => {
    const links: Link[] = [];
    for (const write of writes) if (write?.sampled === true) links.push({ context: write.link as SpanContext });
    const [first] = links;
    if (first === undefined) return undefined;
    // A child of the first write's span, so that trace shows it in place; linked from every write.
    const span = tracer.startSpan(
      name,
      {
        kind: SpanKind.INTERNAL,
        links,
        attributes: { [ATTR_DB_SYSTEM_NAME]: system, [ATTR_DB_OPERATION_BATCH_SIZE]: writes.length },
      },
      trace.setSpanContext(ROOT_CONTEXT, first.context),
    );
    return {
      event: (eventName) => span.addEvent(eventName),
      end: (failure) => {
        if (failure !== undefined) fail(span, failure);
        span.end();
      },
    };
  };

  const startWebhookAttempt = (attempt: WebhookAttempt): WebhookAttemptSpan => {
    const parent = attempt.saved === undefined ? ROOT_CONTEXT : w3c.extract(ROOT_CONTEXT, { ...attempt.saved }, getter);
    const attributes = webhookAttemptAttributes(attempt);
    const span = tracer.startSpan('POST', { kind: SpanKind.CLIENT, attributes }, parent);
    const headers: Record<string, string> = {};
    w3c.inject(trace.setSpan(parent, span), headers, setter);
    return {
      headers,
      end: (outcome) => {
        describeAttemptEnd(span, outcome);
        span.end();
      },
    };
  };

  const logFields = (): Record<string, string> => {
    const current = active.getStore();
    return current === undefined ? {} : idsOf(current);
  };

  const shutdown = async (timeoutMs: number): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      provider.shutdown().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  };

  return {
    startRequest,
    storeOperation,
    current: writeTrace,
    batch,
    startWebhookAttempt,
    logFields,
    shutdown,
  };
};
