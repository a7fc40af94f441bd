import { MAX_PLANT_ID } from '@plant-store/domain';
import type BetterSqlite3 from 'better-sqlite3';
import * as t from 'io-ts';

const IdsRow = t.type({ high_water: t.number, gap_cursor: t.number, revision: t.number, max_id: t.union([t.number, t.null]) }, 'IdsRow');
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
 * Server-assigned ids, and plant versions, for one write transaction.
 *
 * Versions: `revision` counts up, one per create and per update that changes a plant; each takes
 * the next value, so no value is given twice (see migration 4). Like the mark, it is read once
 * per batch and written back in the same transaction.
 *
 * The rule: a server-assigned id is one more than the largest id ever stored (the high-water
 * mark in `plant_ids`, also raised by client-chosen ids, and never lowered by deletes), so it
 * never collides with an existing plant and never reuses a deleted id, across restarts too. The
 * mark is read once per batch (with `max(id)` as a guard, one b-tree seek) and written back in
 * the same transaction, so it commits or rolls back with the inserts.
 *
 * Id space exhausted: ids must stay within 1 … 2^53−1. Once the mark has reached 2^53−1 (a
 * client may create that id), we do not fail creates; we assign the smallest free id above a
 * persisted gap cursor, wrapping to 1 once. Only then may a previously deleted id be reused: the
 * contract's range leaves no other choice short of refusing the create. The cursor only moves
 * forward, so the gap search walks each stored id at most once per wrap (amortised O(1)).
 */
export class PlantIdAllocator {
  private highWater = 0;
  private gapCursor = 0;
  private revision = 0;
  private loaded = false;
  private dirty = false;

  constructor(private readonly statements: PlantIdStatements) {}

  /** The id for the next server-assigned create, or undefined when all 2^53−1 ids are in use. */
  next(): number | undefined {
    this.load();
    if (this.highWater < MAX_PLANT_ID) return this.highWater + 1;
    const id = this.freeFrom(this.gapCursor + 1) ?? this.freeFrom(1);
    if (id !== undefined) {
      this.gapCursor = id;
      this.dirty = true;
    }
    return id;
  }

  /** The version for a plant this transaction creates or changes. */
  nextVersion(): number {
    this.load();
    this.revision += 1;
    this.dirty = true;
    return this.revision;
  }

  /** Records that `id` is now stored (client-chosen or assigned). */
  stored(id: number): void {
    this.load();
    if (id > this.highWater) {
      this.highWater = id;
      this.dirty = true;
    }
  }

  /** Writes the mark back; call inside the transaction, after the batch's writes. */
  finish(): void {
    if (this.dirty) this.statements.save.run(this.highWater, this.gapCursor, this.revision);
    this.dirty = false;
  }

  private load(): void {
    if (this.loaded) return;
    const row = IdsRow.decode(this.statements.load.get());
    if (row._tag === 'Left') throw new TypeError('plant_ids holds no valid high-water row');
    const { high_water, gap_cursor, revision, max_id } = row.right;
    this.highWater = Math.max(high_water, max_id ?? 0);
    this.gapCursor = gap_cursor;
    this.revision = revision;
    this.dirty = this.highWater !== high_water;
    this.loaded = true;
  }

  private freeFrom(from: number): number | undefined {
    if (from > MAX_PLANT_ID) return undefined;
    if (this.statements.exists.get(from) === undefined) return from;
    const row = IdRow.decode(this.statements.nextGap.get(from, MAX_PLANT_ID));
    return row._tag === 'Right' ? row.right.id : undefined;
  }
}
