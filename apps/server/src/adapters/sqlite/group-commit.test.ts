import type { PlantId, PlantName } from '@plant-store/domain';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import type { PageQuery } from '../../ports/plant-store.js';
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
          const outcomes = results.map((r: E.Either<{ readonly _tag: string }, { readonly id: number } | void>) =>
            E.isLeft(r) ? r.left._tag : r.right === undefined ? 'deleted' : `created ${r.right.id}`,
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
