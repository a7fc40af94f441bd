import type { PlantId, PlantName } from '@plant-store/domain';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import type { PageQuery } from '../../ports/plant-store.js';
import { GroupCommit } from './group-commit.js';
import { openSqliteStore } from './open.js';
import { plainPlant } from '../../../test/contract/values.js';

/** The first page of `limit` plants in id order. */
const firstPage = (limit: number): PageQuery => ({ limit, order: { by: 'id', descending: false } });

type Op =
  { readonly kind: 'create'; readonly id: number | undefined } | { readonly kind: 'delete'; readonly id: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    id: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 12 }) }),
);

/** What one write returns when the writes run one after another: the model of group commit. */
const sequentially = (ops: readonly Op[]) => {
  const ids = new Set<number>();
  let highWater = 0;
  const outcomes = ops.map((o): string => {
    if (o.kind === 'delete') return ids.delete(o.id) ? 'deleted' : 'PlantNotFound';
    const id = o.id ?? highWater + 1;
    if (ids.has(id)) return 'IdTaken';
    ids.add(id);
    highWater = Math.max(highWater, id);
    return `created ${id}`;
  });
  return { outcomes, ids: [...ids].sort((a, b) => a - b) };
};

describe('group commit', () => {
  it('gives every write of concurrent batches the outcome it would have had alone, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), fc.integer({ min: 1, max: 7 }), async (ops, maxBatchSize) => {
        const store = await openSqliteStore({ file: ':memory:', maxBatchSize });
        try {
          // All submitted in one turn: they share batches of at most maxBatchSize writes.
          const results = await Promise.all(
            ops.map((o) =>
              o.kind === 'create'
                ? store.plants
                    .create({ ...(o.id === undefined ? {} : { id: o.id as PlantId }), name: 'p' as PlantName })()
                    .then(plainPlant)
                : store.plants.delete(o.id as PlantId)(),
            ),
          );
          const outcomes = results.map(
            (r: E.Either<{ readonly _tag: string }, { readonly id: number } | { readonly changeSeq: number }>) =>
              E.isLeft(r) ? r.left._tag : 'id' in r.right ? `created ${r.right.id}` : 'deleted',
          );
          const model = sequentially(ops);
          expect(outcomes).toEqual(model.outcomes);
          const listed = await store.plants.list(firstPage(100))();
          expect(E.isRight(listed) && listed.right.plants.map((p) => p.id)).toEqual(model.ids);
        } finally {
          await store.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('group commit: background work', () => {
  /** A group commit over a table of its own, on a throwaway in-memory database. */
  const setup = () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x TEXT NOT NULL)');
    const insert = db.prepare<[string]>('INSERT INTO t (x) VALUES (?)');
    const batches: number[] = [];
    const commits = new GroupCommit({
      db,
      openBatch: () => ({ finish: () => undefined }),
      maxBatchSize: 1000,
      logger: undefined,
      onBatch: (size) => batches.push(size),
    });
    const write = (x: string, background = false) =>
      commits.submit(() => E.right(insert.run(x).changes), { background });
    const rows = () => db.prepare('SELECT x FROM t ORDER BY rowid').pluck().all();
    return { db, commits, write, rows, batches };
  };

  it("refuses no request's write when a background transaction is rolled back whole", async () => {
    const { db, commits, write, rows } = setup();
    // As SQLITE_FULL does: SQLite itself rolls the whole transaction back under the statement.
    const failing = commits.submit(
      () => {
        db.prepare('ROLLBACK').run();
        return E.right(0);
      },
      { background: true },
    );
    const requests = [write('a'), write('b')];
    expect(await Promise.all(requests)).toEqual([E.right(1), E.right(1)]);
    expect(await failing).toMatchObject({ _tag: 'Left', left: { _tag: 'StoreUnavailable' } });
    expect(rows()).toEqual(['a', 'b']);
  });

  it('takes turns with the requests: a steady stream of writes never holds background work back', async () => {
    const { write, rows, batches } = setup();
    const requests: Promise<unknown>[] = [];
    let done = false;
    const stream = async () => {
      for (let i = 0; i < 50 && !done; i += 1) {
        requests.push(write(`r${i}`));
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const streaming = stream();
    await new Promise((resolve) => setImmediate(resolve));
    const background = await write('background', true);
    done = true;
    await streaming;
    await Promise.all(requests);
    expect(background).toEqual(E.right(1));
    // It ran after at most one more batch of requests, not after the whole stream.
    expect(rows().indexOf('background')).toBeLessThan(5);
    expect(batches.length).toBeGreaterThan(2);
  });
});
