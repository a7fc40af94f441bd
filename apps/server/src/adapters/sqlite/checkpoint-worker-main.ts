// The WAL checkpoint thread's own file, started by checkpoint-worker.ts. A worker entry imports
// packages and, from its own folder, types only (`import type`): under vitest the thread runs this
// .ts file with Node's type stripping, which resolves no `./x.js` to a .ts (worker-entry.ts).
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { formatErrors } from '@plant-store/domain';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { CheckpointReport } from './checkpoint-worker-messages.js';

/** What the store's thread hands the checkpoint thread when it starts it. */
export const CheckpointWorkerData = t.type({
  file: t.string,
  intervalMs: t.number,
  truncateAboveBytes: t.number,
  synchronous: t.keyof({ FULL: null, NORMAL: null }),
});
export type CheckpointWorkerData = t.TypeOf<typeof CheckpointWorkerData>;

/**
 * What the store's thread sends: `stop` (stop ticking, close the connection, end), or `restart`
 * (the WAL is over its hard bound and the store holds its writes until this thread has restarted
 * the WAL, or given up: answered with a `restarted` report).
 */
export const CheckpointCommand = t.keyof({ stop: null, restart: null });
export type CheckpointCommand = t.TypeOf<typeof CheckpointCommand>;

/** How long a `restart` keeps trying while a reader or a last write is still busy. */
const RESTART_TRIES_MS = 50;

/** A `PRAGMA wal_checkpoint` row: SQLITE_BUSY or not, frames in the WAL, frames copied. */
const CheckpointRow = t.type({ busy: t.number, log: t.number, checkpointed: t.number });

const decoded = <A>(codec: t.Decoder<unknown, A>, value: unknown, what: string): A => {
  const result = codec.decode(value);
  if (E.isLeft(result)) throw new TypeError(`${what}: ${formatErrors(result.left).join('; ')}`);
  return result.right;
};

const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;

/**
 * Every tick:
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
const run = (port: NonNullable<typeof parentPort>, options: CheckpointWorkerData): void => {
  const report = (message: CheckpointReport): void => port.postMessage(message);
  const db = new Database(options.file, { fileMustExist: true, timeout: 0 });
  db.pragma('busy_timeout = 0');
  db.pragma(`synchronous = ${options.synchronous}`);
  const walFile = `${options.file}-wal`;
  const walBytes = (): number => {
    try {
      return statSync(walFile).size;
    } catch {
      return 0;
    }
  };
  const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
  const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
  let lastLog = -1;
  let failures = 0;
  const tick = (): void => {
    try {
      const first = decoded(CheckpointRow, passive.get(), 'wal_checkpoint(PASSIVE)');
      const idle = first.log === lastLog;
      lastLog = first.log;
      const before = walBytes();
      if (before > options.truncateAboveBytes) {
        const mode = idle ? 'TRUNCATE' : 'RESTART';
        const result = decoded(CheckpointRow, (idle ? truncate : restart).get(), `wal_checkpoint(${mode})`);
        if (result.busy !== 0) failures += 1;
        else failures = 0;
        if (failures === 100)
          report({ type: 'busy', mode, walBytes: before, log: result.log, checkpointed: result.checkpointed });
      }
    } catch (error) {
      const code = codeOf(error);
      if (code === 'SQLITE_BUSY') return; // another checkpoint is running: next tick
      report({ type: 'error', message: error instanceof Error ? error.message : String(error), code });
    }
  };
  /**
   * Asked by the store, which holds its writes meanwhile: RESTART until it succeeds (a read or the
   * last write may still be finishing on the store's thread), for at most RESTART_TRIES_MS.
   */
  const restartNow = (): void => {
    const until = performance.now() + RESTART_TRIES_MS;
    let restarted = false;
    try {
      for (;;) {
        const result = decoded(CheckpointRow, restart.get(), 'wal_checkpoint(RESTART)');
        if (result.busy === 0) {
          restarted = true;
          failures = 0;
          break;
        }
        if (performance.now() >= until) break;
        Atomics.wait(pause, 0, 0, 1);
      }
    } catch (error) {
      const code = codeOf(error);
      if (code !== 'SQLITE_BUSY')
        report({ type: 'error', message: error instanceof Error ? error.message : String(error), code });
    }
    report({ type: 'restarted', restarted, walBytes: walBytes() });
  };
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const timer = setInterval(tick, options.intervalMs);
  port.on('message', (message: unknown) => {
    if (!CheckpointCommand.is(message)) return;
    if (message === 'restart') return restartNow();
    clearInterval(timer);
    db.close();
    port.close();
  });
  report({ type: 'ready' });
};

if (parentPort === null) throw new TypeError('checkpoint-worker-main runs on a worker thread (checkpoint-worker.ts)');
run(parentPort, decoded(CheckpointWorkerData, workerData, 'the checkpoint worker data'));
