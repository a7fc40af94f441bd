import type { Cluster, Worker } from 'node:cluster';
import type { Logger } from './logger.js';

/** The IPC message a primary sends each worker to start its graceful shutdown. */
export const SHUTDOWN_MESSAGE = { type: 'plant-store:shutdown' } as const;

export const isShutdownMessage = (message: unknown): boolean =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === SHUTDOWN_MESSAGE.type;

export interface PrimaryDeps {
  readonly cluster: Cluster;
  /** How many workers to keep running. */
  readonly workers: number;
  /** Already a child logger saying `role: 'primary'`. */
  readonly logger: Logger;
  /** Ends the primary (after the log is flushed). */
  readonly exit: (code: number) => void;
  /** Restart back-off bounds in ms; defaults 100 and 5000. */
  readonly restartDelayMs?: { readonly min: number; readonly max: number };
}

/**
 * The one state of a cluster primary:
 *
 * - `starting`: no worker has listened yet, so a worker that dies is a failed start;
 * - `serving`: some worker has listened; one that dies unexpectedly is restarted after a back-off;
 * - `stopping`: every worker was asked to drain and none is restarted; once all exited the primary
 *   says `stopped` with `outcome` and exits 0 when `drained`, 1 when `failed`.
 */
export type PrimaryState =
  | { readonly phase: 'starting' }
  | { readonly phase: 'serving' }
  | { readonly phase: 'stopping'; readonly outcome: 'drained' | 'failed' };

export interface Primary {
  /** SIGTERM/SIGINT: ask every worker to drain over IPC; a second call kills them (exit code 1). */
  shutdown(signal: NodeJS.Signals): void;
  /** The state now (what the tests watch). */
  readonly current: () => PrimaryState;
}

/**
 * The primary of WORKERS=N: opens no store and serves nothing; it forks N workers (each runs the
 * single-process path: open the store, listen — node:cluster shares the port), restarts a worker
 * that dies unexpectedly (with a back-off that grows while crashes repeat), and on a signal asks
 * every worker to shut down gracefully over IPC, waits for all, and exits 0 when all drained.
 * A worker that dies before any worker ever listened is a start-up failure (a bad DATABASE_URL,
 * a port in use): the primary stops the others and exits 1 rather than restarting forever.
 *
 * | from       | a worker listens    | a worker exits                      | shutdown(signal)               |
 * | ---------- | ------------------- | ----------------------------------- | ------------------------------ |
 * | `starting` | `serving`           | `stopping`, failed (a failed start) | `stopping`, drained            |
 * | `serving`  | stays               | stays; restarted after a back-off   | `stopping`, drained            |
 * | `stopping` | asked again to stop | failed unless it exited 0           | failed; the workers are killed |
 */
export const startPrimary = ({
  cluster,
  workers,
  logger,
  exit,
  restartDelayMs = { min: 100, max: 5_000 },
}: PrimaryDeps): Primary => {
  let state: PrimaryState = { phase: 'starting' };
  const recentCrashes: number[] = [];
  const restarts = new Set<NodeJS.Timeout>();

  /** Forked and not yet reported by the 'exit' event. */
  const running = new Set<Worker>();

  const fork = (): void => {
    const worker = cluster.fork();
    running.add(worker);
    worker.once('listening', () => {
      if (state.phase === 'starting') state = { phase: 'serving' };
      // Asked to stop while this worker was starting: the request may have arrived before its
      // IPC listener existed, so ask again now (a worker treats a repeated request as one).
      if (state.phase === 'stopping') askToStop(worker);
    });
    // A worker that exits on its own closes the channel; sending to it then must not throw.
    worker.on('error', (err) => logger.debug({ err, worker: worker.id }, 'IPC error with a worker'));
  };

  const askToStop = (worker: Worker): void => {
    if (!worker.isConnected()) return;
    try {
      worker.send(SHUTDOWN_MESSAGE);
    } catch (err) {
      logger.debug({ err, worker: worker.id }, 'could not send the shutdown request');
    }
  };

  const beginStopping = (outcome: 'drained' | 'failed'): void => {
    state = { phase: 'stopping', outcome };
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    for (const worker of running) askToStop(worker);
  };

  const finishIfAllExited = (): void => {
    if (state.phase !== 'stopping' || running.size > 0) return;
    logger.info({ outcome: state.outcome }, 'stopped');
    exit(state.outcome === 'failed' ? 1 : 0);
  };

  cluster.on('exit', (worker, code, signal) => {
    running.delete(worker);
    const workerPid = worker.process.pid;
    if (state.phase === 'stopping') {
      if (code !== 0) state = { phase: 'stopping', outcome: 'failed' };
      logger.info({ worker: worker.id, workerPid, code, signal }, 'worker exited');
      finishIfAllExited();
      return;
    }
    if (state.phase === 'starting') {
      logger.fatal({ worker: worker.id, workerPid, code, signal }, 'a worker failed to start; stopping the others');
      beginStopping('failed');
      finishIfAllExited();
      return;
    }
    const now = Date.now();
    while (recentCrashes.length > 0 && (recentCrashes[0] as number) < now - 30_000) recentCrashes.shift();
    recentCrashes.push(now);
    const delayMs = Math.min(restartDelayMs.max, restartDelayMs.min * 2 ** (recentCrashes.length - 1));
    logger.error({ worker: worker.id, workerPid, code, signal, delayMs }, 'worker died unexpectedly; restarting it');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (state.phase === 'serving') fork();
    }, delayMs);
    restarts.add(timer);
  });

  logger.info({ workers }, 'starting workers');
  for (let i = 0; i < workers; i++) fork();

  return {
    shutdown: (signal) => {
      if (state.phase === 'stopping') {
        // A second signal: stop waiting for the drain. (A worker counts only the signals it gets
        // itself, and the first one may have been absorbed by the IPC request, so no re-signal.)
        logger.warn({ signal }, 'second signal: killing the workers');
        state = { phase: 'stopping', outcome: 'failed' };
        for (const worker of running) worker.process.kill('SIGKILL');
        return;
      }
      logger.info({ signal, workers: running.size }, 'shutting down: asking every worker to drain');
      beginStopping('drained');
      finishIfAllExited();
    },
    current: () => state,
  };
};
