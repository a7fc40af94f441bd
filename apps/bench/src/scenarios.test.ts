import { describe, expect, it } from 'vitest';
import { DriverSpec, percentile, SCENARIOS, summarize } from './scenarios.js';

describe('percentile', () => {
  it('takes the nearest rank of an ascending array', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });
});

describe('summarize', () => {
  it('sorts a copy and reports sub-millisecond percentiles', () => {
    const samples = Float64Array.from([0.4, 0.1, 0.3, 0.2, 5]);
    expect(summarize(samples)).toEqual({ p50: 0.3, p90: 5, p99: 5, max: 5, mean: 1.2 });
    expect(Array.from(samples)).toEqual([0.4, 0.1, 0.3, 0.2, 5]);
  });
});

describe('SCENARIOS', () => {
  it('expects a 200 for every patch and tag page', () => {
    expect(SCENARIOS.patch).toMatchObject({ label: 'patch', expected: [200], creates: false });
    expect(SCENARIOS['list-tag']).toMatchObject({ label: 'list tag 100', expected: [200], creates: false });
  });
});

describe('the 1-connection scenarios', () => {
  it('send the requests of their 50-connection scenario over one connection', () => {
    expect(
      Object.values(SCENARIOS)
        .filter((s) => s.oneConnection)
        .map((s) => [s.kind, s.label, s.requests, s.expected, s.creates]),
    ).toEqual([
      ['latency', 'create 1 conn', 'create', [201], true],
      ['create-delete-1', 'create+delete 1 conn', 'create-delete', [201, 204], true],
      ['get-1', 'get 1 conn', 'get', [200], false],
      ['count', 'count 1 conn', 'counted', [200], false],
      ['count-tag', 'count tag 1 conn', 'counted', [200], false],
    ]);
    expect(SCENARIOS['create-delete']).toMatchObject({ oneConnection: false, requests: 'create-delete' });
  });
});

describe('DriverSpec', () => {
  const spec = {
    generator: 'wrk',
    kind: 'list-tag',
    url: 'http://127.0.0.1:1',
    token: 'x',
    connections: 50,
    warmupSeconds: 2,
    seconds: 8,
    firstId: 1,
    seedFrom: 1,
    seedTo: 10_000,
    tagPage: { tag: 'tag-0', lastCursor: 9000 },
    paths: null,
    idempotencyKeys: 'none',
  };

  it('carries the tag page, or null for the other scenarios', () => {
    expect(DriverSpec.decode(spec)).toEqual({ _tag: 'Right', right: spec });
    expect(DriverSpec.decode({ ...spec, kind: 'patch', tagPage: null })._tag).toBe('Right');
    expect(DriverSpec.decode({ ...spec, tagPage: { tag: 'tag-0', lastCursor: -1 } })._tag).toBe('Left');
    expect(DriverSpec.decode({ ...spec, tagPage: undefined })._tag).toBe('Left');
  });
});
