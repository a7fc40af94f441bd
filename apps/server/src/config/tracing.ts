import type * as t from 'io-ts';
import {
  boolean,
  commaSeparated,
  decodeVariables,
  fromString,
  integer,
  nonEmpty,
  oneOf,
  parseUrl,
} from './env-codecs.js';

/** The samplers OTEL_TRACES_SAMPLER names (the OpenTelemetry SDK's list; jaeger_remote and xray are not built in). */
export const TRACE_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

export const TRACE_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type TraceProtocol = (typeof TRACE_PROTOCOLS)[number];

/** Traces on: where spans go and which are kept. Absent from Config: off, and no SDK is loaded. */
export interface TracingConfig {
  /** The full URL spans are posted to (`…/v1/traces`). */
  readonly url: string;
  readonly protocol: TraceProtocol;
  /** Sent with every export (a collector's API key); never logged. */
  readonly headers: Readonly<Record<string, string>>;
  /** How long one export may take before it is given up, ms. */
  readonly exportTimeoutMs: number;
  readonly serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, besides service.name. */
  readonly resource: Readonly<Record<string, string>>;
  readonly sampler: TraceSampler;
  /** The ratio of the traceidratio samplers, 0…1. */
  readonly ratio: number;
  /** The batch span processor: spans past `maxQueueSize` waiting for export are dropped (and counted). */
  readonly batch: {
    readonly scheduleDelayMs: number;
    readonly maxQueueSize: number;
    readonly maxExportBatchSize: number;
  };
}

/**
 * `k=v,k2=v2` as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES write it (W3C Baggage
 * syntax without properties, values percent-encoded); undefined when a member is malformed.
 */
export const parseKeyValueList = (s: string): Record<string, string> | undefined => {
  const out: Record<string, string> = {};
  for (const member of commaSeparated(s)) {
    if (member === '') continue;
    const at = member.indexOf('=');
    if (at <= 0) return undefined;
    const key = member.slice(0, at).trim();
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(key)) return undefined;
    try {
      out[key] = decodeURIComponent(member.slice(at + 1).trim());
    } catch {
      return undefined;
    }
  }
  return out;
};

const httpUrl = (expected: string): t.Type<string, string, unknown> =>
  fromString(expected, (s) => {
    const url = parseUrl(s);
    return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') ? s : undefined;
  });

const keyValues = (what: string): t.Type<Record<string, string>, string, unknown> =>
  fromString(`a comma-separated list of key=value ${what} (values percent-encoded)`, parseKeyValueList);

const protocol = fromString('http/protobuf or http/json (grpc is not built in)', (s) =>
  TRACE_PROTOCOLS.find((p) => p === s),
);

/** The OpenTelemetry variables the server reads (the SDK reads none itself: everything is passed explicitly). */
export const tracingCodecs = {
  OTEL_SDK_DISABLED: boolean,
  OTEL_TRACES_EXPORTER: oneOf(['otlp', 'none']),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl('an http(s) URL of an OTLP/HTTP receiver (/v1/traces is added)'),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl('the http(s) URL spans are posted to, as is'),
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_HEADERS: keyValues('headers'),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValues('headers'),
  OTEL_EXPORTER_OTLP_TIMEOUT: integer(1, 600_000),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: integer(1, 600_000),
  OTEL_SERVICE_NAME: nonEmpty('service name'),
  OTEL_RESOURCE_ATTRIBUTES: keyValues('attributes'),
  OTEL_TRACES_SAMPLER: oneOf(TRACE_SAMPLERS),
  OTEL_TRACES_SAMPLER_ARG: fromString('a number from 0 to 1', (s) => {
    if (!/^(?:0(?:\.[0-9]+)?|1(?:\.0+)?|\.[0-9]+)$/.test(s)) return undefined;
    const n = Number(s);
    return n >= 0 && n <= 1 ? n : undefined;
  }),
  OTEL_BSP_SCHEDULE_DELAY: integer(1, 600_000),
  OTEL_BSP_MAX_QUEUE_SIZE: integer(1, 1_000_000),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: integer(1, 1_000_000),
} as const;

type TracingVariable = keyof typeof tracingCodecs;

/** `base` with `/v1/traces` added to its path, as the OTLP/HTTP specification says for OTEL_EXPORTER_OTLP_ENDPOINT. */
const tracesUrlOf = (base: string): string => `${base.replace(/\/+$/, '')}/v1/traces`;

/**
 * The tracing part of the configuration: undefined (off) unless an OTLP endpoint is set, and off
 * again with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Every variable is decoded (and
 * reported) whether or not tracing ends up on, so a typo is found before it matters.
 */
export const decodeTracing = (
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): TracingConfig | undefined => {
  const d = decodeVariables(tracingCodecs, env, problems);
  const maxQueueSize = d.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048;
  const maxExportBatchSize = d.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ?? Math.min(512, maxQueueSize);
  if (maxExportBatchSize > maxQueueSize)
    problems.push(
      `OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxExportBatchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize})`,
    );
  const url =
    d.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (d.OTEL_EXPORTER_OTLP_ENDPOINT === undefined ? undefined : tracesUrlOf(d.OTEL_EXPORTER_OTLP_ENDPOINT));
  if (url === undefined || d.OTEL_SDK_DISABLED === true || d.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const { 'service.name': named, ...resource } = d.OTEL_RESOURCE_ATTRIBUTES ?? {};
  return {
    url,
    protocol: d.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? d.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...d.OTEL_EXPORTER_OTLP_HEADERS, ...d.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    exportTimeoutMs: d.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? d.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    serviceName: d.OTEL_SERVICE_NAME ?? named ?? 'plant-store',
    resource,
    sampler: d.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on',
    ratio: d.OTEL_TRACES_SAMPLER_ARG ?? 1,
    batch: { scheduleDelayMs: d.OTEL_BSP_SCHEDULE_DELAY ?? 5000, maxQueueSize, maxExportBatchSize },
  };
};

/** Set OpenTelemetry variables that do nothing because no endpoint is: worth one warning line at start-up. */
export const tracingWarnings = (env: Readonly<Record<string, string | undefined>>): string[] => {
  const has = (name: TracingVariable): boolean => (env[name] ?? '') !== '';
  const endpoint = has('OTEL_EXPORTER_OTLP_ENDPOINT') || has('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const others = (Object.keys(tracingCodecs) as TracingVariable[]).filter(
    (name) =>
      has(name) &&
      ![
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
        'OTEL_SDK_DISABLED',
        'OTEL_TRACES_EXPORTER',
      ].includes(name),
  );
  return endpoint || others.length === 0
    ? []
    : [`${others.join(', ')} set but traces are off: set OTEL_EXPORTER_OTLP_ENDPOINT to turn them on`];
};
