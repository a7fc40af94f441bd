import { describe, expect, it, vi } from 'vitest';
import { createLifecycle } from './lifecycle.js';
import { createServerState, type Listener } from './server-state.js';
import type { ShutdownOutcome } from './shutdown.js';
import { StartFailed } from './start-step.js';
import { capturedLogger } from '../test/support/captured-logger.js';

/**
 * The transitions of a serving process, over a real lifecycle with a stand-in store and listener
 * (the real process is exercised by test/http/process.test.ts and apps/e2e/test/workers.e2e.test.ts).
 */
const setUp = () => {
  const { lines, logger } = capturedLogger('debug');
  const lifecycle = createLifecycle(logger);
  const exit = vi.fn<(code: number) => void>();
  const state = createServerState({ lifecycle, logger, shutdownTimeoutMs: 7_000, exit });
  /** What closed, in order: the store is added first, as main.ts adds it. */
  const closed: string[] = [];
  lifecycle.add('store', () => void closed.push('store'));
  /** The listener joins the lifecycle as main.ts adds it; its drain runs once (drainOnce). */
  const listen = (outcome: ShutdownOutcome = 'drained'): Listener & { readonly runs: () => number } => {
    let runs = 0;
    let drained: Promise<ShutdownOutcome> | undefined;
    const drain = (): Promise<ShutdownOutcome> => {
      drained ??= (async () => {
        runs += 1;
        closed.push('listener');
        return outcome;
      })();
      return drained;
    };
    lifecycle.add('HTTP listener', async () => {
      await drain();
    });
    return { drain, runs: () => runs };
  };
  /** Resolves once the lifecycle closed and the process ended. */
  const ended = () => vi.waitFor(() => expect(exit).toHaveBeenCalled());
  const messages = () => lines.map((line) => line['msg']);
  return { state, lifecycle, exit, lines, closed, listen, ended, messages };
};

const thrownBy = (run: () => void): unknown => {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
};

describe('createServerState', () => {
  it('serving, a stop request: readiness turns at once, the listener drains first, the store closes last, exit 0', async () => {
    const { state, exit, lines, closed, listen, ended, messages } = setUp();
    const listener = listen();
    state.listening(listener);
    expect(state.current().phase).toBe('serving');
    expect(state.isShuttingDown()).toBe(false);

    state.requestStop('SIGTERM');
    expect(state.isShuttingDown()).toBe(true);
    expect(state.current()).toMatchObject({ phase: 'stopping', ending: { kind: 'stop' } });
    expect(closed).toEqual(['listener']); // the drain starts with the request
    await ended();
    expect(closed).toEqual(['listener', 'store']);
    expect(listener.runs()).toBe(1);
    expect(lines.find((line) => line['msg'] === 'shutting down')).toMatchObject({
      reason: 'SIGTERM',
      timeoutMs: 7_000,
    });
    expect(messages().at(-1)).toBe('stopped');
    expect(lines.at(-1)).toMatchObject({ outcome: 'drained' });
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
  });

  it('exits 1 when the drain had to cut connections', async () => {
    const { state, exit, lines, listen, ended } = setUp();
    state.listening(listen('cut'));
    state.requestStop('SIGINT');
    await ended();
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped', outcome: 'cut' });
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });

  it('takes the same request again as one: one drain, one exit, a debug line', async () => {
    const { state, exit, lines, listen, ended, messages } = setUp();
    const listener = listen();
    state.listening(listener);
    state.requestStop('ipc');
    state.requestStop('SIGINT');
    await ended();
    state.requestStop('SIGTERM');
    expect(listener.runs()).toBe(1);
    expect(messages().filter((msg) => msg === 'shutting down')).toHaveLength(1);
    expect(lines.filter((line) => line['msg'] === 'shutdown already in progress')).toMatchObject([
      { level: 20, reason: 'SIGINT' },
      { level: 20, reason: 'SIGTERM' },
    ]);
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
  });

  it('asked to stop while starting: start-up stops at its next checkpoint, what started closes, exit 0', async () => {
    const { state, exit, lines, closed, ended, messages } = setUp();
    expect(() => state.checkpoint()).not.toThrow();
    state.requestStop('ipc');
    expect(state.current().phase).toBe('cancelled');
    expect(state.isShuttingDown()).toBe(true);
    expect(closed).toEqual([]); // nothing closes under a start-up step still running
    state.requestStop('SIGINT'); // the same request: still cancelled, said at debug
    expect(state.current().phase).toBe('cancelled');
    expect(lines.at(-1)).toMatchObject({ level: 20, msg: 'shutdown already in progress', reason: 'SIGINT' });
    state.startEnded(thrownBy(() => state.checkpoint()));
    await ended();
    expect(closed).toEqual(['store']);
    expect(lines.find((line) => line['msg'] === 'shutdown requested while starting')).toMatchObject({
      level: 30,
      reason: 'ipc',
    });
    expect(messages()).not.toContain('shutting down');
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped', outcome: 'drained' });
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
  });

  it('asked to stop while it was binding its port: once listening, the listener drains, exit 0', async () => {
    const { state, exit, closed, listen, ended } = setUp();
    state.requestStop('SIGTERM');
    const listener = listen('cut');
    state.listening(listener);
    expect(state.current().phase).toBe('stopping');
    await ended();
    expect(closed).toEqual(['listener', 'store']);
    expect(listener.runs()).toBe(1);
    expect(exit).toHaveBeenCalledExactlyOnceWith(1); // the drain's outcome decides, as for any stop
  });

  it('a failed step: everything started closes, then its fatal line with the cause and fields, exit 1', async () => {
    const { state, exit, lines, closed, ended } = setUp();
    const cause = new Error('connect ECONNREFUSED');
    state.startEnded(new StartFailed('could not open the rate limiter', cause, { rateLimitStore: 'redis' }));
    expect(state.isShuttingDown()).toBe(true);
    state.requestStop('SIGTERM'); // a signal while it closes changes nothing
    await ended();
    expect(closed).toEqual(['store']);
    expect(lines.at(-1)).toMatchObject({
      level: 60,
      msg: 'could not open the rate limiter',
      rateLimitStore: 'redis',
      err: { message: 'connect ECONNREFUSED' },
    });
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });

  it('a failed step after a stop request still ends as a failure', async () => {
    const { state, exit, lines, ended } = setUp();
    state.requestStop('ipc');
    state.startEnded(new StartFailed('could not listen', new Error('EADDRINUSE')));
    await ended();
    expect(lines.at(-1)).toMatchObject({ level: 60, msg: 'could not listen' });
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });

  it('a defect thrown during start-up is the fatal line "could not start"', async () => {
    const { state, exit, lines, ended } = setUp();
    state.startEnded(new TypeError('bad invariant'));
    await ended();
    expect(lines.at(-1)).toMatchObject({ level: 60, msg: 'could not start', err: { message: 'bad invariant' } });
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });

  it('a component that fails to close: "shutdown failed", exit 1, the rest still closed', async () => {
    const { state, lifecycle, exit, lines, closed, listen, ended } = setUp();
    lifecycle.add('webhook dispatcher', () => Promise.reject(new Error('stuck')));
    state.listening(listen());
    state.requestStop('SIGTERM');
    await ended();
    expect(closed).toEqual(['listener', 'store']);
    expect(lines.map((line) => [line['level'], line['msg']]).slice(-2)).toEqual([
      [50, 'could not close the webhook dispatcher'],
      [60, 'shutdown failed'],
    ]);
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });

  it('listening twice is a defect', () => {
    const { state, listen } = setUp();
    state.listening(listen());
    expect(() => state.listening(listen())).toThrow(TypeError);
  });
});
