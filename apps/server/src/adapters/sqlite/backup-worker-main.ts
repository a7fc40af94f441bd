// The backup thread's own file, started by backup.ts. A worker entry imports packages and, from
// its own folder, types only (`import type`): under vitest the thread runs this .ts file with
// Node's type stripping, which resolves no `./x.js` to a .ts (worker-entry.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { formatErrors } from '@plant-store/domain';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { BackupOutcome } from './backup-worker-messages.js';

/** What backup.ts hands the thread: the store's file, the copy's, and how long to wait for a lock. */
export const BackupWorkerData = t.type({ source: t.string, copy: t.string, busyTimeoutMs: t.number });
export type BackupWorkerData = t.TypeOf<typeof BackupWorkerData>;

const decoded = <A>(codec: t.Decoder<unknown, A>, value: unknown, what: string): A => {
  const result = codec.decode(value);
  if (E.isLeft(result)) throw new TypeError(`${what}: ${formatErrors(result.left).join('; ')}`);
  return result.right;
};

/**
 * `VACUUM INTO` copies the database as one read transaction sees it: a consistent snapshot that
 * holds no lock a writer waits for (WAL), and, unlike the online backup API, is not started over
 * each time another process commits, so it ends under a steady load of writes. Then the copy is
 * checked.
 */
const copyAndCheck = (options: BackupWorkerData): BackupOutcome => {
  const source = new Database(options.source, { fileMustExist: true, timeout: options.busyTimeoutMs });
  source.prepare('VACUUM INTO ?').run(options.copy);
  source.close();
  const copy = new Database(options.copy, { fileMustExist: true });
  const integrity = decoded(t.string, copy.pragma('integrity_check', { simple: true }), 'integrity_check');
  const plants = decoded(t.number, copy.prepare('SELECT count(*) FROM plants').pluck().get(), 'the count of plants');
  copy.close();
  return { type: 'done', integrity, plants };
};

if (parentPort === null) throw new TypeError('backup-worker-main runs on a worker thread (backup.ts)');
let outcome: BackupOutcome;
try {
  outcome = copyAndCheck(decoded(BackupWorkerData, workerData, 'the backup worker data'));
} catch (error) {
  outcome = { type: 'error', message: error instanceof Error ? error.message : String(error) };
}
parentPort.postMessage(outcome);
