import { AsyncLocalStorage } from 'node:async_hooks';
import {
  createNoopMeter,
  diag,
  DiagLogLevel,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Link,
  type MeterProvider,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_BATCH_SIZE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_METHOD_ORIGINAL,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config/tracing.js';
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

/** Where the SDK's own complaints go (an exporter that is down): a logger's warn, at most once per `everyMs`. */
export interface TracingLog {
  warn(obj: object, msg: string): void;
}

export interface TracingOptions {
  /** The server's version (service.version). */
  readonly version: string;
  readonly log: TracingLog;
  /** Told how many finished spans were exported, dropped (`queue_full`) or lost to a failed export. */
  readonly onSpans?: ((outcome: string, count: number) => void) | undefined;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** The processor counter the SDK reports each finished span's fate on (its self-observability). */
const SPANS_PROCESSED = 'otel.sdk.processor.span.processed';

const getter: TextMapGetter<Readonly<Record<string, string | undefined>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};
const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

const samplerFor = (config: TracingConfig): Sampler => {
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(config.ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.ratio) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
};

/** The exporter of the configured protocol, loaded only when chosen. */
const exporterFor = async (config: TracingConfig): Promise<SpanExporter> => {
  const options = { url: config.url, headers: { ...config.headers }, timeoutMillis: config.exportTimeoutMs };
  if (config.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(options);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(options);
};

/**
 * A meter provider that hears only the batch processor's count of processed spans and hands it
 * on: the metrics count exported and dropped spans without an OpenTelemetry metrics SDK.
 */
const spanCounter = (onSpans: (outcome: string, count: number) => void): MeterProvider => ({
  getMeter: () => {
    const noop = createNoopMeter();
    return Object.assign(Object.create(noop) as typeof noop, {
      createCounter: (name: string, options?: object) =>
        name === SPANS_PROCESSED
          ? {
              add: (count: number, attributes?: Attributes) => {
                const error = attributes?.[ATTR_ERROR_TYPE];
                onSpans(typeof error === 'string' ? error : 'exported', count);
              },
            }
          : noop.createCounter(name, options),
    });
  },
});

/** At most one line per `everyMs` of what the SDK complains about, with how many were held back. */
const throttledDiag = (log: TracingLog, everyMs = 10_000) => {
  let lastAt = -Infinity;
  let held = 0;
  const say = (message: string, args: unknown[]): void => {
    const now = performance.now();
    if (now - lastAt < everyMs) {
      held += 1;
      return;
    }
    lastAt = now;
    const [first] = args;
    const reason = first instanceof Error ? first.message : typeof first === 'string' ? first : undefined;
    log.warn({ reason, heldBack: held }, `tracing: ${message}`);
    held = 0;
  };
  return {
    error: (message: string, ...args: unknown[]) => say(message, args),
    warn: (message: string, ...args: unknown[]) => say(message, args),
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  };
};

interface HostAndPort {
  readonly address: string;
  readonly port: number;
}

/** `host[:port]` of a Host header; the port is the scheme's when absent. */
const parseHost = (host: string): HostAndPort | undefined => {
  const m = /^(\[[^\]]*\]|[^:]*)(?::([0-9]{1,5}))?$/.exec(host);
  if (m === null || m[1] === undefined || m[1] === '') return undefined;
  return { address: m[1].replace(/^\[|\]$/g, ''), port: m[2] === undefined ? 80 : Number(m[2]) };
};

/** parseHost, remembering the last header: a server's requests nearly all name the same host. */
const lastHost = (): ((host: string) => HostAndPort | undefined) => {
  let header: string | undefined;
  let parsed: HostAndPort | undefined;
  return (host) => {
    if (host !== header) {
      header = host;
      parsed = parseHost(host);
    }
    return parsed;
  };
};

/** What an error is, by type only: a tag, a code or a class name — never a message that may quote a value. */
const errorType = (failure: unknown): string => {
  if (typeof failure === 'object' && failure !== null) {
    const tagged = failure as { _tag?: unknown; code?: unknown; name?: unknown };
    if (typeof tagged._tag === 'string') return tagged._tag;
    if (typeof tagged.code === 'string') return tagged.code;
    if (typeof tagged.name === 'string') return tagged.name;
  }
  return '_OTHER';
};

const fail = (span: Span, failure: unknown): void => {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute(ATTR_ERROR_TYPE, errorType(failure));
};

/**
 * Starts the OpenTelemetry SDK as `config` says — a tracer provider with the configured sampler
 * and a batch span processor feeding the OTLP exporter — and returns the server's tracing on top
 * of it: W3C Trace Context in and out, the current span kept in an AsyncLocalStorage (see
 * tracing.ts). Spans are exported off the request path; past the processor's queue they are
 * dropped and counted, never waited for.
 */
export const startTracing = async (config: TracingConfig, options: TracingOptions): Promise<Tracing> => {
  diag.setLogger(throttledDiag(options.log), DiagLogLevel.WARN);
  const exporter = await exporterFor(config);
  const provider = new TracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({
        ...config.resource,
        [ATTR_SERVICE_NAME]: config.serviceName,
        [ATTR_SERVICE_VERSION]: options.version,
      }),
    ),
    sampler: samplerFor(config),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: config.batch.scheduleDelayMs,
        maxQueueSize: config.batch.maxQueueSize,
        maxExportBatchSize: config.batch.maxExportBatchSize,
        exportTimeoutMillis: config.exportTimeoutMs,
        ...(options.onSpans === undefined ? {} : { selfObsMeterProvider: spanCounter(options.onSpans) }),
      }),
    ],
  });
  // Nothing is registered globally: the server keeps its own span context (see tracing.ts), so
  // another library's global provider or context manager neither sees nor disturbs it.
  const tracer = provider.getTracer('@plant-store/server', options.version);
  const w3c = new W3CTraceContextPropagator();
  const hostAndPort = lastHost();
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
    const known = KNOWN_METHODS.has(request.method);
    const method = known ? request.method : '_OTHER';
    const where = request.host === undefined ? undefined : hostAndPort(request.host);
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_PATH]: request.path,
      [ATTR_URL_SCHEME]: 'http',
    };
    if (!known) attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = request.method;
    if (where !== undefined) {
      attributes[ATTR_SERVER_ADDRESS] = where.address;
      attributes[ATTR_SERVER_PORT] = where.port;
    }
    if (request.userAgent !== undefined) attributes[ATTR_USER_AGENT_ORIGINAL] = request.userAgent;
    const span = tracer.startSpan(known ? method : 'HTTP', { kind: SpanKind.SERVER, attributes }, parent);
    return {
      enter: (fn) => within(span, fn),
      finish: (finished: FinishedRequest) => {
        if (span.isRecording()) describeAnswer(span, known ? method : 'HTTP', finished);
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
    const { url } = attempt;
    const scheme = url.protocol.slice(0, -1);
    // Never url.full: a webhook URL may carry a secret in its path or query.
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      [ATTR_SERVER_ADDRESS]: url.hostname.replace(/^\[|\]$/g, ''),
      [ATTR_SERVER_PORT]: url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port),
      [ATTR_URL_SCHEME]: scheme,
      'plant_store.webhook.endpoint_id': attempt.endpointId,
      'plant_store.webhook.delivery_id': attempt.deliveryId,
      'plant_store.webhook.event_id': attempt.eventId,
    };
    if (attempt.attempt > 1) attributes[ATTR_HTTP_REQUEST_RESEND_COUNT] = attempt.attempt - 1;
    const span = tracer.startSpan('POST', { kind: SpanKind.CLIENT, attributes }, parent);
    const headers: Record<string, string> = {};
    w3c.inject(trace.setSpan(parent, span), headers, setter);
    return {
      headers,
      end: ({ status, error }) => {
        if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        if (status !== undefined && status >= 400) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.setAttribute(ATTR_ERROR_TYPE, String(status));
        } else if (status === undefined && error !== undefined) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: error });
          span.setAttribute(ATTR_ERROR_TYPE, '_OTHER');
        }
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

/** The answer on a recorded SERVER span: route, status, and what the contract wants seen (replay, 412, 429). */
const describeAnswer = (span: Span, method: string, finished: FinishedRequest): void => {
  const { route, status, errorTag, replayed } = finished;
  if (route !== undefined) {
    span.updateName(`${method} ${route}`);
    span.setAttribute(ATTR_HTTP_ROUTE, route);
  }
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
  }
  if (errorTag !== undefined) span.setAttribute('plant_store.error', errorTag);
  if (replayed) {
    span.setAttribute('plant_store.idempotent_replay', true);
    span.addEvent('idempotent replay');
  }
  if (status === 412) span.addEvent('precondition failed');
  if (status === 429) span.addEvent('rate limited');
};
