import type { PlantName } from '@plant-store/domain';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';
import { openSqliteStore } from './open.js';
import { WalSync } from './wal-sync.js';

const dirs: string[] = [];
const freshDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'plant-wal-sync-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A WalSync over a real file; `fd` lets a test close the descriptor under it (a failing sync). */
const overFile = (): { sync: WalSync; fd: number; file: string } => {
  const file = join(freshDir(), 'x.db-wal');
  const fd = openSync(file, 'w+');
  writeSync(fd, 'frames');
  return { sync: new WalSync(fd), fd, file };
};

const settled = async (promise: Promise<unknown>): Promise<'resolved' | 'rejected'> =>
  promise.then(
    () => 'resolved' as const,
    () => 'rejected' as const,
  );

describe('WalSync', () => {
  it('resolves every commit once a sync that started after it finished; one sync serves many', async () => {
    const { sync } = overFile();
    const order: string[] = [];
    const commits = Array.from({ length: 20 }, (_, i) => sync.committedNow().then(() => order.push(`commit ${i}`)));
    expect(sync.readBarrier()).toBeInstanceOf(Promise);
    await Promise.all(commits);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => `commit ${i}`));
    // all synced: a read goes out at once
    expect(sync.readBarrier()).toBeUndefined();
    await sync.close();
  });

  it('holds a read back until the commits before it are synced, not the ones after', async () => {
    const { sync } = overFile();
    const events: string[] = [];
    const first = sync.committedNow().then(() => events.push('first commit synced'));
    const barrier = sync.readBarrier();
    expect(barrier).toBeDefined();
    const read = barrier?.then(() => events.push('read released'));
    await Promise.all([first, read]);
    expect(events).toEqual(['first commit synced', 'read released']);
    await sync.close();
  });

  it('after a failed sync: the waiting commits and reads reject, and so does every later one', async () => {
    const { sync, fd } = overFile();
    closeSync(fd); // the next fdatasync fails with EBADF
    const commit = sync.committedNow();
    const read = sync.readBarrier();
    await expect(commit).rejects.toThrow(/syncing the SQLite WAL to disk failed/);
    await expect(read).rejects.toThrow(/syncing the SQLite WAL/);
    expect(sync.failure?.cause).toMatchObject({ code: 'EBADF' });
    expect(await settled(sync.committedNow())).toBe('rejected');
    expect(await settled(sync.readBarrier() ?? Promise.resolve())).toBe('rejected');
  });

  it('close waits for the sync in flight', async () => {
    const { sync } = overFile();
    const commit = sync.committedNow();
    await sync.close();
    expect(await settled(commit)).toBe('resolved');
  });
});

describe('GroupCommit with a WalSync', () => {
  const openDb = () => {
    const file = join(freshDir(), 'store.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (x INTEGER PRIMARY KEY)');
    return { db, file };
  };
  const noBatchState = () => ({ finish: () => undefined });

  it('answers a batch only after its sync; a failed sync fails exactly that batch, and later batches are refused unapplied', async () => {
    const { db, file } = openDb();
    const fd = openSync(`${file}-wal`, 'r');
    const sync = new WalSync(fd);
    const errors: string[] = [];
    const logger = { warn: () => undefined, error: (_: object, msg: string) => errors.push(msg) };
    const commits = new GroupCommit({ db, sync, openBatch: noBatchState, maxBatchSize: 100, logger });
    const insert = db.prepare<[number]>('INSERT INTO t (x) VALUES (?)');
    const write = (x: number) => commits.submit(() => E.right(insert.run(x).changes));

    expect(await Promise.all([write(1), write(2)])).toEqual([E.right(1), E.right(1)]);

    closeSync(fd); // the next sync fails
    const failed = await Promise.all([write(3), write(4)]);
    expect(failed.map((r) => (E.isLeft(r) ? r.left._tag : 'Right'))).toEqual(['StoreUnavailable', 'StoreUnavailable']);
    expect(errors).toEqual([expect.stringMatching(/could not be made durable/)]);

    const refused = await write(5);
    expect(E.isLeft(refused) && refused.left._tag).toBe('StoreUnavailable');
    // 3 and 4 were committed (their outcome was unknown to the callers, who got 503); 5 never ran
    expect(db.prepare('SELECT x FROM t ORDER BY x').pluck().all()).toEqual([1, 2, 3, 4]);
    db.close();
  });
});

describe('the SQLite store and its WAL descriptor', () => {
  /** Descriptors of this process open read-only on `path` (WalSync's; SQLite's own are read-write). Linux /proc. */
  const readOnlyDescriptorsOf = (path: string): number =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`) !== path) return false;
        const flags = /flags:\s+([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? '2';
        return (Number.parseInt(flags, 8) & 3) === 0;
      } catch {
        return false; // closed meanwhile
      }
    }).length;
  const linux = process.platform === 'linux';

  it.runIf(linux)('syncs the WAL beside the real file when the database is reached through a symlink', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'real'));
    const real = join(dir, 'real', 'plants.db');
    new Database(real).close(); // the file exists; the link points at it
    const link = join(dir, 'plants.db');
    symlinkSync(real, link);
    const store = await openSqliteStore({ file: link });
    try {
      expect(E.isRight(await store.plants.create({ name: 'linked' as PlantName })())).toBe(true);
      expect(readOnlyDescriptorsOf(`${real}-wal`)).toBe(1);
      expect(existsSync(`${link}-wal`)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it.runIf(linux)('leaves the sync to SQLite inside COMMIT with syncOffEventLoop: false (the tokens CLI)', async () => {
    const file = join(freshDir(), 'cli.db');
    const offloaded = await openSqliteStore({ file });
    expect(readOnlyDescriptorsOf(`${file}-wal`)).toBe(1);
    const inCommit = await openSqliteStore({ file, syncOffEventLoop: false });
    try {
      expect(readOnlyDescriptorsOf(`${file}-wal`)).toBe(1); // still only the first store's
      expect(E.isRight(await inCommit.plants.create({ name: 'from the CLI' as PlantName })())).toBe(true);
    } finally {
      await inCommit.close();
      await offloaded.close();
    }
  });
});
