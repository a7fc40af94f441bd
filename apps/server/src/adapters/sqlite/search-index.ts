import type BetterSqlite3 from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import type { BatchContext, GroupCommit, StoreLogger } from './group-commit.js';

/** How long after a write the plants it left pending are added to the search index. */
export const SEARCH_INDEX_DELAY_MS = 100;
/** Most plants added to the index per transaction (a preloaded or imported store catches up in steps). */
export const SEARCH_INDEX_CHUNK = 5_000;

/**
 * Adds the plants listed in plants_search_pending to the FTS5 index plants_search, in batches.
 *
 * FTS5 writes a segment of its index at every commit that changed it: about 0.1 ms per commit
 * here, more than the rest of a lone create. So the triggers (migration 7) only list the plants
 * a write inserted or renamed, and this adds them to the index `SEARCH_INDEX_DELAY_MS` after a
 * write, many per segment, through the group commit (so never beside another write) and
 * without waiting for the disk (a pending list lost to a power cut is rebuilt from the plants it
 * names: they are committed with it). Searches read the index and the pending plants together.
 */
export class SearchIndexer<C extends BatchContext> {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly anyPending: BetterSqlite3.Statement<[]>;
  private readonly index: BetterSqlite3.Statement<[number]>;
  private readonly forget: BetterSqlite3.Statement<[number]>;

  constructor(
    db: BetterSqlite3.Database,
    private readonly commits: GroupCommit<C>,
    private readonly logger: StoreLogger | undefined,
  ) {
    this.anyPending = db.prepare('SELECT 1 FROM plants_search_pending LIMIT 1').pluck();
    const chunk = 'SELECT id FROM plants_search_pending ORDER BY id LIMIT ?';
    this.index = db.prepare(
      `INSERT INTO plants_search (rowid, name_folded) SELECT p.id, p.name_folded FROM plants p WHERE p.id IN (${chunk})`,
    );
    this.forget = db.prepare(`DELETE FROM plants_search_pending WHERE id IN (${chunk})`);
    if (this.hasPending()) this.wrote();
  }

  /** A write batch committed: whatever it left pending is indexed soon. */
  wrote(): void {
    if (this.timer !== undefined || this.closed) return;
    this.timer = setTimeout(() => this.flush(), SEARCH_INDEX_DELAY_MS);
    this.timer.unref();
  }

  /**
   * Stops indexing, after queueing one last write that indexes everything still pending (the
   * group commit runs it as it closes): a store closed cleanly has nothing pending, so FTS5's own
   * integrity check against the plants holds. After a crash the next open catches up.
   */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    if (!this.hasPending()) return;
    void this.commits.submit(
      () => {
        do this.indexChunk();
        while (this.anyPending.get() !== undefined);
        return E.right(undefined);
      },
      { durable: false, background: true },
    );
  }

  /** Inside a write: adds the first SEARCH_INDEX_CHUNK pending plants to the index and unlists them. */
  private indexChunk(): void {
    this.index.run(SEARCH_INDEX_CHUNK);
    this.forget.run(SEARCH_INDEX_CHUNK);
  }

  /** Whether any plant waits; false when the file cannot be read (the next write tries again). */
  private hasPending(): boolean {
    try {
      return this.anyPending.get() !== undefined;
    } catch (err) {
      this.logger?.warn({ err }, 'reading the plants pending for the search index failed');
      return false;
    }
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed || !this.hasPending()) return;
    void this.commits
      .submit(
        () => {
          this.indexChunk();
          return E.right(undefined);
        },
        { durable: false, background: true },
      )
      .then((outcome) => {
        if (E.isLeft(outcome))
          this.logger?.warn({ err: outcome.left }, 'adding plants to the search index failed; trying again');
        // Its own batch calls wrote() again: the rest of a long list follows.
      });
  }
}
