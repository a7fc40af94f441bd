import { describe, expect, it } from 'vitest';
import { decodeTracing, parseKeyValueList, tracingWarnings } from './tracing.js';

const decode = (env: Record<string, string>) => {
  const problems: string[] = [];
  const tracing = decodeTracing(env, problems);
  return { tracing, problems };
};

describe('decodeTracing', () => {
  it('is off without an endpoint, whatever else is set', () => {
    expect(decode({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' })).toEqual({
      tracing: undefined,
      problems: [],
    });
  });

  it('posts to <endpoint>/v1/traces with the defaults', () => {
    expect(decode({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      exportTimeoutMs: 10_000,
      serviceName: 'plant-store',
      resource: {},
      sampler: 'parentbased_always_on',
      ratio: 1,
      batch: { scheduleDelayMs: 5000, maxQueueSize: 2048, maxExportBatchSize: 512 },
    });
  });

  it('takes the traces-only variables over the general ones', () => {
    const { tracing } = decode({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom/path',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=one,x=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=two%20words',
      OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '2000',
    });
    expect(tracing).toMatchObject({
      url: 'https://b/custom/path',
      protocol: 'http/json',
      headers: { 'api-key': 'two words', x: '1' },
      exportTimeoutMs: 2000,
    });
  });

  it('reads the sampler, its ratio, the service and resource attributes', () => {
    const { tracing } = decode({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource,deployment.environment.name=prod',
    });
    expect(tracing).toMatchObject({
      sampler: 'parentbased_traceidratio',
      ratio: 0.1,
      serviceName: 'from-resource',
      resource: { 'deployment.environment.name': 'prod' },
    });
    expect(
      decode({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a',
        OTEL_SERVICE_NAME: 'named',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=r',
      }).tracing?.serviceName,
    ).toBe('named');
  });

  it('is off again with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    expect(decode({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(decode({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
  });

  it('names every bad variable, even with traces off', () => {
    const { problems } = decode({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_TRACES_SAMPLER_ARG: '1.5',
      OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign',
      OTEL_BSP_MAX_QUEUE_SIZE: '10',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20',
    });
    expect(problems.map((p) => p.split(' ')[0])).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
    ]);
  });

  it('accepts the ratios 0, 1, 0.25, .5 and 1.0 and refuses others', () => {
    for (const [arg, ratio] of [
      ['0', 0],
      ['1', 1],
      ['0.25', 0.25],
      ['.5', 0.5],
      ['1.0', 1],
    ] as const) {
      expect(decode({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_TRACES_SAMPLER_ARG: arg }).tracing?.ratio).toBe(
        ratio,
      );
    }
    for (const arg of ['-0.1', '1.01', 'half', '1e-1', '']) {
      expect(decode({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_TRACES_SAMPLER_ARG: arg }).problems.length).toBe(
        arg === '' ? 0 : 1,
      );
    }
  });
});

describe('parseKeyValueList', () => {
  it('reads key=value members, percent-decoded, and refuses malformed ones', () => {
    expect(parseKeyValueList('a=1, b = two%2Cthree ,')).toEqual({ a: '1', b: 'two,three' });
    expect(parseKeyValueList('=1')).toBeUndefined();
    expect(parseKeyValueList('a b=1')).toBeUndefined();
    expect(parseKeyValueList('a=%E0%A4%A')).toBeUndefined();
  });
});

describe('tracingWarnings', () => {
  it('warns once when OTEL variables are set but no endpoint is', () => {
    expect(tracingWarnings({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' })).toEqual([
      'OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER set but traces are off: set OTEL_EXPORTER_OTLP_ENDPOINT to turn them on',
    ]);
    expect(tracingWarnings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a', OTEL_SERVICE_NAME: 'x' })).toEqual([]);
    expect(tracingWarnings({ OTEL_SDK_DISABLED: 'true' })).toEqual([]);
  });
});
