import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseConfig, type BenchConfig } from './config.js';
import { compact, helperLifetimeSeconds, planStores, type PlanContext } from './plans.js';

const configOf = (env: Record<string, string>): BenchConfig => {
  const config = parseConfig(env);
  if (E.isLeft(config)) throw new TypeError(config.left.join('; '));
  return config.right;
};

const ctx: PlanContext = {
  work: '/nonexistent',
  serverCore: undefined,
  receiverCore: undefined,
  profileDir: undefined,
  log: () => undefined,
  warn: () => undefined,
  notes: {},
  skipped: [],
};

describe('planStores', () => {
  it('runs patch beside the other scenarios on the ceiling, sqlite FULL and postgres, and the tag page on none of them', () => {
    const plans = planStores(configOf({ BENCH_STORES: 'ceiling,sqlite,postgres' }), ctx);
    const all = ['create', 'create-delete', 'get', 'patch', 'list', 'latency'];
    expect(plans.map((p) => [p.name, p.label, p.scenarios, p.tagged])).toEqual(
      ['ceiling', 'sqlite', 'postgres'].map((name) => [
        name,
        name === 'sqlite' ? 'sqlite FULL' : name,
        // Arrays of creates (POST /plants/batch) on our servers only.
        name === 'ceiling' ? all : [...all, 'create-batch'],
        undefined,
      ]),
    );
  });

  it('plans a tagged store of each size on each technology, running the tag, search, sort and count pages', () => {
    const plans = planStores(
      configOf({ BENCH_STORES: 'sqlite-tag-small,sqlite-tag-large,postgres-tag-small,postgres-tag-large' }),
      ctx,
    );
    const tagged = ['list-tag', 'list-name', 'list-name-desc', 'list-id-desc', 'list-q', 'count', 'count-tag'];
    expect(plans.map((p) => [p.name, p.label, p.scenarios, p.tagged])).toEqual([
      ['sqlite-tag-small', 'sqlite FULL 10k', tagged, { size: 10_000 }],
      ['sqlite-tag-large', 'sqlite FULL 1M', tagged, { size: 1_000_000 }],
      ['postgres-tag-small', 'postgres 10k', tagged, { size: 10_000 }],
      ['postgres-tag-large', 'postgres 1M', tagged, { size: 1_000_000 }],
    ]);
  });

  it('plans another build beside ours on each store only with BENCH_BASELINE_DIR', () => {
    const stores = 'sqlite,sqlite-baseline,postgres,postgres-baseline';
    const all = ['create', 'create-delete', 'get', 'patch', 'list', 'latency'];
    expect(planStores(configOf({ BENCH_STORES: stores }), ctx).map((p) => p.name)).toEqual(['sqlite', 'postgres']);
    const plans = planStores(configOf({ BENCH_STORES: stores, BENCH_BASELINE_DIR: '/tmp/before/apps/server' }), ctx);
    // Another build may not have POST /plants/batch: it runs what every build has.
    expect(plans.map((p) => [p.name, p.label, p.scenarios])).toEqual([
      ['sqlite', 'sqlite FULL', [...all, 'create-batch']],
      ['sqlite-baseline', 'sqlite FULL baseline', all],
      ['postgres', 'postgres', [...all, 'create-batch']],
      ['postgres-baseline', 'postgres baseline', all],
    ]);
  });

  it('plans another build with a webhook endpoint and on the smaller tagged stores only with BENCH_BASELINE_DIR', () => {
    const stores =
      'sqlite-webhook,sqlite-webhook-baseline,sqlite-tag-small,sqlite-tag-baseline,postgres-tag-small,postgres-tag-baseline';
    expect(planStores(configOf({ BENCH_STORES: stores }), ctx).map((p) => p.name)).toEqual([
      'sqlite-webhook',
      'sqlite-tag-small',
      'postgres-tag-small',
    ]);
    const tagged = ['list-tag', 'list-name', 'list-name-desc', 'list-id-desc', 'list-q', 'count', 'count-tag'];
    const plans = planStores(configOf({ BENCH_STORES: stores, BENCH_BASELINE_DIR: '/tmp/before/apps/server' }), ctx);
    expect(plans.map((p) => [p.name, p.label, p.scenarios, p.tagged])).toEqual([
      ['sqlite-webhook', 'sqlite FULL +webhook', ['create'], undefined],
      ['sqlite-webhook-baseline', 'sqlite FULL +webhook baseline', ['create'], undefined],
      ['sqlite-tag-small', 'sqlite FULL 10k', tagged, { size: 10_000 }],
      ['sqlite-tag-baseline', 'sqlite FULL 10k baseline', tagged, { size: 10_000 }],
      ['postgres-tag-small', 'postgres 10k', tagged, { size: 10_000 }],
      ['postgres-tag-baseline', 'postgres 10k baseline', tagged, { size: 10_000 }],
    ]);
  });

  it('plans the peers beside our rows, each running what the rows of its store run', () => {
    const plans = planStores(
      configOf({ BENCH_STORES: 'ceiling,koa-minimal,fastify-sqlite,sqlite,sqlite-normal,fastify-postgres,postgres' }),
      ctx,
    );
    const all = ['create', 'create-delete', 'get', 'patch', 'list', 'latency'];
    expect(plans.map((p) => [p.name, p.label, p.scenarios])).toEqual([
      ['ceiling', 'ceiling', all],
      ['koa-minimal', 'koa minimal NORMAL', [...all, 'create-delete-1', 'get-1']],
      ['fastify-sqlite', 'fastify sqlite NORMAL', [...all, 'create-delete-1', 'get-1']],
      ['sqlite', 'sqlite FULL', [...all, 'create-batch']],
      ['sqlite-normal', 'sqlite NORMAL', ['create', 'create-delete', 'latency', 'create-delete-1', 'get-1']],
      ['fastify-postgres', 'fastify postgres', all],
      ['postgres', 'postgres', [...all, 'create-batch']],
    ]);
  });

  it('plans each traced store as our server of its kind, running create, get and create 1 conn', () => {
    const plans = planStores(
      configOf({ BENCH_STORES: 'postgres-traced-ratio,sqlite-traced,postgres-traced,sqlite-traced-ratio' }),
      ctx,
    );
    const traced = ['create', 'get', 'latency'];
    expect(plans.map((p) => [p.name, p.label, p.scenarios])).toEqual([
      ['sqlite-traced', 'sqlite FULL +tracing', traced],
      ['sqlite-traced-ratio', 'sqlite FULL +tracing 10%', traced],
      ['postgres-traced', 'postgres +tracing', traced],
      ['postgres-traced-ratio', 'postgres +tracing 10%', traced],
    ]);
  });

  it('sizes the tagged stores from BENCH_TAG_SIZES', () => {
    const plans = planStores(
      configOf({ BENCH_STORES: 'sqlite-tag-small,sqlite-tag-large', BENCH_TAG_SIZES: '2500,5000000' }),
      ctx,
    );
    expect(plans.map((p) => [p.label, p.tagged?.size])).toEqual([
      ['sqlite FULL 2.5k', 2500],
      ['sqlite FULL 5M', 5_000_000],
    ]);
  });
});

describe('helperLifetimeSeconds', () => {
  it('outlasts every run the bench could make, each followed by a full drain', () => {
    const config = configOf({ BENCH_STORES: 'sqlite,sqlite-webhook', BENCH_SCENARIOS: 'create,get,latency' });
    // 1 round × 3 scenarios × 2 stores, each twice (reruns), and 3 side-by-side runs × 2 stores × 2.
    const runs = 3 * 2 * 2 + 3 * 2 * 2;
    expect(helperLifetimeSeconds(config)).toBe(runs * (2 + 8 + 60 + 5) + 600);
  });
});

describe('compact', () => {
  it('shortens thousands and millions for labels', () => {
    expect([999, 1000, 2500, 10_000, 1_000_000, 5_500_000].map(compact)).toEqual([
      '999',
      '1k',
      '2.5k',
      '10k',
      '1M',
      '5.5M',
    ]);
  });
});
