import { describe, expect, it } from 'vitest';
import { parseConfig, STORES } from './config.js';

describe('parseConfig', () => {
  it('has the documented defaults', () => {
    expect(parseConfig({})).toEqual({
      _tag: 'Right',
      right: {
        seconds: 8,
        warmupSeconds: 2,
        rounds: 1,
        sideBySide: 3,
        budgetSeconds: 255,
        connections: 50,
        preload: 5_000_000,
        seed: 1000,
        keys: 'ordered',
        stores: STORES.filter((s) => s !== 'sqlite-baseline'),
        scenarios: ['create', 'create-delete', 'get', 'list', 'latency'],
        pgAdminUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
        baselineDir: undefined,
        pin: true,
        cpuProfile: false,
        logLevel: 'warn',
        load: 'auto',
      },
    });
  });

  it('reads the knobs, keeping the store order fixed', () => {
    const config = parseConfig({ BENCH_SECONDS: '3', BENCH_PRELOAD: '1_000_000', BENCH_STORES: 'sqlite, ceiling', BENCH_PIN: 'off' });
    expect(config._tag === 'Right' && config.right).toMatchObject({ seconds: 3, preload: 1_000_000, stores: ['ceiling', 'sqlite'], pin: false });
  });

  it('runs the baseline row only when asked for, from the folder named', () => {
    const config = parseConfig({ BENCH_STORES: 'sqlite-baseline,sqlite', BENCH_BASELINE_DIR: '/tmp/before/apps/server' });
    expect(config._tag === 'Right' && config.right).toMatchObject({ stores: ['sqlite', 'sqlite-baseline'], baselineDir: '/tmp/before/apps/server' });
  });

  it('names every bad variable', () => {
    const config = parseConfig({ BENCH_SECONDS: '0', BENCH_CONNECTIONS: 'many', BENCH_STORES: 'mysql' });
    expect(config._tag).toBe('Left');
    const text = config._tag === 'Left' ? config.left.join('\n') : '';
    expect(text).toContain('BENCH_SECONDS');
    expect(text).toContain('BENCH_CONNECTIONS');
    expect(text).toContain('BENCH_STORES');
  });
});
