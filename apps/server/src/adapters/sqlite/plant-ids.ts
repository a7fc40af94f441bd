import { MAX_PLANT_ID } from '@plant-store/domain';
import type BetterSqlite3 from 'better-sqlite3';
import * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';

const IdsRow = t.type(
  { high_water: t.number, gap_cursor: t.number, revision: t.number, max_id: t.union([t.number, t.null]) },
  'IdsRow',
);
const IdRow = t.type({ id: t.number }, 'IdRow');

/** The statements id allocation needs, prepared once per connection. */
export interface PlantIdStatements {
  readonly load: BetterSqlite3.Statement<[]>;
  readonly save: BetterSqlite3.Statement<[number, number, number]>;
  readonly exists: BetterSqlite3.Statement<[number]>;
  readonly nextGap: BetterSqlite3.Statement<[number, number]>;
}

export const preparePlantIdStatements = (db: BetterSqlite3.Database): PlantIdStatements => ({
  load: db.prepare(
    'SELECT high_water, gap_cursor, revision, (SELECT max(id) FROM plants) AS max_id FROM plant_ids WHERE singleton = 1',
  ),
  save: db.prepare('UPDATE plant_ids SET high_water = ?, gap_cursor = ?, revision = ? WHERE singleton = 1'),
  exists: db.prepare('SELECT 1 FROM plants WHERE id = ?').pluck(),
  // The first id after a stored one that is itself free, walking the primary key from `from`.
  nextGap: db.prepare(
    `SELECT p.id + 1 AS id FROM plants p
      WHERE p.id >= ? AND p.id < ? AND NOT EXISTS (SELECT 1 FROM plants q WHERE q.id = p.id + 1)
      ORDER BY p.id LIMIT 1`,
  ),
});

/**
 * Plant versions handed out between two writes of `plant_ids.revision`: the column holds the end
 * of the block reserved last, so a version is written to disk once per block, not once per batch.
 */
export const VERSION_BLOCK = 1024;

/** What the allocator knows of `plant_ids`, kept from one write transaction to the next. */
interface IdsState {
  /** The largest id ever stored (the persisted mark, raised by every id stored since). */
  highWater: number;
  /** The mark as `plant_ids.high_water` holds it. */
  persistedHighWater: number;
  gapCursor: number;
  /** The last version handed out. */
  revision: number;
  /** The end of the reserved block, as `plant_ids.revision` holds it. */
  reservedTo: number;
}

/**
 * The connection's id and version state across its write transactions. Reading `plant_ids` once
 * per batch and writing it back cost a statement and a page of WAL per batch — at one connection,
 * per request. The state a batch leaves is kept, and the next batch starts from it as
 * long as no other connection has committed since (`PRAGMA data_version` unchanged, read inside
 * the transaction, under the write lock); otherwise it reads `plant_ids` again. A batch that fails
 * leaves the kept state as it was, as its transaction leaves the table.
 */
export class PlantIds {
  private state: IdsState | undefined;
  private validFor: unknown;

  constructor(private readonly statements: PlantIdStatements) {}

  /** The allocator of one write transaction; `dataVersion`: the connection's, read inside it. */
  open(dataVersion: unknown): PlantIdAllocator {
    const known = dataVersion === this.validFor ? this.state : undefined;
    return new PlantIdAllocator(this.statements, known, (state) => {
      this.state = state;
      this.validFor = dataVersion;
    });
  }
}

/**
 * Server-assigned ids, and plant versions, for one write transaction.
 *
 * Versions: each create, and each update that changes a plant, takes the next value of a
 * store-wide counter, so no value is given twice (see migration 4). Values are reserved in blocks
 * of VERSION_BLOCK: `plant_ids.revision` is the end of the last block, written (with the batch)
 * when a block is taken. After a restart, or when another connection reserved a block, counting
 * goes on above the persisted end: the rest of an unfinished block is never used, which only
 * leaves a gap, and two connections on one file count in blocks of their own.
 *
 * The rule: a server-assigned id is one more than the largest id ever stored, so it never
 * collides with an existing plant and never reuses a deleted id, across restarts too. That is
 * `max(plant_ids.high_water, max(id))`: the stored plants carry their own ids, and the mark
 * remembers the largest of them once it is deleted — it is written only when a batch deletes the
 * largest stored id while that is above it (and commits or rolls back with that delete). Client-chosen ids raise it the same way.
 *
 * Id space exhausted: ids must stay within 1 … 2^53−1. Once the mark has reached 2^53−1 (a
 * client may create that id), we do not fail creates; we assign the smallest free id above a
 * persisted gap cursor, wrapping to 1 once. Only then may a previously deleted id be reused: the
 * contract's range leaves no other choice short of refusing the create. The cursor only moves
 * forward, so the gap search walks each stored id at most once per wrap (amortised O(1)).
 */
export class PlantIdAllocator {
  private state: IdsState | undefined;
  private dirty = false;

  /**
   * `known`: the state the previous batch left, when still valid (see PlantIds); `publish`
   * receives this batch's once it has committed.
   */
  constructor(
    private readonly statements: PlantIdStatements,
    private readonly known: IdsState | undefined,
    private readonly publish: (state: IdsState) => void,
  ) {}

  /** The id for the next server-assigned create, or undefined when all 2^53−1 ids are in use. */
  next(): number | undefined {
    const state = this.load();
    if (state.highWater < MAX_PLANT_ID) return state.highWater + 1;
    const id = this.freeFrom(state.gapCursor + 1) ?? this.freeFrom(1);
    if (id !== undefined) {
      state.gapCursor = id;
      this.dirty = true;
    }
    return id;
  }

  /** The version for a plant this transaction creates or changes. */
  nextVersion(): number {
    const state = this.load();
    if (state.revision >= state.reservedTo) {
      state.reservedTo = state.revision + VERSION_BLOCK;
      this.dirty = true;
    }
    state.revision += 1;
    return state.revision;
  }

  /** Records that `id` is now stored (client-chosen or assigned): the stored row itself keeps it. */
  stored(id: number): void {
    const state = this.load();
    if (id > state.highWater) state.highWater = id;
  }

  /**
   * Deletes `id` through `run` (true: a plant was deleted). The mark is read first, while
   * `max(id)` still counts the plant. Once it is gone, the mark must remember it only when it was
   * the largest stored id (`highWater` is exactly max(persisted, max(id)), so above the persisted
   * mark that is `id === highWater`): deleting any other plant leaves `max(id)` as it was.
   */
  removing(id: number, run: () => boolean): boolean {
    const state = this.load();
    const deleted = run();
    if (deleted && id > state.persistedHighWater && id >= state.highWater) this.dirty = true;
    return deleted;
  }

  /**
   * A mark to come back to: the returned function puts the allocator back as it is now, for
   * writes since that a savepoint rolled back (an array of creates that stores none of its plants,
   * see plant-batch.ts). Without it a mark raised by a plant that is not there would hide the
   * largest stored id from `removing`, and a later restart could hand a deleted id out again.
   */
  mark(): () => void {
    const state = this.state === undefined ? undefined : { ...this.state };
    const dirty = this.dirty;
    return () => {
      this.state = state === undefined ? undefined : { ...state };
      this.dirty = dirty;
    };
  }

  /** Writes what must be kept back; call inside the transaction, after the batch's writes. */
  finish(): void {
    const state = this.state;
    if (state === undefined || !this.dirty) return;
    this.statements.save.run(state.highWater, state.gapCursor, state.reservedTo);
    state.persistedHighWater = state.highWater;
    this.dirty = false;
  }

  /** Call once the transaction has committed: the next batch may start from this state. */
  applied(): void {
    if (this.state !== undefined) this.publish(this.state);
  }

  private load(): IdsState {
    if (this.state !== undefined) return this.state;
    if (this.known !== undefined) {
      this.state = { ...this.known };
      return this.state;
    }
    const row = IdsRow.decode(this.statements.load.get());
    if (E.isLeft(row)) throw new TypeError('plant_ids holds no valid high-water row');
    const { high_water, gap_cursor, revision, max_id } = row.right;
    this.state = {
      highWater: Math.max(high_water, max_id ?? 0),
      persistedHighWater: high_water,
      gapCursor: gap_cursor,
      revision,
      reservedTo: revision,
    };
    return this.state;
  }

  private freeFrom(from: number): number | undefined {
    if (from > MAX_PLANT_ID) return undefined;
    if (this.statements.exists.get(from) === undefined) return from;
    const row = IdRow.decode(this.statements.nextGap.get(from, MAX_PLANT_ID));
    return E.isRight(row) ? row.right.id : undefined;
  }
}
