import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeDisk, summarizeSyncs } from './disk-probe.js';

describe('summarizeSyncs', () => {
  it('takes nearest-rank percentiles', () => {
    const millis = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted
    expect(summarizeSyncs(millis)).toEqual({ syncs: 100, p50Ms: 50, p99Ms: 99, maxMs: 100 });
    expect(summarizeSyncs([])).toEqual({ syncs: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 });
  });
});

describe('probeDisk', () => {
  it('syncs a scratch file for the time asked and leaves nothing behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plant-probe-'));
    try {
      const probe = probeDisk(dir, 0.2);
      expect(probe.syncs).toBeGreaterThan(0);
      expect(probe.p50Ms).toBeLessThanOrEqual(probe.p99Ms);
      expect(probe.p99Ms).toBeLessThanOrEqual(probe.maxMs);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
