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
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { TargetNotEmpty } from '../../ports/store-data.js';

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

/**
 * The worker's source (plain CommonJS, evaluated: see checkpoint-worker.ts for why). `VACUUM
 * INTO` copies the database as one read transaction sees it: a consistent snapshot that holds no
 * lock a writer waits for (WAL), and, unlike the online backup API, is not started over each time
 * another process commits, so it ends under a steady load of writes. Then the copy is checked.
 * On a thread of its own: both take seconds on a large store, and the progress bar keeps moving.
 */
const workerSource = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
try {
  const source = new Database(workerData.source, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
  source.prepare('VACUUM INTO ?').run(workerData.copy);
  source.close();
  const copy = new Database(workerData.copy, { fileMustExist: true });
  const integrity = copy.pragma('integrity_check', { simple: true });
  const plants = copy.prepare('SELECT count(*) FROM plants').pluck().get();
  copy.close();
  parentPort.postMessage({ type: 'done', integrity: String(integrity), plants: Number(plants) });
} catch (err) {
  parentPort.postMessage({ type: 'error', message: String(err && err.message) });
}
`;

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
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      source,
      copy,
      busyTimeoutMs: 5000,
    },
  });
  const progress = setInterval(() => {
    try {
      options.onProgress?.(Math.min(statSync(copy).size, total), total);
    } catch {
      // not created yet
    }
  }, 100);
  try {
    const result = await new Promise<{ type: string; integrity?: string; plants?: number; message?: string }>(
      (resolveResult, reject) => {
        worker.once('message', resolveResult);
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`the copying thread stopped (exit code ${code})`)));
      },
    );
    if (result.type !== 'done') throw new Error(`copying failed: ${result.message ?? 'unknown error'}`);
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
    return { file: target, bytes, plants: result.plants ?? 0 };
  } finally {
    clearInterval(progress);
    await worker.terminate();
    rmSync(copy, { force: true });
  }
};
