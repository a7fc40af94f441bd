import { describe, expect, it } from 'vitest';
import { decodeTimeline, encodeTimeline, windowStats, type Timeline } from './data-windows.js';

const timeline = (pairs: readonly (readonly [number, number])[]): Timeline => ({
  ends: Float64Array.from(pairs.map(([end]) => end)),
  latencies: Float64Array.from(pairs.map(([, latency]) => latency)),
});

describe('encodeTimeline', () => {
  it('round-trips through decodeTimeline, sub-millisecond times kept', () => {
    const original = timeline([
      [1_764_000_000_123.456, 1.25],
      [1_764_000_000_124.5, 0.0625],
    ]);
    const decoded = decodeTimeline(encodeTimeline(original));
    expect(Array.from(decoded.ends)).toEqual(Array.from(original.ends));
    expect(Array.from(decoded.latencies)).toEqual(Array.from(original.latencies));
  });

  it('reads a file at any offset of a pooled buffer', () => {
    const bytes = encodeTimeline(timeline([[10, 2]]));
    const shifted = Buffer.concat([Buffer.from([0]), bytes]).subarray(1);
    expect(Array.from(decodeTimeline(shifted).ends)).toEqual([10]);
  });

  it('refuses a file that is not whole pairs', () => {
    expect(() => decodeTimeline(new Uint8Array(24))).toThrow(TypeError);
  });
});

describe('windowStats', () => {
  it('counts the responses that ended inside the window, per second', () => {
    const stats = windowStats(
      timeline([
        [999, 1],
        [1000, 1],
        [1500, 1],
        [2999, 1],
        [3000, 1],
      ]),
      1000,
      3000,
    );
    expect(stats).toMatchObject({ seconds: 2, responses: 3, rps: 1.5 });
  });

  it('takes the slowest request in flight during the window, even one answered after it', () => {
    const stats = windowStats(
      timeline([
        [900, 5], // over before the window
        [1200, 400], // sent before the window, answered in it
        [3600, 900], // sent in the window (at 2700), answered after it
        [4200, 1000], // sent after the window
      ]),
      1000,
      3000,
    );
    expect(stats.maxMs).toBe(900);
    expect(stats.responses).toBe(1);
  });

  it('gives zeros for an empty window', () => {
    expect(windowStats(timeline([]), 0, 1000)).toEqual({ seconds: 1, responses: 0, rps: 0, p99Ms: 0, maxMs: 0 });
    expect(windowStats(timeline([[5, 1]]), 10, 10).rps).toBe(0);
  });
});
