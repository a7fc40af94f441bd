import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlantName } from '@plant-store/domain';
import { until } from '@plant-store/testkit';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../ports/store.js';
import { startCheckpointWorker } from './checkpoint-worker.js';
import { openSqliteStore, type SqliteStoreOptions } from './open.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const walBytes = (file: string): number => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
const KiB = 1024;

/** Writes `batches` transactions of 500 plants with 190-character names (~3 MB of WAL in all). */
const writeLoad = async (store: Store, batches = 30): Promise<void> => {
  for (let b = 0; b < batches; b += 1) {
    const writes = Array.from({ length: 500 }, (_, i) =>
      store.plants.create({ name: `${b}-${i}-`.padEnd(190, 'x') as PlantName })(),
    );
    const results = await Promise.all(writes);
    expect(results.every(E.isRight)).toBe(true);
  }
};

/**
 * Waits for the WAL of `file` to shrink to `bytes` or less. No timing claim: the wait ends just
 * before the test's own timeout, only so that a failure says how big the WAL still is.
 */
const walShrinks = (file: string, bytes: number, timeoutMs: number): Promise<true> =>
  until(`the WAL to shrink to ${bytes / KiB} KiB`, () => walBytes(file) <= bytes, timeoutMs, {
    detail: () => `it holds ${walBytes(file)} bytes`,
  });

describe('WAL checkpoints', () => {
  const stores: Store[] = [];
  let counter = 0;
  const open = async (options: Omit<SqliteStoreOptions, 'file'>) => {
    const file = join(dir, `wal-${(counter += 1)}.db`);
    const store = await openSqliteStore({ file, ...options });
    stores.push(store);
    return { file, store };
  };
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('never checkpoints on the main connection: without the worker the WAL keeps growing', async () => {
    // An interval far beyond the test and no hard bound: the worker never runs; SQLite's automatic
    // checkpoint is off.
    const { file, store } = await open({
      checkpoint: { intervalMs: 2_000_000_000, truncateAboveBytes: 256 * KiB, holdAboveBytes: Number.MAX_SAFE_INTEGER },
    });
    await writeLoad(store);
    expect(walBytes(file)).toBeGreaterThan(1024 * KiB);
  });

  it('holds the writes to restart a WAL over its hard bound, with no pause in the writes', async () => {
    // The worker's own ticks never come (as if every one had found a write in progress): only the
    // hold restarts the WAL. Without it the WAL grows past 1 MiB (the test above).
    const { file, store } = await open({
      checkpoint: { intervalMs: 2_000_000_000, truncateAboveBytes: 256 * KiB, holdAboveBytes: 384 * KiB },
    });
    // Batches of 50 writes (as 50 busy clients make them), one after another.
    const sizes: number[] = [];
    for (let round = 0; round < 200; round += 1) {
      const writes = Array.from({ length: 50 }, (_, i) =>
        store.plants.create({ name: `${round}-${i}-`.padEnd(190, 'x') as PlantName })(),
      );
      expect((await Promise.all(writes)).every(E.isRight)).toBe(true);
      sizes.push(walBytes(file));
    }
    // The hard bound, plus the batches that run between two looks at the WAL's size (the search
    // index's catch-up among them): about 1 MiB at most on a quiet machine, 1.9 MiB seen beside
    // other suites (the thread's answer late), where these writes make 15 MiB of WAL without it.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4 * 1024 * KiB);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) FROM plants').pluck().get()).toBe(200 * 50);
    } finally {
      db.close();
    }
  }, 60_000);

  it('keeps the WAL bounded with checkpoints from the worker thread', async () => {
    const { file, store } = await open({ checkpoint: { intervalMs: 20, truncateAboveBytes: 256 * KiB } });
    await writeLoad(store);
    await walShrinks(file, 256 * KiB, 50_000);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) FROM plants').pluck().get()).toBe(30 * 500);
    } finally {
      db.close();
    }
  }, 60_000);

  it('never holds the write lock waiting for a reader: writes go on while a reader pins the WAL', async () => {
    // The reader's open snapshot keeps every RESTART/TRUNCATE from finishing. A worker that
    // waited for it in a busy handler would hold the write lock for its whole busy timeout, and
    // the store's writes (which wait at most 2 s here) would fail with SQLITE_BUSY.
    const { file, store } = await open({
      busyTimeoutMs: 2000,
      checkpoint: { intervalMs: 10, truncateAboveBytes: 64 * KiB },
    });
    await writeLoad(store, 2);
    const reader = new Database(file, { readonly: true });
    try {
      reader.prepare('BEGIN').run();
      expect(reader.prepare('SELECT count(*) FROM plants').pluck().get()).toBe(1000);
      for (let round = 0; round < 10; round += 1) {
        await writeLoad(store, 2);
        await new Promise((resolve) => setTimeout(resolve, 50)); // some worker ticks in between
      }
      expect(walBytes(file)).toBeGreaterThan(64 * KiB); // the reader did keep the WAL from restarting
      reader.prepare('COMMIT').run();
    } finally {
      reader.close();
    }
    await walShrinks(file, 64 * KiB, 50_000);
  }, 60_000);

  it('checkpoints and removes the WAL on close, and stops the worker', async () => {
    const { file, store } = await open({ checkpoint: { intervalMs: 2_000_000_000 } });
    await writeLoad(store, 2);
    expect(walBytes(file)).toBeGreaterThan(0);
    await store.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    // With the worker's connection still open, SQLite would keep the WAL file: the check above
    // also shows the worker closed its connection before close() resolved.
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) FROM plants').pluck().get()).toBe(1000);
    } finally {
      db.close();
    }
  });

  it('runs its thread from the file beside it (the .ts here): the WAL shrinks with no automatic checkpoint', async () => {
    // The worker alone, over a connection that never checkpoints: only the thread can shrink the
    // WAL. A thread that fails to start (a worker file Node cannot run) is lost at once, and the
    // store would then fall back to automatic checkpoints, which also bound the WAL: so this test
    // watches the thread itself rather than a store.
    const file = join(dir, 'direct.db');
    const db = new Database(file);
    const complaints: string[] = [];
    let lost = false;
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('wal_autocheckpoint = 0');
      db.exec('CREATE TABLE t (x TEXT NOT NULL)');
      const insert = db.prepare<[string]>('INSERT INTO t (x) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < 2000; i += 1) insert.run(`${i}-`.padEnd(190, 'x'));
      })();
      expect(walBytes(file)).toBeGreaterThan(256 * KiB);
      const worker = startCheckpointWorker({
        file,
        intervalMs: 10,
        truncateAboveBytes: 64 * KiB,
        synchronous: 'NORMAL',
        logger: { warn: (_, msg) => complaints.push(msg), error: (_, msg) => complaints.push(msg) },
        onLost: () => {
          lost = true;
        },
      });
      // A lost thread ends the wait at once; the expectation below then says so.
      await until(
        'the thread to shrink the WAL to 64 KiB, or to be lost',
        () => lost || walBytes(file) <= 64 * KiB,
        25_000,
        { detail: () => `the WAL holds ${walBytes(file)} bytes` },
      );
      await worker.stop();
      expect({ lost, complaints }).toEqual({ lost: false, complaints: [] });
      expect(walBytes(file)).toBeLessThanOrEqual(64 * KiB);
      expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2000);
    } finally {
      db.close();
    }
  });
});
