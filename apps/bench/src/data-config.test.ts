import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseDataConfig } from './data-config.js';

describe('parseDataConfig', () => {
  it('has the documented defaults', () => {
    expect(parseDataConfig({})).toEqual({
      _tag: 'Right',
      right: {
        plants: 1_000_000,
        commandTimeoutSeconds: 600,
        connections: 50,
        warmupSeconds: 2,
        beforeSeconds: 8,
        pgAdminUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
        pin: true,
        logLevel: 'warn',
        backupCore: 'load',
      },
    });
  });

  it('reads the store size with separators, and the load bench knobs it shares', () => {
    const config = parseDataConfig({
      BENCH_DATA_PLANTS: '2_000_000',
      BENCH_CONNECTIONS: '100',
      BENCH_SECONDS: '5',
      BENCH_PIN: 'off',
      BENCH_DATA_BACKUP_CORE: 'any',
      BENCH_STORES: 'sqlite',
    });
    expect(E.isRight(config) && config.right).toMatchObject({
      plants: 2_000_000,
      connections: 100,
      beforeSeconds: 5,
      pin: false,
      backupCore: 'any',
    });
  });

  it('names every bad variable', () => {
    const config = parseDataConfig({ BENCH_DATA_PLANTS: '1M', BENCH_DATA_TIMEOUT: '5', BENCH_DATA_BACKUP_CORE: 'two' });
    const text = E.isLeft(config) ? config.left.join('\n') : '';
    expect(text).toContain('BENCH_DATA_PLANTS');
    expect(text).toContain('BENCH_DATA_TIMEOUT');
    expect(text).toContain('BENCH_DATA_BACKUP_CORE');
  });
});
