import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { storeUnavailable, type StoreError } from '../../ports/plant-store.js';

interface Waiter {
  readonly generation: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Makes commits durable off the event loop: `synchronous=FULL` without the event loop waiting
 * for the disk.
 *
 * With `synchronous=FULL`, SQLite syncs the WAL inside COMMIT, on the thread that runs it — here
 * the event loop, which parses no request meanwhile. Instead the connection runs with
 * `synchronous=NORMAL` (COMMIT only writes the WAL frames) and this class syncs the WAL file with
 * fdatasync on libuv's thread pool. One sync covers every commit written before it started, so
 * commits that come while one runs share the next (group fsync). The store answers a write only
 * once a sync that started after its COMMIT has finished, and a read only once the commits before
 * it are synced (`readBarrier`): no response shows data that a power loss could still take back.
 *
 * fdatasync flushes the file's data (and its size) whichever descriptor names it, and SQLite only
 * truncates the WAL (never replaces it) while connections are open, so one descriptor opened at
 * start serves for the store's life. A failed sync leaves the file's state unknown (the kernel
 * may have dropped the dirty pages, and a later sync could succeed without them), so the first
 * failure is final: the writes waiting for it and every write after it fail (`failure`), and the
 * store reports itself unavailable. A restart alone does not make it safe again: the page cache
 * may still hold pages that never reached the disk, and a new descriptor is not told of the old
 * error, so a restarted server would serve them. Check the disk and reboot (or remount) first.
 */
export class WalSync {
  private committed = 0;
  private synced = 0;
  private running = false;
  private waiters: Waiter[] = [];
  private failed: Error | undefined;
  private closed = false;
  private idle: (() => void) | undefined;

  /** Takes over `fd`, an open descriptor of the WAL file (see `open`); `close` closes it. */
  constructor(private readonly fd: number) {}

  /**
   * Opens the WAL file of the database at `file` (it must exist: open the database in WAL mode
   * and run a statement first), where SQLite keeps it: beside the file a symlink points to, not
   * beside the link. Before anything is served it syncs the WAL (a crash may have left frames
   * written but never synced, which SQLite replays and the store would otherwise serve; the
   * migrations just committed are among them) and fsyncs its folder, so the WAL's directory
   * entry is on disk too (SQLite with FULL does the same on the first sync of a new WAL).
   */
  static open(file: string): WalSync {
    const real = realpathSync(file);
    const fd = openSync(`${real}-wal`, 'r');
    try {
      fdatasyncSync(fd);
      const folder = openSync(dirname(real), 'r');
      try {
        fsyncSync(folder);
      } finally {
        closeSync(folder);
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new WalSync(fd);
  }

  /** The error that made syncing fail for good, if any: no write may be applied any more. */
  get failure(): Error | undefined {
    return this.failed;
  }

  /** Call right after a COMMIT returned: resolves once that commit is on disk. */
  committedNow(): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    const generation = ++this.committed;
    return new Promise((resolve, reject) => {
      this.waiters.push({ generation, resolve, reject });
      this.kick();
    });
  }

  /**
   * Call right after a COMMIT returned whose writer need not wait for it to be durable (the webhook
   * dispatcher's claims and records: one lost to a power cut only means an attempt made again).
   * It is synced in the background, never on this thread; the promise (undefined: at once) waits
   * only for the EARLIER commits — what the transaction's reads could have seen — so nothing read
   * in it leaves the process before it is on disk.
   */
  committedQuietly(): Promise<void> | undefined {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    const before = this.committed;
    this.committed += 1;
    this.kick();
    if (this.synced >= before) return undefined;
    return new Promise((resolve, reject) => {
      this.waiters.push({ generation: before, resolve, reject });
    });
  }

  /**
   * For a read that just ran: undefined when everything it could have seen is on disk already
   * (the common case: answer at once), else a promise that settles once it is.
   */
  readBarrier(): Promise<void> | undefined {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    if (this.synced === this.committed) return undefined;
    return new Promise((resolve, reject) => {
      this.waiters.push({ generation: this.committed, resolve, reject });
    });
  }

  /** Waits for the sync in progress and any still owed, then closes the descriptor. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.running) await new Promise<void>((resolve) => (this.idle = resolve));
    closeSync(this.fd);
  }

  private kick(): void {
    if (this.running || this.synced === this.committed) return;
    this.running = true;
    const target = this.committed;
    fdatasync(this.fd, (error) => {
      this.running = false;
      if (error !== null) this.fail(error);
      else this.settle(target);
      if (this.failed === undefined && this.synced < this.committed) this.kick();
      else this.idle?.();
    });
  }

  private settle(target: number): void {
    this.synced = target;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.generation <= target) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  private fail(error: Error): void {
    this.failed = new Error(
      'syncing the SQLite WAL to disk failed; writes are refused (check the disk, then reboot or remount before restarting)',
      { cause: error },
    );
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) waiter.reject(this.failed);
  }
}

/**
 * A plant read's result, released only once every commit it could have seen is on disk (see
 * WalSync.readBarrier): a response never shows a write that a power loss could still undo.
 */
export const whenDurable = <Err, A>(
  wal: WalSync | undefined,
  result: E.Either<Err, A>,
): E.Either<Err | StoreError, A> | Promise<E.Either<Err | StoreError, A>> => {
  const barrier = wal?.readBarrier();
  return barrier === undefined
    ? result
    : barrier.then(
        () => result,
        (cause: unknown) => E.left(storeUnavailable(cause)),
      );
};
