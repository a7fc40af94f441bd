import { describe, expect, it } from 'vitest';
import { RouteTable } from './route-table.js';

describe('RouteTable', () => {
  it('counts requests by method, route and status once, handing each count over one time', () => {
    const table = new RouteTable([0.01, 0.1]);
    table.record('GET', '/plants/{id}', 200, 0.001);
    table.record('GET', '/plants/{id}', 200, 0.002);
    table.record('GET', '/plants/{id}', 404, 0.003);
    table.record('POST', '/plants', 201, 0.05);
    const drained: unknown[] = [];
    table.drainCounts((...args) => drained.push(args));
    expect(drained).toEqual([
      ['GET', '/plants/{id}', 200, 2],
      ['GET', '/plants/{id}', 404, 1],
      ['POST', '/plants', 201, 1],
    ]);
    const again: unknown[] = [];
    table.drainCounts((...args) => again.push(args));
    expect(again).toEqual([]);
  });

  it('gives cumulative buckets (a value on a bound falls in it), the sum and the count', () => {
    const table = new RouteTable([0.01, 0.1]);
    for (const seconds of [0.005, 0.01, 0.05, 3]) table.record('GET', '/plants', 200, seconds);
    const labels = { method: 'GET', route: '/plants' };
    expect(table.histogramValues('d')).toEqual([
      { metricName: 'd_bucket', labels: { le: 0.01, ...labels }, value: 2 },
      { metricName: 'd_bucket', labels: { le: 0.1, ...labels }, value: 3 },
      { metricName: 'd_bucket', labels: { le: '+Inf', ...labels }, value: 4 },
      { metricName: 'd_sum', labels, value: 3.065 },
      { metricName: 'd_count', labels, value: 4 },
    ]);
    table.resetHistogram();
    expect(table.histogramValues('d').at(-1)).toEqual({ metricName: 'd_count', labels, value: 0 });
  });
});
