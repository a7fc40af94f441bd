import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { formatErrors } from '@plant-store/domain';
import type Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import { TargetNotEmpty } from '../../ports/store-data.js';
import type { BackupWorkerData } from './backup-worker-main.js';
import { BackupOutcome } from './backup-worker-messages.js';
import { workerEntry } from './worker-entry.js';

export interface BackupOptions {
  /** Replace a file already at the target (otherwise refused). */
  readonly overwrite: boolean;
  /** Bytes of the copy written so far, and the source's size (the copy can end smaller). */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface BackupReport {
  readonly file: string;
  readonly bytes: number;
  readonly plants: number;
}

const syncFile = (path: string): void => {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the partial copies of `target` that killed backups left (their process is gone). */
const removeAbandoned = (target: string): void => {
  const prefix = `.${basename(target)}.partial-`;
  for (const name of readdirSync(dirname(target))) {
    const pid = Number(name.slice(prefix.length));
    if (name.startsWith(prefix) && Number.isSafeInteger(pid) && pid > 0 && !isRunning(pid))
      rmSync(join(dirname(target), name), { force: true });
  }
};

/**
 * Writes a consistent copy of the store at `source` to `target` while other processes keep
 * writing to it: copied beside the target under a hidden name, checked (`integrity_check`),
 * synced, then renamed into place, so the target name only ever holds a whole, checked copy.
 * Without `overwrite`, an existing target is refused (TargetNotEmpty), and the final step is a
 * hard link, which fails rather than replaces should a file appear there meanwhile.
 */
export const backupSqlite = async (
  db: Database.Database,
  source: string,
  targetFile: string,
  options: BackupOptions,
): Promise<BackupReport> => {
  const target = resolve(targetFile);
  if (target === source) throw new TargetNotEmpty(`the copy cannot replace the store itself (${target})`);
  if (!options.overwrite && existsSync(target))
    throw new TargetNotEmpty(`${target} exists; give --force to replace it`);
  mkdirSync(dirname(target), { recursive: true });
  removeAbandoned(target);
  const copy = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  rmSync(copy, { force: true });
  const pageCount = Number(db.pragma('page_count', { simple: true }));
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  const total = pageCount * pageSize;
  options.onProgress?.(0, total);
  // On a thread of its own (backup-worker-main.ts: VACUUM INTO, then integrity_check): both take
  // seconds on a large store, and the progress bar keeps moving meanwhile.
  const workerData: BackupWorkerData = { source, copy, busyTimeoutMs: 5000 };
  const worker = new Worker(workerEntry(new URL('./backup-worker-main.js', import.meta.url)), { workerData });
  const progress = setInterval(() => {
    try {
      options.onProgress?.(Math.min(statSync(copy).size, total), total);
    } catch {
      // not created yet
    }
  }, 100);
  try {
    const received = await new Promise<unknown>((resolveResult, reject) => {
      worker.once('message', resolveResult);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the copying thread stopped (exit code ${code})`)));
    });
    const decoded = BackupOutcome.decode(received);
    if (E.isLeft(decoded))
      throw new Error(
        `the copying thread's answer is not one backup.ts knows: ${formatErrors(decoded.left).join('; ')}`,
      );
    const result = decoded.right;
    if (result.type !== 'done') throw new Error(`copying failed: ${result.message}`);
    if (result.integrity !== 'ok') throw new Error(`the copy failed its integrity check: ${result.integrity}`);
    syncFile(copy);
    if (options.overwrite) renameSync(copy, target);
    else {
      try {
        linkSync(copy, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw new TargetNotEmpty(`${target} appeared while copying; give --force to replace it`);
        throw error;
      }
      rmSync(copy);
    }
    syncFile(dirname(target));
    const bytes = statSync(target).size;
    options.onProgress?.(total, total);
    return { file: target, bytes, plants: result.plants };
  } finally {
    clearInterval(progress);
    await worker.terminate();
    rmSync(copy, { force: true });
  }
};
