import { describe, expect, it } from 'vitest';
import { percentile, summarize } from './scenarios.js';

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
