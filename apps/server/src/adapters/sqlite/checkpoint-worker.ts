import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { StoreLogger } from './group-commit.js';

export interface CheckpointOptions {
  /** How often the worker checkpoints; default 100 ms. */
  readonly intervalMs?: number;
  /**
   * The WAL bound; default 4 MiB. Above it the worker forces the WAL back to its start (RESTART,
   * or TRUNCATE when no writes came since the last tick), and the writer cuts the WAL file back
   * to this size (`journal_size_limit`) whenever it restarts it.
   */
  readonly truncateAboveBytes?: number;
}

/**
 * Short intervals keep each checkpoint small: a PASSIVE checkpoint copies (and fsyncs) only what
 * was written since the last tick, so it never competes with the writer's fsync for long.
 */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 100;
/** A few MiB: the work left for a RESTART/TRUNCATE under the write lock stays small. */
export const DEFAULT_WAL_TRUNCATE_BYTES = 4 * 1024 * 1024;

interface WorkerData {
  readonly driver: string;
  readonly file: string;
  readonly intervalMs: number;
  readonly truncateAboveBytes: number;
  readonly synchronous: 'FULL' | 'NORMAL';
}

/**
 * The worker's source, plain CommonJS evaluated by `new Worker(…, { eval: true })`: one file
 * that runs the same under tsc's output and under vitest (which cannot hand a .ts file to a
 * worker). It opens its own connection to the database file and talks to the main thread only
 * to report trouble. Every tick:
 *
 * 1. `PRAGMA wal_checkpoint(PASSIVE)` copies the frames written since the last tick into the
 *    database file (and fsyncs it) without taking the write lock. When it catches up with the
 *    WAL, the writer's next transaction starts the WAL over from its beginning by itself.
 * 2. Only if the WAL file is still above the bound (writes never paused long enough for 1 to
 *    catch up), RESTART — or TRUNCATE when nothing was written since the last tick, so an idle
 *    WAL shrinks too. These take the write lock, but right after 1 little is left to copy.
 *
 * The connection's busy_timeout is 0: a RESTART/TRUNCATE that finds the writer or a reader busy
 * degrades to a PASSIVE one at once (SQLite's documented behaviour with no busy handler) instead
 * of sleeping in the busy handler while holding the write lock. It is retried on the next tick.
 */
const workerSource = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
db.pragma('busy_timeout = 0');
db.pragma('synchronous = ' + workerData.synchronous);
const walFile = workerData.file + '-wal';
const walBytes = () => { try { return fs.statSync(walFile).size; } catch { return 0; } };
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
let lastLog = -1;
let failures = 0;
const tick = () => {
  try {
    const first = passive.get();
    const idle = first.log === lastLog;
    lastLog = first.log;
    const before = walBytes();
    if (before > workerData.truncateAboveBytes) {
      const result = (idle ? truncate : restart).get();
      if (result.busy !== 0) failures += 1; else failures = 0;
      if (failures === 100) {
        parentPort.postMessage({ type: 'busy', mode: idle ? 'TRUNCATE' : 'RESTART', walBytes: before, log: result.log, checkpointed: result.checkpointed });
      }
    }
  } catch (err) {
    if (err && err.code === 'SQLITE_BUSY') return; // another checkpoint is running: next tick
    parentPort.postMessage({ type: 'error', message: String(err && err.message), code: err && err.code });
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage({ type: 'ready' });
`;

export interface CheckpointWorker {
  /** Stops the timer, closes the worker's connection and waits for the thread to end. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the WAL checkpointer for `file` on a worker thread. The main connection runs with
 * `wal_autocheckpoint=0`, so no request ever pays for a checkpoint. The worker is unref'd: it
 * never keeps the process alive. If it dies, `onLost` is called (the store then turns automatic
 * checkpoints back on, so the WAL stays bounded even without the worker).
 */
export const startCheckpointWorker = (options: {
  readonly file: string;
  readonly intervalMs: number;
  readonly truncateAboveBytes: number;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly logger: StoreLogger | undefined;
  readonly onLost: () => void;
}): CheckpointWorker => {
  const workerData: WorkerData = {
    driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    file: options.file,
    intervalMs: options.intervalMs,
    truncateAboveBytes: options.truncateAboveBytes,
    synchronous: options.synchronous,
  };
  const worker = new Worker(workerSource, { eval: true, workerData });
  let stopping = false;
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      if (!stopping) {
        options.logger?.warn({ code }, 'WAL checkpoint worker stopped; falling back to automatic checkpoints');
        options.onLost();
      }
      resolve();
    });
  });
  worker.on('message', (message: { type: string }) => {
    if (message.type === 'busy')
      options.logger?.warn(
        message,
        'WAL checkpoint could not restart the WAL for 100 ticks in a row (writer or readers busy)',
      );
    if (message.type === 'error') options.logger?.warn(message, 'WAL checkpoint failed');
  });
  worker.on('error', (err) => options.logger?.error({ err }, 'WAL checkpoint worker crashed'));
  // After the listeners: attaching a 'message' listener refs the worker's port again.
  worker.unref();

  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        stopping = true;
        // Ref'd again while it winds down: otherwise a process with nothing else to do would
        // exit in the middle of close(), before the final checkpoint.
        worker.ref();
        worker.postMessage('stop');
        const timer = setTimeout(() => void worker.terminate(), 10_000);
        timer.unref();
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
};
