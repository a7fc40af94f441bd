import { MAX_PLANT_ID, type PlantId, type ReplacePlantRequest, type UpdatePlantRequest } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import type postgres from 'postgres';
import type { IdempotencyClaim, NewPlant, WriteCondition } from '../../ports/plant-store.js';
import type { SpanHandle, StoreTracing, WriteTrace } from '../../tracing/tracing.js';
import { PostgresStoreError, type PostgresGate } from './gate.js';
import { GapRow, SegmentRows, type SegmentRow } from './rows.js';
import type { CreateOutcome, CreateWrite, DeleteOutcome, ReplaceOutcome, UpdateOutcome, Write } from './write.js';
import { fail, settle, stored, unavailable } from './write-outcomes.js';
import { createsStatement, functionStatement, gapStatement } from './write-statements.js';

interface Queued {
  readonly write: Write;
  readonly timer: NodeJS.Timeout;
  /** `performance.now()` when the write was submitted (the gate's outage deadline counts from it). */
  readonly arrivedAt: number;
}

export interface WriteQueueOptions {
  readonly sql: postgres.Sql;
  readonly gate: PostgresGate;
  /** How long a write may wait in the queue before it becomes StoreUnavailable. */
  readonly acquireTimeoutMs: number;
  /** Most writes per batch. */
  readonly maxBatchSize: number;
  /** How long a keyed create's outcome is kept (IDEMPOTENCY_TTL_SECONDS). */
  readonly idempotencyTtlSeconds: number;
  /** Tracing on: each write's trace is captured when it is queued (its events save it), and each batch gets a span linked to them. */
  readonly tracing?: StoreTracing | undefined;
}

/**
 * Group commit for PostgreSQL: the creates and deletes that arrive during one event-loop turn
 * (and those that arrive while a batch is being written) go to the database as ONE statement,
 * so N writes cost one round trip and one commit (one WAL flush) instead of N. Only a lone
 * writer (the previous batch held one write) does not wait for the end of its turn: its
 * statement goes out at once, and whatever arrives meanwhile gathers for the next.
 *
 * The statement (write-statements.ts) is createsStatement when every write of the segment is a
 * create without an idempotency key, the common case; otherwise a call of plant_store_write_v2
 * (migrations/write-function.ts), which also does keys, updates, deletes and conditions. Both do
 * the same to a create without a key. Their rows are decoded in rows.ts (SegmentRow) and handed
 * out as each write's outcome in write-outcomes.ts.
 *
 * Each write keeps its own outcome. In that statement a create is `INSERT … ON CONFLICT (id) DO
 * NOTHING RETURNING id` (no row back: IdTaken; no exception, so one duplicate cannot abort its
 * neighbours) and a delete is `DELETE … RETURNING` (no row back: PlantNotFound). A batch that
 * names one id twice (create, delete, create…) is split where the id repeats and its statements
 * run one after another, so the writes take effect in the order they were made. A write
 * resolves only after its statement has returned, i.e. after COMMIT; if the statement fails,
 * its writes and the batch's later ones resolve to StoreUnavailable (none acknowledged).
 *
 * The statement first updates the single `plant_id_counter` row, the high-water mark: raised to
 * above the largest client-chosen id the statement creates (never by a delete), then advanced
 * past the ids it assigns. The
 * row lock makes write statements of all instances take turns, which keeps the mark exact under
 * concurrency (an explicit id does not advance a sequence; this mark it does) and rules out
 * deadlocks between statements that touch the same plants in different orders. One statement is
 * in flight per store at a time; the next batch gathers meanwhile.
 *
 * Why one statement and not a transaction: the driver's `begin()`/`reserve()` pin a connection,
 * and in postgres 3.4.9 a pinned connection that dies mid-transaction can throw from a timer
 * (an uncatchable crash) or never come back (porsager/postgres#1208, #1215, #1216). Single
 * statements run on pooled connections, which the driver replaces cleanly.
 */
export class PostgresWriteQueue {
  private readonly queue: Queued[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Writes in the last batch flushed; 1 while a lone client waits for each answer. */
  private lastBatchSize = 0;

  constructor(private readonly options: WriteQueueOptions) {}

  /** A create, with its key when it has one (see plant_store_write in migrations/0004-webhooks.ts). */
  create(plant: NewPlant, claim?: IdempotencyClaim): Promise<CreateOutcome> {
    return new Promise((resolve) =>
      this.submit({ kind: 'create', plant, claim, resolve, trace: this.options.tracing?.current() }),
    );
  }

  /** A merge patch under `condition`, checked and written in one statement (see plant_store_write_v2). */
  update(id: PlantId, patch: UpdatePlantRequest, condition: WriteCondition): Promise<UpdateOutcome> {
    return new Promise((resolve) =>
      this.submit({ kind: 'update', id, patch, condition, resolve, trace: this.options.tracing?.current() }),
    );
  }

  /** A PUT under `condition`: replaces the plant, or creates it when absent (see plant_store_write_v4). */
  replace(id: PlantId, plant: ReplacePlantRequest, condition: WriteCondition): Promise<ReplaceOutcome> {
    return new Promise((resolve) =>
      this.submit({ kind: 'replace', id, plant, condition, resolve, trace: this.options.tracing?.current() }),
    );
  }

  delete(id: PlantId, condition?: WriteCondition): Promise<DeleteOutcome> {
    return new Promise((resolve) =>
      this.submit({ kind: 'delete', id, condition, resolve, trace: this.options.tracing?.current() }),
    );
  }

  /** Refuses new writes, then resolves once the queued ones are committed (or failed). */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running !== undefined || this.queue.length > 0) {
      if (this.running === undefined) this.flush();
      await this.running;
    }
  }

  private submit(write: Write): void {
    if (this.closed) {
      write.resolve(E.left(unavailable('the store is closed', 'STORE_CLOSED')));
      return;
    }
    const queued: Queued = {
      write,
      arrivedAt: performance.now(),
      timer: setTimeout(() => {
        const index = this.queue.indexOf(queued);
        if (index < 0) return;
        this.queue.splice(index, 1);
        write.resolve(
          E.left(
            unavailable(`no database connection free within ${this.options.acquireTimeoutMs} ms`, 'ACQUIRE_TIMEOUT'),
          ),
        );
      }, this.options.acquireTimeoutMs),
    };
    this.queue.push(queued);
    if (!this.scheduled && this.running === undefined) {
      this.scheduled = true;
      const run = (): void => {
        this.scheduled = false;
        if (this.running === undefined) this.flush();
      };
      // Writes that arrive together (the last batch held several) gather until the end of this
      // event-loop turn, to share a statement. A lone writer's statement goes out from this task: from
      // a check-phase callback the driver would send it only in the next turn (it writes to
      // the socket from setImmediate), one more turn per request with nobody to gather.
      if (this.lastBatchSize <= 1) queueMicrotask(run);
      else setImmediate(run);
    }
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.options.maxBatchSize);
    if (batch.length === 0) return;
    for (const { timer } of batch) clearTimeout(timer);
    const writes = batch.map((queued) => queued.write);
    this.lastBatchSize = writes.length;
    const since = Math.min(...batch.map((queued) => queued.arrivedAt));
    const span = this.options.tracing?.batch(
      'postgresql',
      'postgresql write batch',
      writes.map((write) => write.trace),
    );
    this.running = this.commit(writes, since, span)
      .catch((error: unknown) => {
        span?.end(error);
        // A defect (commit itself never rejects on database errors): fail whatever is still
        // waiting rather than leave it hanging; resolving an already resolved write is a no-op.
        const failed = E.left(
          unavailable(`the write batch failed: ${error instanceof Error ? error.message : String(error)}`, 'DEFECT'),
        );
        for (const write of writes) fail(write, failed);
      })
      .finally(() => {
        this.running = undefined;
        if (this.queue.length > 0) this.flush();
      });
  }

  /** Commits the batch; ends its span (when traced) once every write has its outcome. */
  private async commit(writes: readonly Write[], since: number, span: SpanHandle | undefined): Promise<void> {
    const segments = segment(writes);
    for (const [index, part] of segments.entries()) {
      const outcome = await this.options.gate.run(`write batch of ${part.length}`, () => this.runSegment(part), {
        since,
      });
      if (E.isLeft(outcome)) {
        // This segment rolled back (or its outcome is unknown); the later ones never ran.
        const failed = E.left(outcome.left);
        for (const write of segments.slice(index).flat()) fail(write, failed);
        span?.end(outcome.left);
        return;
      }
      // The statement has returned, so it has committed: hand out the outcomes.
      const exhausted = settle(part, outcome.right);
      for (const write of exhausted) write.resolve(await this.createInGap(write.plant, write.claim, write.trace));
    }
    span?.end();
  }

  /**
   * A server-assigned create once the high-water mark has passed 2^53−1 (a client took the last
   * id): the smallest free id above a persisted gap cursor, wrapping to 1 once, as the SQLite
   * store does. Only here may a deleted id be reused; the contract's range leaves no other choice
   * short of refusing the create. The cursor only moves forward, so the search walks each stored
   * id at most once per wrap. The statement locks the counter row before reading the cursor, so
   * concurrent instances take turns; should one still take the same id first, try again.
   */
  private async createInGap(
    plant: NewPlant,
    claim: IdempotencyClaim | undefined,
    trace: WriteTrace | undefined,
  ): Promise<CreateOutcome> {
    const { sql, gate } = this.options;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const outcome = await gate.run('create in an id gap', async () => {
        const [row] = await gapStatement(sql, plant, claim, trace, this.options.idempotencyTtlSeconds);
        return GapRow.decode(row);
      });
      if (E.isLeft(outcome)) return outcome;
      const decoded = outcome.right;
      if (E.isLeft(decoded))
        return E.left(unavailable('the id gap statement returned an unexpected row', 'BAD_RESULT'));
      const { candidate, id, version, change_seq: changeSeq } = decoded.right;
      if (candidate === null)
        return E.left(unavailable(`every plant id from 1 to ${MAX_PLANT_ID} is in use`, 'IDS_EXHAUSTED'));
      if (id !== null && version !== null && changeSeq !== null)
        return E.right({ result: E.right({ plant: stored(id, plant), version, changeSeq }), replayed: false });
    }
    return E.left(unavailable('could not claim a free plant id; other writers took each one first', 'ID_CONTENTION'));
  }

  /**
   * One transaction for writes that name distinct ids and keys, one statement on a pooled
   * connection: createsStatement when every write is a create without a key, otherwise
   * the write function (PLANT_WRITE_FUNCTION). Resolves to one row per write, in order.
   */
  private async runSegment(writes: readonly Write[]): Promise<readonly SegmentRow[]> {
    const { sql, idempotencyTtlSeconds } = this.options;
    // Creates without keys (the common case) take a plain statement; a segment with a key, an
    // update or a delete takes the function.
    const rows = await (writes.every(isUnkeyedCreate)
      ? createsStatement(sql, writes)
      : functionStatement(sql, writes, idempotencyTtlSeconds));
    const decoded = SegmentRows.decode(rows);
    if (E.isLeft(decoded) || decoded.right.length !== writes.length) {
      throw new PostgresStoreError(
        `the write statement returned ${rows.length} unexpected rows for ${writes.length} writes`,
        undefined,
      );
    }
    return decoded.right;
  }
}

const isUnkeyedCreate = (write: Write): write is CreateWrite => write.kind === 'create' && write.claim === undefined;

/**
 * Splits a batch into statements so that no statement names an id or an idempotency key twice:
 * one statement sees one snapshot and cannot touch a row twice, so a create, delete and create of
 * one id must run as three statements, in order (and a key's second use must see its first).
 * Each write goes to the first statement after every earlier one that names its id or key, so a
 * batch takes as many statements as its most repeated id (a hot plant patched twice: two), not
 * one per repeat. Writes of one batch were all in flight together (none waited for another's
 * answer), so any order that keeps each id's and each key's writes in their order is one they
 * could have had.
 * Server-assigned ids are above every stored id and every id the statement creates, so they
 * never split it. They may equal an absent id the statement deletes: that delete sees the
 * snapshot before the insert and finds nothing, as if it ran first, which is a valid order for
 * writes that were in flight together.
 */
export const segment = (writes: readonly Write[]): Write[][] => {
  const segments: Write[][] = [];
  /** The last statement that names an id (`#<id>`) or a key (`<owner>\n<key>`). */
  const lastIn = new Map<string, number>();
  for (const write of writes) {
    const id = write.kind === 'create' ? write.plant.id : write.id;
    const marks = [
      ...(id === undefined ? [] : [`#${id}`]),
      ...(write.kind === 'create' && write.claim !== undefined ? [`${write.claim.owner}\n${write.claim.key}`] : []),
    ];
    let level = 0;
    for (const mark of marks) {
      const last = lastIn.get(mark);
      if (last !== undefined) level = Math.max(level, last + 1);
    }
    (segments[level] ??= []).push(write);
    for (const mark of marks) lastIn.set(mark, level);
  }
  return segments;
};
