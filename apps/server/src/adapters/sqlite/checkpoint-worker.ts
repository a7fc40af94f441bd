import { Worker } from 'node:worker_threads';
import { formatErrors } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type { CheckpointCommand, CheckpointWorkerData } from './checkpoint-worker-main.js';
import { CheckpointReport } from './checkpoint-worker-messages.js';
import type { StoreLogger } from './group-commit.js';
import { workerEntry } from './worker-entry.js';

export interface CheckpointOptions {
  /** How often the worker checkpoints; default 100 ms. */
  readonly intervalMs?: number;
  /**
   * The WAL bound; default 4 MiB. Above it the worker forces the WAL back to its start (RESTART,
   * or TRUNCATE when no writes came since the last tick), and the writer cuts the WAL file back
   * to this size (`journal_size_limit`) whenever it restarts it.
   */
  readonly truncateAboveBytes?: number;
  /**
   * The WAL's hard bound; default 1.5 × `truncateAboveBytes`. Above it the store holds its writes
   * until the worker has restarted the WAL (wal-hold.ts).
   */
  readonly holdAboveBytes?: number;
}

/**
 * Short intervals keep each checkpoint small: a PASSIVE checkpoint copies (and fsyncs) only what
 * was written since the last tick, so it never competes with the writer's fsync for long.
 */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 100;
/** A few MiB: the work left for a RESTART/TRUNCATE under the write lock stays small. */
export const DEFAULT_WAL_TRUNCATE_BYTES = 4 * 1024 * 1024;

/** How long the store waits for a restart it asked for before it lets its writes go on anyway. */
export const RESTART_ANSWER_MS = 1000;

export interface CheckpointWorker {
  /**
   * Asks the thread to restart the WAL now (the store holds its writes meanwhile); resolves with
   * whether it did and the WAL's size then, or undefined when no answer came within
   * RESTART_ANSWER_MS (or the thread is gone). Never rejects.
   */
  restartNow(): Promise<{ readonly restarted: boolean; readonly walBytes: number } | undefined>;
  /** Stops the timer, closes the worker's connection and waits for the thread to end. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the WAL checkpointer for `file` on a worker thread (checkpoint-worker-main.ts: its own
 * connection to the file, and a message to this thread only to report trouble, which is logged
 * here). The main connection runs with `wal_autocheckpoint=0`, so no request ever pays for a
 * checkpoint. The worker is unref'd: it never keeps the process alive. If it dies, `onLost` is
 * called (the store then turns automatic checkpoints back on, so the WAL stays bounded even
 * without the worker).
 */
export const startCheckpointWorker = (options: {
  readonly file: string;
  readonly intervalMs: number;
  readonly truncateAboveBytes: number;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly logger: StoreLogger | undefined;
  readonly onLost: () => void;
}): CheckpointWorker => {
  const workerData: CheckpointWorkerData = {
    file: options.file,
    intervalMs: options.intervalMs,
    truncateAboveBytes: options.truncateAboveBytes,
    synchronous: options.synchronous,
  };
  const worker = new Worker(workerEntry(new URL('./checkpoint-worker-main.js', import.meta.url)), { workerData });
  let stopping = false;
  let exitedAlready = false;
  /** Whoever waits for the answer to a restart asked for (one at a time: the store holds its writes). */
  let answer: ((report: { restarted: boolean; walBytes: number } | undefined) => void) | undefined;
  const answered = (report: { restarted: boolean; walBytes: number } | undefined): void => {
    const waiting = answer;
    answer = undefined;
    waiting?.(report);
  };
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      exitedAlready = true;
      answered(undefined);
      if (!stopping) {
        options.logger?.warn({ code }, 'WAL checkpoint worker stopped; falling back to automatic checkpoints');
        options.onLost();
      }
      resolve();
    });
  });
  worker.on('message', (received: unknown) => {
    const decoded = CheckpointReport.decode(received);
    if (E.isLeft(decoded)) {
      options.logger?.warn({ errors: formatErrors(decoded.left) }, 'WAL checkpoint worker sent an unknown message');
      return;
    }
    const message = decoded.right;
    if (message.type === 'busy')
      options.logger?.warn(
        message,
        'WAL checkpoint could not restart the WAL for 100 ticks in a row (writer or readers busy)',
      );
    if (message.type === 'error') options.logger?.warn(message, 'WAL checkpoint failed');
    if (message.type === 'restarted') answered(message);
  });
  worker.on('error', (err) => options.logger?.error({ err }, 'WAL checkpoint worker crashed'));
  // After the listeners: attaching a 'message' listener refs the worker's port again.
  worker.unref();

  let stopped: Promise<void> | undefined;
  return {
    restartNow: () => {
      if (stopping || exitedAlready || answer !== undefined) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const timer = setTimeout(() => answered(undefined), RESTART_ANSWER_MS);
        answer = (report) => {
          clearTimeout(timer);
          resolve(report);
        };
        const restart: CheckpointCommand = 'restart';
        worker.postMessage(restart);
      });
    },
    stop: () => {
      stopped ??= (async () => {
        stopping = true;
        // Ref'd again while it winds down: otherwise a process with nothing else to do would
        // exit in the middle of close(), before the final checkpoint.
        worker.ref();
        const stop: CheckpointCommand = 'stop';
        worker.postMessage(stop);
        const timer = setTimeout(() => void worker.terminate(), 10_000);
        timer.unref();
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
};
