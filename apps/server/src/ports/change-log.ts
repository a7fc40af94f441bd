import type { Plant, PlantId, PlantTag } from '@plant-store/domain';
import type { TaskEither } from 'fp-ts/lib/TaskEither.js';
import type { PlantVersion, StoreError } from './plant-store.js';

/** What a change did to its plant. */
export type ChangeType = 'plant.created' | 'plant.updated' | 'plant.deleted';

interface ChangeHead {
  readonly seq: number;
  /** Commit time, milliseconds since the epoch. */
  readonly at: number;
  readonly id: PlantId;
  /**
   * The tag the change took the plant away from: for an update that changed the tag, the tag
   * before; for a delete, the tag the plant had; absent otherwise. A feed of that tag shows the
   * change (an update as `plant.left`).
   */
  readonly leftTag?: PlantTag | undefined;
}

/** A create or an update: the plant as the change left it (every member of Plant) and its version. */
export type PlantWriteChange = ChangeHead &
  Plant & { readonly type: 'plant.created' | 'plant.updated'; readonly version: PlantVersion };

/** A delete: the id alone. */
export type PlantDeleteChange = ChangeHead & { readonly type: 'plant.deleted'; readonly version?: undefined };

/**
 * One committed change of a plant as the change log keeps it (docs/guides/changes.md, "What a change is").
 * Numbered in commit order over the whole store; the plant as the change left it (a delete: its
 * id). `changes/change-text.ts` writes it as the same bytes on every read.
 */
export type Change = PlantWriteChange | PlantDeleteChange;

/** What the log holds above a number. */
export type ChangesAbove =
  /** The changes numbered above it, in order (as many as asked, or all there are), and the newest number. */
  | { readonly kind: 'changes'; readonly changes: readonly Change[]; readonly newest: number }
  /** The number is above the newest change's. */
  | { readonly kind: 'ahead'; readonly newest: number }
  /** A change numbered above it is older than the retention (forgotten or not): the reader cannot catch up. */
  | { readonly kind: 'expired' };

/**
 * The change log of a store. Every writer of the store fills it in the transaction of its
 * change (triggers on the plants table: this release, an earlier one, an import, a migration's
 * copy), so the reader never misses one.
 */
export interface ChangeLog {
  /**
   * The changes numbered above `since`, at most `limit`. A change committed before
   * `expiredBefore` (ms since the epoch), or forgotten, above `since` makes it `expired`.
   */
  above(since: number, limit: number, expiredBefore: number): TaskEither<StoreError, ChangesAbove>;
  /**
   * The changes above `since` that concern plants with tag `tag` before or after them (its tag is
   * `tag`, or its left tag is), at most `limit`, read through the log's indexes by tag: the cost
   * is that of the changes it answers. `newest` is the newest number of the same snapshot: when
   * fewer than `limit` came, every change up to it was examined. Judged by position like `above`:
   * `expired` when a change above `since` (of any tag) is older than `expiredBefore` or forgotten,
   * or when the log does not know what tag a change above `since` took its plant from (changes
   * logged before the log kept it).
   */
  aboveTagged(since: number, tag: PlantTag, limit: number, expiredBefore: number): TaskEither<StoreError, ChangesAbove>;
  /** The newest change's number (0: none yet). */
  newest(): TaskEither<StoreError, number>;
  /** Forgets at most `limit` of the oldest changes committed before `before` (ms); resolves with how many. */
  forget(before: number, limit: number): TaskEither<StoreError, number>;
}
