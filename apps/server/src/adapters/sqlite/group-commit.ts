import { AsyncLocalStorage } from 'node:async_hooks';
import type BetterSqlite3 from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import { storeUnavailable, type StoreUnavailable } from '../../ports/plant-store.js';
import type { StoreTracing, WriteTrace } from '../../tracing/tracing.js';

/** Where the adapter reports what no caller can act on. pino's logger fits. */
export interface StoreLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** State one batch shares between its writes (for example the id high-water mark). */
export interface BatchContext {
  /** Runs inside the transaction after the last write, before COMMIT. */
  finish(): void;
  /** Runs right after COMMIT returned (before the batch is durable): what the next batch builds on. */
  applied?(): void;
  /** Runs once the batch is committed and durable, just before its writes are answered. */
  committed?(): void;
  /** Tracing on: runs before each write with the trace it was queued in (its events save it). */
  traced?(trace: WriteTrace | undefined): void;
}

interface Job<C> {
  readonly apply: (context: C) => E.Either<unknown, unknown>;
  readonly resolve: (outcome: E.Either<unknown, unknown>) => void;
  readonly durable: boolean;
  readonly trace: WriteTrace | undefined;
}

export interface SubmitOptions {
  /**
   * false: the caller need not wait for this write to be on disk, only for the commits before it
   * (see CommitSync.committedQuietly). A batch holding only such writes is answered without
   * waiting for its own sync; one durable write in the batch makes the whole batch wait.
   */
  readonly durable?: boolean;
  /**
   * true: the store's own work (the search index's catch-up, the webhook dispatcher's claims and
   * records, the purges), run in batches of its own, never in a request's: one statement that
   * fails the whole transaction (SQLITE_FULL, SQLITE_IOERR roll it all back) then refuses no
   * request's write. Such batches take turns with the requests' batches, so neither starves.
   */
  readonly background?: boolean;
}

/** Makes commits durable after COMMIT returned (see WalSync); absent: COMMIT itself is durable. */
export interface CommitSync {
  /** Set once syncing failed for good: batches are then refused without being applied. */
  readonly failure: Error | undefined;
  /** Resolves once the commit that just returned is on disk; rejects if that cannot be known. */
  committedNow(): Promise<void>;
  /** A commit nobody waits for: synced in the background; settles once every earlier commit is. */
  committedQuietly(): Promise<void> | undefined;
}

export interface GroupCommitOptions<C extends BatchContext> {
  readonly db: BetterSqlite3.Database;
  readonly sync?: CommitSync | undefined;
  /** Called inside each transaction, after BEGIN, before the first write. */
  readonly openBatch: () => C;
  readonly maxBatchSize: number;
  readonly logger: StoreLogger | undefined;
  /** Told the size of every batch (metrics). */
  readonly onBatch?: ((size: number) => void) | undefined;
  /** Tracing on: each write's trace is captured when it is queued, and each batch gets a span linked to them. */
  readonly tracing?: StoreTracing | undefined;
  /**
   * Asked before each batch: a promise holds the writes (they keep queueing; reads go on) until it
   * settles, undefined lets the batch run now. The store holds its writes while the checkpoint
   * thread restarts a WAL that outgrew its bound (docs/explanation/storage.md).
   */
  readonly hold?: (() => Promise<unknown> | undefined) | undefined;
}

/**
 * Group commit: every write submitted during one event-loop turn is queued and, on
 * `setImmediate`, run in ONE `BEGIN IMMEDIATE … COMMIT` (at most `maxBatchSize` writes per
 * transaction; the rest follow in the next turn). Writes run in submission order, so a create
 * then a delete of one id in one batch behave as if sequential.
 *
 * Each write gets its own outcome: its `apply` returns an Either (an expected failure such as an
 * id conflict must be detected without aborting the transaction, e.g. `ON CONFLICT DO NOTHING`);
 * a statement that throws fails that write only (SQLite rolls back just that statement). If BEGIN
 * or COMMIT fails, or SQLite rolls the whole transaction back, every write of the batch gets
 * StoreUnavailable and none of it is visible. A promise resolves only after COMMIT returned and,
 * with a `sync`, after that commit is on disk; meanwhile the next batches form and commit. If the
 * sync fails, every write of the batch gets StoreUnavailable (the client cannot be told it is
 * durable), and later batches are refused unapplied.
 */
export class GroupCommit<C extends BatchContext> {
  private queue: Job<C>[] = [];
  /** The writes submitted as `background`: batched among themselves only. */
  private backgroundQueue: Job<C>[] = [];
  /** Whether the next batch is a background one when both kinds wait (they take turns). */
  private backgroundTurn = false;
  private scheduled = false;
  private closedBecause: Error | undefined;
  private readonly begin: BetterSqlite3.Statement<[]>;
  private readonly commit: BetterSqlite3.Statement<[]>;
  private readonly rollback: BetterSqlite3.Statement<[]>;
  /**
   * Runs a batch in the context the store was opened in, never in the one of the request whose
   * write scheduled it: what a batch sets off (the search index's timer, the dispatcher's wake)
   * would otherwise run in that request's trace, and its own writes be linked to the request.
   */
  private readonly detached = AsyncLocalStorage.snapshot();

  constructor(private readonly options: GroupCommitOptions<C>) {
    this.begin = options.db.prepare('BEGIN IMMEDIATE');
    this.commit = options.db.prepare('COMMIT');
    this.rollback = options.db.prepare('ROLLBACK');
  }

  /** Queues one write; resolves (never rejects) with its outcome once its batch has committed. */
  submit<Err, A>(
    apply: (context: C) => E.Either<Err, A>,
    options: SubmitOptions = {},
  ): Promise<E.Either<Err | StoreUnavailable, A>> {
    if (this.closedBecause !== undefined) return Promise.resolve(E.left(storeUnavailable(this.closedBecause)));
    return new Promise((resolve) => {
      (options.background === true ? this.backgroundQueue : this.queue).push({
        apply,
        resolve: resolve as (outcome: E.Either<unknown, unknown>) => void,
        durable: options.durable !== false,
        trace: this.options.tracing?.current(),
      });
      this.schedule();
    });
  }

  /** Runs every queued write now, then refuses new ones with StoreUnavailable(`reason`). */
  close(reason: Error): void {
    while (this.pending()) this.flushOne();
    this.closedBecause = reason;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() =>
      this.detached(() => {
        const hold = this.options.hold?.();
        if (hold === undefined) return this.flushScheduled();
        const go = (): void => this.detached(() => this.flushScheduled());
        hold.then(go, go);
      }),
    );
  }

  private flushScheduled(): void {
    this.scheduled = false;
    this.flushOne();
    if (this.pending()) this.schedule();
  }

  private pending(): boolean {
    return this.queue.length > 0 || this.backgroundQueue.length > 0;
  }

  private flushOne(): void {
    const background = this.backgroundQueue.length > 0 && (this.queue.length === 0 || this.backgroundTurn);
    this.backgroundTurn = !background;
    const batch = (background ? this.backgroundQueue : this.queue).splice(0, this.options.maxBatchSize);
    if (batch.length === 0) return;
    this.options.onBatch?.(batch.length);
    const { sync, logger, tracing } = this.options;
    const span = tracing?.batch(
      'sqlite',
      'sqlite group commit',
      batch.map((job) => job.trace),
    );
    const failAll = (cause: unknown): void => {
      span?.end(cause);
      const failure = E.left(storeUnavailable(cause));
      for (const job of batch) job.resolve(failure);
    };
    if (sync?.failure !== undefined) return failAll(sync.failure);
    let outcomes: E.Either<unknown, unknown>[];
    let context: C;
    try {
      [outcomes, context] = this.runBatch(batch);
    } catch (cause) {
      logger?.error({ err: cause, writes: batch.length }, 'store transaction failed; its writes were not applied');
      return failAll(cause);
    }
    span?.event('committed');
    const answer = (): void => {
      span?.end();
      context.committed?.();
      batch.forEach((job, i) => job.resolve(outcomes[i] as E.Either<unknown, unknown>));
    };
    if (sync === undefined) return answer();
    const onSyncFailure = (cause: unknown): void => {
      logger?.error(
        { err: cause, writes: batch.length },
        'store commit could not be made durable; its writes were answered 503',
      );
      failAll(cause);
    };
    if (!batch.some((job) => job.durable)) {
      const earlier = sync.committedQuietly();
      if (earlier === undefined) return answer();
      earlier.then(answer, onSyncFailure);
      return;
    }
    sync.committedNow().then(answer, (cause: unknown) => {
      logger?.error(
        { err: cause, writes: batch.length },
        'store commit could not be made durable; its writes were answered 503',
      );
      failAll(cause);
    });
  }

  /** Applies the batch in one transaction; throws (after rolling back) when it cannot commit. */
  private runBatch(batch: readonly Job<C>[]): [E.Either<unknown, unknown>[], C] {
    const { db } = this.options;
    this.begin.run();
    try {
      const context = this.options.openBatch();
      const outcomes = batch.map((job) => {
        let outcome: E.Either<unknown, unknown>;
        try {
          if (this.options.tracing !== undefined) context.traced?.(job.trace);
          outcome = job.apply(context);
        } catch (cause) {
          outcome = E.left(storeUnavailable(cause));
        }
        // Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM…) roll back the whole transaction.
        if (!db.inTransaction)
          throw new Error('SQLite rolled the transaction back', {
            cause: E.isLeft(outcome) ? outcome.left : undefined,
          });
        return outcome;
      });
      context.finish();
      this.commit.run();
      context.applied?.();
      return [outcomes, context];
    } catch (cause) {
      if (db.inTransaction) {
        try {
          this.rollback.run();
        } catch (rollbackError) {
          this.options.logger?.error({ err: rollbackError }, 'store rollback failed');
        }
      }
      throw cause;
    }
  }
}
