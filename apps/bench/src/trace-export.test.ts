import { describe, expect, it } from 'vitest';
import type { SinkStats } from './otlp-sink.js';
import {
  bytes,
  createTraceProbe,
  formatExport,
  formatTotal,
  SAMPLE_ALL,
  SAMPLE_RATIO,
  sampledShare,
  tracingEnv,
  withoutOtel,
} from './trace-export.js';

const stats = (requests: number, bytesSent: number, spans: number, unreadable = 0): SinkStats => ({
  requests,
  bytes: bytesSent,
  spans,
  unreadable,
});

describe('withoutOtel', () => {
  it('drops every OTEL_ variable and keeps the rest', () => {
    expect(
      withoutOtel({
        PATH: '/usr/bin',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
        OTEL_SDK_DISABLED: 'true',
        MY_OTEL_NOTE: 'kept',
      }),
    ).toEqual({ PATH: '/usr/bin', MY_OTEL_NOTE: 'kept' });
  });
});

describe('tracingEnv', () => {
  it('points the exporter at the sink and names the sampler, with its argument for the ratio', () => {
    expect(tracingEnv('http://127.0.0.1:4318', SAMPLE_ALL)).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    });
    expect(tracingEnv('http://127.0.0.1:4318', SAMPLE_RATIO)).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    });
  });
});

describe('sampledShare', () => {
  it('prints the share of root traces kept', () => {
    expect(
      [SAMPLE_ALL, SAMPLE_RATIO, { sampler: 'parentbased_traceidratio', ratio: 0.005 } as const].map(sampledShare),
    ).toEqual(['100%', '10%', '0.5%']);
  });
});

describe('createTraceProbe', () => {
  it('gives what the sink received between the load start and its stop', async () => {
    const readings = [stats(10, 5_000, 900), stats(150, 1_205_000, 45_900, 1)];
    const probe = createTraceProbe(() => Promise.resolve(readings.shift()));
    await probe.beforeLoad();
    expect(await probe.afterLoad()).toEqual(stats(140, 1_200_000, 45_000, 1));
  });

  it('gives undefined when the sink did not answer, before or after', async () => {
    const before = [undefined, stats(1, 1, 1)];
    const silentBefore = createTraceProbe(() => Promise.resolve(before.shift()));
    await silentBefore.beforeLoad();
    expect(await silentBefore.afterLoad()).toBeUndefined();
    const silentAfter = createTraceProbe(() => Promise.resolve(undefined));
    expect(await silentAfter.afterLoad()).toBeUndefined();
  });
});

describe('formatExport', () => {
  it('gives bytes, requests, spans and spans per response', () => {
    expect(formatExport(stats(140, 1_234_567, 45_210), 46_000)).toBe(
      'exported 1.2 MB in 140 requests, 45,210 spans (0.98 per response)',
    );
    expect(formatExport(stats(3, 12_345, 0, 3), 0)).toBe(
      'exported 12.3 kB in 3 requests, 0 spans, 3 bodies unreadable',
    );
  });

  it('says plainly when nothing arrived', () => {
    expect(formatExport(stats(0, 0, 0), 46_000)).toBe('exported nothing during the run (0 requests to the sink)');
  });
});

describe('formatTotal', () => {
  it('sums up what the sink received over the server life', () => {
    expect(formatTotal('sqlite FULL +tracing', stats(900, 7_500_000, 280_000))).toEqual({
      line: "sqlite FULL +tracing: the OTLP sink received 7.5 MB in 900 requests, 280,000 spans over the server's life",
    });
  });

  it('says the row ran untraced when the sink received nothing', () => {
    expect(formatTotal('postgres +tracing 10%', stats(0, 0, 0))).toEqual({
      line: "postgres +tracing 10%: the OTLP sink received nothing over the server's life",
      untraced:
        'postgres +tracing 10%: no traces reached the OTLP sink: the server exported none (a build without tracing ignores OTEL_*), so the row measured an untraced server',
    });
    expect(formatTotal('x', undefined)).toEqual({ line: 'x: the OTLP sink did not say what it received' });
  });
});

describe('bytes', () => {
  it('prints decimal units', () => {
    expect([0, 999, 1000, 12_345, 999_999, 1_000_000, 12_345_678].map(bytes)).toEqual([
      '0 B',
      '999 B',
      '1.0 kB',
      '12.3 kB',
      '1.0 MB',
      '1.0 MB',
      '12.3 MB',
    ]);
  });
});
