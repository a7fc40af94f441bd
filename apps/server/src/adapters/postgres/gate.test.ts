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

  describe('silence check', () => {
    /** A gate whose connections are operations that settle only when `cut` rejects them. */
    const silentGate = (probe: () => Promise<number>) => {
      const hanging: ((error: Error) => void)[] = [];
      let cuts = 0;
      const g = new PostgresGate({
        slots: 4,
        acquireTimeoutMs: 2_000,
        runTimeoutMs: 25_000,
        outageHoldMs: 3_000,
        logger: undefined,
        silence: {
          afterMs: 500,
          probe,
          cut: () => {
            cuts += 1;
            for (const reject of hanging.splice(0))
              reject(Object.assign(new Error('closed'), { code: 'CONNECTION_CLOSED' }));
            return 1;
          },
        },
      });
      const onConnection = () => new Promise<never>((_, reject) => hanging.push(reject));
      return { g, onConnection, cuts: () => cuts };
    };

    it('cuts the connections when a statement waits and the probe gets no answer either', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
      const { g, onConnection, cuts } = silentGate(never);
      let result: unknown;
      void g.run('caught in a partition', onConnection).then((r) => (result = codeOf(r)));
      await vi.advanceTimersByTimeAsync(900);
      expect(result).toBeUndefined();
      // waited 500 ms (checked every 125 ms), then the probe's 500 ms
      await vi.advanceTimersByTimeAsync(300);
      expect(result).toBe('CONNECTION_CLOSED');
      expect(cuts()).toBe(1);
      // and the gate is in its outage mode: a new operation gets the acquire timeout in all
      const next = g.run('during the partition', never);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(codeOf(await next)).toBe('QUERY_TIMEOUT');
      await g.close(new Error('closed'));
    });

    it('lets a slow statement run while the probe answers, probing again every afterMs', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
      let probes = 0;
      const { g, onConnection, cuts } = silentGate(() => ((probes += 1), Promise.resolve(Infinity)));
      let result: unknown;
      const slow = g.run('slow statement', onConnection).then((r) => (result = codeOf(r)));
      await vi.advanceTimersByTimeAsync(10_000);
      expect(result).toBeUndefined();
      expect(cuts()).toBe(0);
      expect(probes).toBeGreaterThanOrEqual(15);
      expect(probes).toBeLessThanOrEqual(20);
      // until the backstop
      await vi.advanceTimersByTimeAsync(15_000);
      await slow;
      expect(result).toBe('QUERY_TIMEOUT');
    });

    it('takes an SQL error from the probe for an answer, and a connection error for none', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
      const busy = silentGate(failWith('53300'));
      void busy.g.run('waits', busy.onConnection);
      await vi.advanceTimersByTimeAsync(1_000);
      // 53300 (too many connections) is an outage code: no answer
      expect(busy.cuts()).toBe(1);
      const answering = silentGate(failWith('57014'));
      void answering.g.run('waits', answering.onConnection);
      await vi.advanceTimersByTimeAsync(3_000);
      expect(answering.cuts()).toBe(0);
    });

    it('lets a statement run while the database shows one of ours running as long', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
      const started = performance.now();
      const { g, onConnection, cuts } = silentGate(() => Promise.resolve(performance.now() - started));
      let result: unknown;
      const slow = g.run('slow statement', onConnection).then((r) => (result = codeOf(r)));
      await vi.advanceTimersByTimeAsync(5_000);
      expect(result).toBeUndefined();
      expect(cuts()).toBe(0);
      await vi.advanceTimersByTimeAsync(20_000);
      await slow;
      expect(result).toBe('QUERY_TIMEOUT');
    });

    it('cuts when the database answers the probe but runs no statement of ours as old as one that waits', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
      // a statement of ours runs, but it began 100 ms ago: not the one waiting 500 ms
      const { g, onConnection, cuts } = silentGate(() => Promise.resolve(100));
      let result: unknown;
      void g.run('answer lost on a flapping link', onConnection).then((r) => (result = codeOf(r)));
      await vi.advanceTimersByTimeAsync(700);
      expect(result).toBe('CONNECTION_CLOSED');
      expect(cuts()).toBe(1);
    });

    it('does not probe while nothing waits', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
      let probes = 0;
      const { g } = silentGate(() => ((probes += 1), Promise.resolve(Infinity)));
      expect(E.isRight(await g.run('quick', () => Promise.resolve(1)))).toBe(true);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(probes).toBe(0);
    });
  });
});
