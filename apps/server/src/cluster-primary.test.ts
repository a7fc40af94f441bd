import { EventEmitter } from 'node:events';
import type { Cluster } from 'node:cluster';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isShutdownMessage, SHUTDOWN_MESSAGE, startPrimary } from './cluster-primary.js';
import { capturedLogger } from '../test/support/captured-logger.js';

/**
 * The primary's supervision rules over a stand-in for node:cluster (real forks are exercised by
 * apps/e2e/test/workers.e2e.test.ts): which worker is forked, asked to stop, restarted or killed.
 */
class FakeWorker extends EventEmitter {
  readonly sent: unknown[] = [];
  readonly killedWith: string[] = [];
  connected = true;
  readonly process: { pid: number; kill: (signal: string) => void };
  constructor(readonly id: number) {
    super();
    this.process = { pid: 1000 + id, kill: (signal) => void this.killedWith.push(signal) };
  }
  isConnected(): boolean {
    return this.connected;
  }
  send(message: unknown): boolean {
    this.sent.push(message);
    return true;
  }
}

class FakeCluster extends EventEmitter {
  readonly forked: FakeWorker[] = [];
  fork(): FakeWorker {
    const worker = new FakeWorker(this.forked.length + 1);
    this.forked.push(worker);
    return worker;
  }
  /** The worker says it listens (cluster's 'listening' event on the worker). */
  listen(worker: FakeWorker): void {
    worker.emit('listening', { address: '127.0.0.1', port: 3000 });
  }
  /** The worker process ends. */
  exit(worker: FakeWorker, code: number | null, signal: string | null = null): void {
    worker.connected = false;
    this.emit('exit', worker, code, signal);
  }
}

const setUp = (workers = 2) => {
  const cluster = new FakeCluster();
  const { lines, logger } = capturedLogger('debug');
  const exit = vi.fn<(code: number) => void>();
  const primary = startPrimary({
    cluster: cluster as unknown as Cluster,
    workers,
    logger,
    exit,
    restartDelayMs: { min: 100, max: 400 },
  });
  return { cluster, primary, exit, lines, worker: (i: number) => cluster.forked[i] as FakeWorker };
};

afterEach(() => {
  vi.useRealTimers();
});

describe('startPrimary', () => {
  it('forks the number of workers asked for', () => {
    const { cluster } = setUp(3);
    expect(cluster.forked.map((w) => w.id)).toEqual([1, 2, 3]);
  });

  it('on a signal asks every worker over IPC, once, and exits 0 when all drained', () => {
    const { cluster, primary, exit, worker } = setUp(2);
    cluster.listen(worker(0));
    cluster.listen(worker(1));
    primary.shutdown('SIGTERM');
    expect(worker(0).sent).toEqual([SHUTDOWN_MESSAGE]);
    expect(worker(1).sent).toEqual([SHUTDOWN_MESSAGE]);
    expect(worker(0).killedWith).toEqual([]);
    cluster.exit(worker(0), 0);
    expect(exit).not.toHaveBeenCalled();
    cluster.exit(worker(1), 0);
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
    expect(cluster.forked).toHaveLength(2); // nothing restarted during shutdown
  });

  it('exits 1 when a worker did not drain', () => {
    const { cluster, primary, exit, worker } = setUp(2);
    cluster.listen(worker(0));
    cluster.listen(worker(1));
    primary.shutdown('SIGINT');
    cluster.exit(worker(0), 1);
    cluster.exit(worker(1), 0);
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });

  it('asks a worker that was still starting again once it listens', () => {
    const { cluster, primary, worker } = setUp(2);
    cluster.listen(worker(0));
    primary.shutdown('SIGTERM');
    cluster.listen(worker(1));
    expect(worker(1).sent).toEqual([SHUTDOWN_MESSAGE, SHUTDOWN_MESSAGE]);
  });

  it('a second signal kills the workers and the exit code is 1', () => {
    const { cluster, primary, exit, worker } = setUp(2);
    cluster.listen(worker(0));
    cluster.listen(worker(1));
    primary.shutdown('SIGINT');
    primary.shutdown('SIGINT');
    expect(worker(0).killedWith).toEqual(['SIGKILL']);
    expect(worker(1).killedWith).toEqual(['SIGKILL']);
    cluster.exit(worker(0), null, 'SIGKILL');
    cluster.exit(worker(1), null, 'SIGKILL');
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });

  it('restarts a worker that dies unexpectedly, with a back-off that grows while crashes repeat', () => {
    vi.useFakeTimers();
    const { cluster, exit, worker, lines } = setUp(2);
    cluster.listen(worker(0));
    cluster.listen(worker(1));
    cluster.exit(worker(1), null, 'SIGKILL');
    expect(cluster.forked).toHaveLength(2);
    vi.advanceTimersByTime(100);
    expect(cluster.forked).toHaveLength(3);
    cluster.listen(worker(2));
    cluster.exit(worker(2), 1);
    vi.advanceTimersByTime(199);
    expect(cluster.forked).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(cluster.forked).toHaveLength(4);
    expect(exit).not.toHaveBeenCalled();
    expect(
      lines.filter((l) => l['msg'] === 'worker died unexpectedly; restarting it').map((l) => l['delayMs']),
    ).toEqual([100, 200]);
  });

  it('cancels a pending restart when shutdown begins', () => {
    vi.useFakeTimers();
    const { cluster, primary, exit, worker } = setUp(2);
    cluster.listen(worker(0));
    cluster.listen(worker(1));
    cluster.exit(worker(1), 1);
    primary.shutdown('SIGTERM');
    vi.advanceTimersByTime(10_000);
    expect(cluster.forked).toHaveLength(2);
    cluster.exit(worker(0), 0);
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
  });

  it('stops with exit code 1 when a worker dies before any worker ever listened', () => {
    const { cluster, exit, worker, lines } = setUp(2);
    cluster.exit(worker(0), 1);
    expect(worker(1).sent).toEqual([SHUTDOWN_MESSAGE]);
    expect(lines.some((l) => l['msg'] === 'a worker failed to start; stopping the others' && l['level'] === 60)).toBe(
      true,
    );
    cluster.exit(worker(1), 0);
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
    expect(cluster.forked).toHaveLength(2);
  });
});

describe('startPrimary state', () => {
  it('is starting until a worker listens, then serving', () => {
    const { cluster, primary, worker } = setUp(2);
    expect(primary.current()).toEqual({ phase: 'starting' });
    cluster.listen(worker(0));
    expect(primary.current()).toEqual({ phase: 'serving' });
    cluster.listen(worker(1));
    expect(primary.current()).toEqual({ phase: 'serving' });
  });

  it('starting, a worker dies: stopping, failed', () => {
    const { cluster, primary, worker } = setUp(2);
    cluster.exit(worker(0), 1);
    expect(primary.current()).toEqual({ phase: 'stopping', outcome: 'failed' });
  });

  it('starting, a signal: stopping, drained; workers that then exit 0 are a drain, not a failed start', () => {
    const { cluster, primary, exit, worker, lines } = setUp(2);
    primary.shutdown('SIGTERM');
    expect(primary.current()).toEqual({ phase: 'stopping', outcome: 'drained' });
    cluster.listen(worker(0));
    expect(primary.current()).toEqual({ phase: 'stopping', outcome: 'drained' });
    expect(worker(0).sent).toEqual([SHUTDOWN_MESSAGE, SHUTDOWN_MESSAGE]);
    cluster.exit(worker(0), 0);
    cluster.exit(worker(1), 0);
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
    expect(lines.some((l) => l['msg'] === 'a worker failed to start; stopping the others')).toBe(false);
    expect(lines.filter((l) => l['msg'] === 'stopped').map((l) => l['outcome'])).toEqual(['drained']);
  });

  it('serving, a worker dies: stays serving', () => {
    vi.useFakeTimers();
    const { cluster, primary, worker } = setUp(2);
    cluster.listen(worker(0));
    cluster.exit(worker(0), 1);
    expect(primary.current()).toEqual({ phase: 'serving' });
    vi.advanceTimersByTime(100);
    expect(cluster.forked).toHaveLength(3);
    expect(primary.current()).toEqual({ phase: 'serving' });
  });

  it('stopping, a worker exits non-zero: failed, and a later clean exit does not undo it', () => {
    const { cluster, primary, exit, worker, lines } = setUp(2);
    cluster.listen(worker(0));
    cluster.listen(worker(1));
    primary.shutdown('SIGTERM');
    cluster.exit(worker(0), 1);
    expect(primary.current()).toEqual({ phase: 'stopping', outcome: 'failed' });
    cluster.exit(worker(1), 0);
    expect(primary.current()).toEqual({ phase: 'stopping', outcome: 'failed' });
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
    expect(lines.filter((l) => l['msg'] === 'stopped').map((l) => l['outcome'])).toEqual(['failed']);
  });

  it('stopping after a failed start, a signal: the workers are killed, still failed', () => {
    const { cluster, primary, exit, worker } = setUp(2);
    cluster.exit(worker(0), 1);
    primary.shutdown('SIGINT');
    expect(worker(1).killedWith).toEqual(['SIGKILL']);
    expect(primary.current()).toEqual({ phase: 'stopping', outcome: 'failed' });
    cluster.exit(worker(1), null, 'SIGKILL');
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
  });

  it('a signal once every worker already exited (restarts pending): exits 0 at once, nothing restarted', () => {
    vi.useFakeTimers();
    const { cluster, primary, exit, worker } = setUp(1);
    cluster.listen(worker(0));
    cluster.exit(worker(0), 1);
    primary.shutdown('SIGTERM');
    expect(primary.current()).toEqual({ phase: 'stopping', outcome: 'drained' });
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
    vi.advanceTimersByTime(10_000);
    expect(cluster.forked).toHaveLength(1);
  });
});

describe('isShutdownMessage', () => {
  it('recognises only the shutdown request', () => {
    expect(isShutdownMessage(SHUTDOWN_MESSAGE)).toBe(true);
    expect(isShutdownMessage({ type: 'other' })).toBe(false);
    expect(isShutdownMessage('plant-store:shutdown')).toBe(false);
    expect(isShutdownMessage(null)).toBe(false);
  });
});
