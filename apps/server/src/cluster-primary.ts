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

export interface Primary {
  /** SIGTERM/SIGINT: ask every worker to drain over IPC; a second call kills them (exit code 1). */
  shutdown(signal: NodeJS.Signals): void;
}

/**
 * The primary of WORKERS=N: opens no store and serves nothing; it forks N workers (each runs the
 * single-process path: open the store, listen — node:cluster shares the port), restarts a worker
 * that dies unexpectedly (with a back-off that grows while crashes repeat), and on a signal asks
 * every worker to shut down gracefully over IPC, waits for all, and exits 0 when all drained.
 * A worker that dies before any worker ever listened is a start-up failure (a bad DATABASE_URL,
 * a port in use): the primary stops the others and exits 1 rather than restarting forever.
 */
export const startPrimary = ({
  cluster,
  workers,
  logger,
  exit,
  restartDelayMs = { min: 100, max: 5_000 },
}: PrimaryDeps): Primary => {
  let stopping = false;
  let failed = false;
  let everListened = false;
  const recentCrashes: number[] = [];
  const restarts = new Set<NodeJS.Timeout>();

  /** Forked and not yet reported by the 'exit' event. */
  const running = new Set<Worker>();

  const fork = (): void => {
    const worker = cluster.fork();
    running.add(worker);
    worker.once('listening', () => {
      everListened = true;
      // Asked to stop while this worker was starting: the request may have arrived before its
      // IPC listener existed, so ask again now (a worker treats a repeated request as one).
      if (stopping) askToStop(worker);
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

  const beginStopping = (): void => {
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    for (const worker of running) askToStop(worker);
  };

  const finishIfAllExited = (): void => {
    if (running.size > 0) return;
    logger.info({ outcome: failed ? 'failed' : 'drained' }, 'stopped');
    exit(failed ? 1 : 0);
  };

  cluster.on('exit', (worker, code, signal) => {
    running.delete(worker);
    const workerPid = worker.process.pid;
    if (stopping) {
      if (code !== 0) failed = true;
      logger.info({ worker: worker.id, workerPid, code, signal }, 'worker exited');
      finishIfAllExited();
      return;
    }
    if (!everListened) {
      failed = true;
      logger.fatal({ worker: worker.id, workerPid, code, signal }, 'a worker failed to start; stopping the others');
      beginStopping();
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
      if (!stopping) fork();
    }, delayMs);
    restarts.add(timer);
  });

  logger.info({ workers }, 'starting workers');
  for (let i = 0; i < workers; i++) fork();

  return {
    shutdown: (signal) => {
      if (stopping) {
        // A second signal: stop waiting for the drain. (A worker counts only the signals it gets
        // itself, and the first one may have been absorbed by the IPC request, so no re-signal.)
        logger.warn({ signal }, 'second signal: killing the workers');
        failed = true;
        for (const worker of running) worker.process.kill('SIGKILL');
        return;
      }
      logger.info({ signal, workers: running.size }, 'shutting down: asking every worker to drain');
      beginStopping();
      finishIfAllExited();
    },
  };
};
