import { percentile } from './scenarios.js';

/**
 * The responses of one load run, as the data bench's load driver (src/data-load.ts) records them:
 * for each, when it ended (milliseconds since the epoch, `performance.timeOrigin + now()`, which
 * two processes on one machine share to well under a millisecond) and how long it took (ms).
 */
export interface Timeline {
  readonly ends: Float64Array;
  readonly latencies: Float64Array;
}

/** The file the driver writes: pairs (end, latency), one per response, as little-endian doubles. */
export const encodeTimeline = (timeline: Timeline): Buffer => {
  const n = timeline.ends.length;
  const pairs = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) {
    pairs[2 * i] = timeline.ends[i] as number;
    pairs[2 * i + 1] = timeline.latencies[i] as number;
  }
  return Buffer.from(pairs.buffer, pairs.byteOffset, pairs.byteLength);
};

export const decodeTimeline = (bytes: Uint8Array): Timeline => {
  if (bytes.byteLength % 16 !== 0) throw new TypeError(`a timeline is pairs of doubles, got ${bytes.byteLength} bytes`);
  // Copied: the Buffer's offset in its pool need not be a multiple of 8.
  const pairs = new Float64Array(new Uint8Array(bytes).buffer);
  const n = pairs.length / 2;
  const ends = new Float64Array(n);
  const latencies = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    ends[i] = pairs[2 * i] as number;
    latencies[i] = pairs[2 * i + 1] as number;
  }
  return { ends, latencies };
};

/** What the load did in a window of time. */
export interface WindowStats {
  readonly seconds: number;
  /** Responses that ended inside the window. */
  readonly responses: number;
  /** responses / seconds. */
  readonly rps: number;
  /**
   * Over every request that was in flight at some point of the window (sent before its end,
   * answered after its start), so a request the window stalled counts even if answered after it: ms.
   */
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** The stats of the window [from, to) (ms since the epoch). */
export const windowStats = (timeline: Timeline, from: number, to: number): WindowStats => {
  const seconds = Math.max(0, to - from) / 1000;
  let responses = 0;
  const overlapping: number[] = [];
  for (let i = 0; i < timeline.ends.length; i++) {
    const end = timeline.ends[i] as number;
    const latency = timeline.latencies[i] as number;
    if (end >= from && end < to) responses++;
    if (end >= from && end - latency < to) overlapping.push(latency);
  }
  const sorted = Float64Array.from(overlapping).sort();
  return {
    seconds,
    responses,
    rps: seconds > 0 ? responses / seconds : 0,
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length === 0 ? 0 : (sorted[sorted.length - 1] as number),
  };
};
