import { createNoopMeter, diag, DiagLogLevel, type Attributes, type MeterProvider } from '@opentelemetry/api';
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
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config/tracing.js';

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

/** The processor counter the SDK reports each finished span's fate on (its self-observability). */
const SPANS_PROCESSED = 'otel.sdk.processor.span.processed';

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

/**
 * The OpenTelemetry SDK as `config` says: a tracer provider with the configured sampler and a
 * batch span processor feeding the OTLP exporter, the SDK's complaints sent to `options.log`.
 * Spans are exported off the request path; past the processor's queue they are dropped and
 * counted, never waited for. Nothing is registered globally (see otel-tracing.ts).
 */
export const startTracerProvider = async (config: TracingConfig, options: TracingOptions): Promise<TracerProvider> => {
  diag.setLogger(throttledDiag(options.log), DiagLogLevel.WARN);
  const exporter = await exporterFor(config);
  return new TracerProvider({
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
};
