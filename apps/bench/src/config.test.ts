import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';

describe('parseConfig', () => {
  it('has the documented defaults', () => {
    expect(parseConfig({})).toEqual({
      _tag: 'Right',
      right: {
        seconds: 8,
        warmupSeconds: 2,
        rounds: 1,
        sideBySide: 3,
        budgetSeconds: 640,
        connections: 50,
        preload: 5_000_000,
        seed: 1000,
        tagSizes: [10_000, 1_000_000],
        keys: 'ordered',
        stores: [
          'ceiling',
          'koa-minimal',
          'fastify-sqlite',
          'sqlite',
          'sqlite-preloaded',
          'sqlite-normal',
          'sqlite-metrics',
          'sqlite-keyed',
          'sqlite-webhook',
          'fastify-postgres',
          'postgres',
        ],
        scenarios: [
          'create',
          'create-delete',
          'get',
          'patch',
          'list',
          'list-tag',
          'latency',
          'create-delete-1',
          'get-1',
          'list-name',
          'list-name-desc',
          'list-id-desc',
          'list-q',
          'count',
          'count-tag',
          'create-batch',
        ],
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
    const config = parseConfig({
      BENCH_SECONDS: '3',
      BENCH_PRELOAD: '1_000_000',
      BENCH_STORES: 'sqlite, ceiling',
      BENCH_PIN: 'off',
    });
    expect(E.isRight(config) && config.right).toMatchObject({
      seconds: 3,
      preload: 1_000_000,
      stores: ['ceiling', 'sqlite'],
      pin: false,
    });
  });

  it('runs the baseline row only when asked for, from the folder named', () => {
    const config = parseConfig({
      BENCH_STORES: 'sqlite-baseline,sqlite',
      BENCH_BASELINE_DIR: '/tmp/before/apps/server',
    });
    expect(E.isRight(config) && config.right).toMatchObject({
      stores: ['sqlite', 'sqlite-baseline'],
      baselineDir: '/tmp/before/apps/server',
    });
  });

  it('runs the tagged stores when named, at the sizes BENCH_TAG_SIZES gives', () => {
    const config = parseConfig({
      BENCH_STORES: 'postgres-tag-large,sqlite-tag-small,sqlite',
      BENCH_TAG_SIZES: '20_000, 2000000',
      BENCH_SCENARIOS: 'list-tag,patch',
    });
    expect(E.isRight(config) && config.right).toMatchObject({
      stores: ['sqlite', 'sqlite-tag-small', 'postgres-tag-large'],
      tagSizes: [20_000, 2_000_000],
      scenarios: ['patch', 'list-tag'],
    });
  });

  it('runs the traced stores only when named, in their places in the table', () => {
    const config = parseConfig({
      BENCH_STORES: 'postgres-traced-ratio,postgres-traced,postgres,sqlite-traced-ratio,sqlite-traced,sqlite',
    });
    expect(E.isRight(config) && config.right.stores).toEqual([
      'sqlite',
      'sqlite-traced',
      'sqlite-traced-ratio',
      'postgres',
      'postgres-traced',
      'postgres-traced-ratio',
    ]);
  });

  it('wants two tag sizes, the smaller first, each large enough for a full page after some cursor', () => {
    for (const sizes of [
      '10000',
      '1000000,10000',
      '10000,10000',
      '1999,1000000',
      '10000,1000000,2000000',
      '10k,1M',
      '10000,200000000',
    ]) {
      const config = parseConfig({ BENCH_TAG_SIZES: sizes });
      expect(E.isLeft(config) && config.left.join('\n')).toContain('BENCH_TAG_SIZES');
    }
    expect(parseConfig({ BENCH_TAG_SIZES: '2000,3000' })._tag).toBe('Right');
  });

  it('runs the peers by name, each in its place in the table', () => {
    const config = parseConfig({
      BENCH_STORES: 'postgres,fastify-postgres,sqlite-normal,fastify-sqlite,koa-minimal,ceiling',
    });
    expect(E.isRight(config) && config.right.stores).toEqual([
      'ceiling',
      'koa-minimal',
      'fastify-sqlite',
      'sqlite-normal',
      'fastify-postgres',
      'postgres',
    ]);
    expect(parseConfig({ BENCH_STORES: 'fastify' })._tag).toBe('Left');
  });

  it('reads the 1-connection scenarios beside latency (create with one connection)', () => {
    const config = parseConfig({ BENCH_SCENARIOS: 'get-1,latency,create-delete-1,create' });
    expect(E.isRight(config) && config.right.scenarios).toEqual(['create', 'latency', 'create-delete-1', 'get-1']);
    const bad = parseConfig({ BENCH_SCENARIOS: 'get-50' });
    expect(E.isLeft(bad) && bad.left.join('\n')).toContain('get-1');
  });

  it('names every bad variable', () => {
    const config = parseConfig({ BENCH_SECONDS: '0', BENCH_CONNECTIONS: 'many', BENCH_STORES: 'mysql' });
    expect(config._tag).toBe('Left');
    const text = E.isLeft(config) ? config.left.join('\n') : '';
    expect(text).toContain('BENCH_SECONDS');
    expect(text).toContain('BENCH_CONNECTIONS');
    expect(text).toContain('BENCH_STORES');
  });
});
