import type Database from 'better-sqlite3';
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import type { ChangeLog } from '../../ports/change-log.js';
import { changesAbove, changesAboveTagged, changeStateFromRow } from '../store-rows.js';
import { plantColumnList } from '../plant-columns.js';
import { attempt } from './attempt.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteBatch } from './batch.js';
import { whenDurable, type WalSync } from './wal-sync.js';

/** Every column a change is read with: the plant's (plant-columns.ts) and the tag it left. */
const COLUMNS = `seq, type, plant_id, ${plantColumnList()}, left_tag, version, at`;

/**
 * A page of one tag, as two reads of one snapshot: the first `limit` changes above `since` whose
 * tag is it, and the first `limit` whose left tag is (never both: a change's left tag differs from
 * its tag), each a range of its partial index (migration 11) and a seek per change by number; the
 * two are merged by number. store.test.ts checks the plans.
 */
export const TAGGED_PAGE_SQL = {
  tag: `SELECT ${COLUMNS} FROM plant_changes WHERE tag = @tag AND seq > @since ORDER BY seq LIMIT @limit`,
  leftTag: `SELECT ${COLUMNS} FROM plant_changes WHERE left_tag = @tag AND seq > @since ORDER BY seq LIMIT @limit`,
} as const;

/**
 * The change log in SQLite (migration 8: the triggers on `plants` fill it; migration 11: the
 * left tags and the indexes by tag). A read takes the
 * state and the changes in one read transaction (one snapshot, other processes' commits
 * included), and answers once every commit it could have seen is durable, like a plant read.
 */
export const createSqliteChangeLog = (
  db: Database.Database,
  commits: GroupCommit<SqliteBatch>,
  isClosed: () => boolean,
  wal: WalSync | undefined,
): ChangeLog => {
  const state = db.prepare('SELECT last_seq, forgotten_through, untagged_through FROM plant_change_state');
  const page = db.prepare<[number, number]>(`SELECT ${COLUMNS} FROM plant_changes WHERE seq > ? ORDER BY seq LIMIT ?`);
  const read = db.transaction((since: number, limit: number) => ({
    state: state.get(),
    rows: page.all(since, limit),
  }));
  const firstAt = db.prepare<[number]>('SELECT at FROM plant_changes WHERE seq > ? ORDER BY seq LIMIT 1').pluck();
  const withTag = db.prepare<{ since: number; tag: string; limit: number }>(TAGGED_PAGE_SQL.tag);
  const withLeftTag = db.prepare<{ since: number; tag: string; limit: number }>(TAGGED_PAGE_SQL.leftTag);
  const readTagged = db.transaction((since: number, tag: string, limit: number) => {
    const entered = withTag.all({ since, tag, limit }) as { seq: number }[];
    const left = withLeftTag.all({ since, tag, limit }) as { seq: number }[];
    return {
      state: state.get(),
      firstAt: firstAt.get(since),
      rows: left.length === 0 ? entered : [...entered, ...left].sort((x, y) => x.seq - y.seq).slice(0, limit),
    };
  });
  // The oldest changes committed before a time, at most a number of them; the state remembers the
  // newest number forgotten (a reader behind it has missed changes: 410).
  const forgetOldest = db.prepare<[number, number]>(
    `DELETE FROM plant_changes WHERE seq IN (SELECT seq FROM plant_changes WHERE at < ? ORDER BY seq LIMIT ?)
     RETURNING seq`,
  );
  const recordForgotten = db.prepare<[number]>(
    'UPDATE plant_change_state SET forgotten_through = max(forgotten_through, ?)',
  );
  return {
    above: (since, limit, expiredBefore) => async () =>
      whenDurable(
        wal,
        attempt(isClosed, () => {
          const { state: row, rows } = read(since, limit);
          return pipe(
            changeStateFromRow(row),
            E.chain((s) => changesAbove(since, s, rows, expiredBefore)),
          );
        }),
      ),
    aboveTagged: (since, tag, limit, expiredBefore) => async () =>
      whenDurable(
        wal,
        attempt(isClosed, () => {
          const read = readTagged(since, tag, limit);
          return pipe(
            changeStateFromRow(read.state),
            E.chain((s) => changesAboveTagged(since, s, read.firstAt, read.rows, expiredBefore)),
          );
        }),
      ),
    newest: () => async () =>
      whenDurable(
        wal,
        attempt(isClosed, () =>
          pipe(
            changeStateFromRow(state.get()),
            E.map((s) => s.lastSeq),
          ),
        ),
      ),
    forget: (before, limit) => () =>
      commits.submit(
        () => {
          const gone = forgetOldest.all(before, limit) as { seq: number }[];
          if (gone.length > 0) recordForgotten.run(gone.reduce((max, r) => Math.max(max, r.seq), 0));
          return E.right(gone.length);
        },
        { background: true },
      ),
  };
};
