import * as E from 'fp-ts/lib/Either.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isOutage, PostgresGate } from './gate.js';

// The gate's time bounds, on a fake clock: work that never settles stands for a query the driver
// holds (a reconnect, a silent network). The database-backed cases are in outage.test.ts and in
// apps/torture's postgres-outage rounds.

const failWith = (code: string) => () => Promise.reject(Object.assign(new Error(`failed: ${code}`), { code }));
const never = () => new Promise<never>(() => undefined);
const codeOf = (result: E.Either<{ cause: unknown }, unknown>): unknown =>
  E.isLeft(result) ? (result.left.cause as { code?: unknown }).code : 'Right';

const gate = (slots = 4) =>
  new PostgresGate({ slots, acquireTimeoutMs: 1_000, runTimeoutMs: 25_000, outageHoldMs: 3_000, logger: undefined });

describe('PostgresGate', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets a healthy operation run until the backstop', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const g = gate();
    let settled = false;
    const slow = g.run('slow', never).then((r) => ((settled = true), r));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(codeOf(await slow)).toBe('QUERY_TIMEOUT');
  });

  it('after an outage error, ends every operation within the acquire timeout of its arrival, running ones included', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const g = gate();
    const started = g.run('in flight before the outage', never);
    await vi.advanceTimersByTimeAsync(600);
    const broken = await g.run('meets the outage', failWith('ECONNRESET'));
    expect(codeOf(broken)).toBe('ECONNRESET');
    // The operation that was running: cut at its arrival + 1 s, 400 ms from now (awaited without
    // moving the clock further, so a later cut would hang the test).
    let early: unknown;
    void started.then((r) => (early = codeOf(r)));
    await vi.advanceTimersByTimeAsync(399);
    expect(early).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(codeOf(await started)).toBe('QUERY_TIMEOUT');
    // A new one gets 1 s in all.
    const next = g.run('during the outage', never);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(codeOf(await next)).toBe('QUERY_TIMEOUT');
  });

  it('gives an operation outageBudgetMs from its arrival in outage mode, running ones included', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const g = new PostgresGate({
      slots: 4,
      acquireTimeoutMs: 1_000,
      outageBudgetMs: 500,
      runTimeoutMs: 25_000,
      outageHoldMs: 3_000,
      logger: undefined,
    });
    const before = g.run('in flight before the outage', never);
    await vi.advanceTimersByTimeAsync(300);
    await g.run('meets the outage', failWith('ECONNRESET'));
    let early: unknown;
    void before.then((r) => (early = codeOf(r)));
    await vi.advanceTimersByTimeAsync(199);
    expect(early).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(early).toBe('QUERY_TIMEOUT');
    let next: unknown;
    void g.run('during the outage', never).then((r) => (next = codeOf(r)));
    await vi.advanceTimersByTimeAsync(499);
    expect(next).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(next).toBe('QUERY_TIMEOUT');
  });

  it('counts a write batch from its first write (since), waiting for a slot included', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const g = gate(1);
    expect(codeOf(await g.run('outage', failWith('CONNECTION_CLOSED')))).toBe('CONNECTION_CLOSED');
    const holder = g.run('holds the only slot', never);
    const since = performance.now() - 700;
    let waited: unknown;
    void g.run('batch', never, { since }).then((r) => (waited = codeOf(r)));
    await vi.advanceTimersByTimeAsync(300);
    expect(waited).toBe('ACQUIRE_TIMEOUT');
    await vi.advanceTimersByTimeAsync(700);
    expect(codeOf(await holder)).toBe('QUERY_TIMEOUT');
  });

  it('stays in outage mode through successes, and leaves it outageHoldMs after the last outage error', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const g = gate();
    await g.run('outage', failWith('57P01'));
    expect(E.isRight(await g.run('one connection answers', () => Promise.resolve(1)))).toBe(true);
    const meanwhile = g.run('another hangs connecting', never);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(codeOf(await meanwhile)).toBe('QUERY_TIMEOUT');
    await vi.advanceTimersByTimeAsync(2_000);
    let settled = false;
    const slow = g.run('slow but healthy', never).then((r) => ((settled = true), r));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(codeOf(await slow)).toBe('QUERY_TIMEOUT');
  });

  it('counts the operations that failed with an outage error (the readiness ping reads it)', async () => {
    const g = gate();
    await g.run('slow statement', failWith('57014'));
    expect(g.outageErrors).toBe(0);
    await g.run('dropped', failWith('ECONNRESET'));
    await g.run('refused', failWith('ECONNREFUSED'));
    expect(g.outageErrors).toBe(2);
  });

  it('does not take a slow statement or a full pool for an outage', () => {
    for (const code of ['57014', 'ACQUIRE_TIMEOUT', 'QUERY_TIMEOUT', '23505', '40001', undefined])
      expect(isOutage(code)).toBe(false);
    for (const code of ['ECONNREFUSED', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT', '08006', '57P01', '57P03', '53300'])
      expect(isOutage(code)).toBe(true);
  });
});
