import { versioned } from '../../test/contract/values.js';
import { idTaken, plantNotFound, type ListQuery, type PlantId, type PlantName } from '@plant-store/domain';
import * as E from 'fp-ts/lib/Either.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../adapters/sqlite/open.js';
import type { Store } from '../ports/store.js';
import { createPlantService, type PlantService } from './plant-service.js';

const id = (n: number) => n as PlantId;
const name = (s: string) => s as PlantName;
const query = (limit: number, after = 0, more: Partial<ListQuery> = {}) =>
  ({ limit, after, sort: 'id', ...more }) as ListQuery;

let store: Store;
let service: PlantService;
beforeEach(async () => {
  store = await openSqliteStore({ file: ':memory:' });
  service = createPlantService(store.plants);
});
afterEach(() => store.close());

describe('createPlantService', () => {
  it('creates, reads and removes a plant', async () => {
    expect(await service.create({ id: id(7), name: name('Fern') })()).toEqual(
      E.right({ plant: { id: 7, name: 'Fern' }, version: expect.any(Number), changeSeq: 1 }),
    );
    expect(versioned(await service.get(id(7))())).toEqual(
      E.right({ plant: { id: 7, name: 'Fern' }, version: expect.any(Number) }),
    );
    expect(await service.remove(id(7))()).toEqual(E.right({ changeSeq: 2 }));
    expect(await service.get(id(7))()).toEqual(E.left({ ...plantNotFound(id(7)), changeSeq: 2 }));
    expect(await service.remove(id(7))()).toEqual(E.left(plantNotFound(id(7))));
  });

  it('returns IdTaken for a taken id', async () => {
    await service.create({ id: id(1), name: name('A') })();
    expect(await service.create({ id: id(1), name: name('B') })()).toEqual(E.left(idTaken(id(1))));
  });

  it('gives a full page the cursor of its last id, and a shorter page none', async () => {
    for (const n of [1, 2, 3]) await service.create({ id: id(n), name: name(`p${n}`) })();
    const full = await service.list(query(2))();
    expect(full).toEqual(
      E.right({
        plants: [
          { id: 1, name: 'p1' },
          { id: 2, name: 'p2' },
        ],
        next: { after: 2 },
        changeSeq: 3,
      }),
    );
    expect(await service.list(query(2, 2))()).toEqual(
      E.right({ plants: [{ id: 3, name: 'p3' }], next: undefined, changeSeq: 3 }),
    );
    expect(await service.list(query(3))()).toMatchObject({ right: { next: { after: 3 } } });
    expect(await service.list(query(5, 3))()).toEqual(E.right({ plants: [], next: undefined, changeSeq: 3 }));
  });

  it('pages a name order by cursor, counts when asked, and refuses a cursor of another query', async () => {
    for (const [n, s] of [
      [1, 'b'],
      [2, 'A'],
      [3, 'c'],
      [4, 'a'],
    ] as const)
      await service.create({ id: id(n), name: name(s) })();
    const first = await service.list(query(2, 0, { sort: 'name' }), { count: true })();
    if (E.isLeft(first)) throw new Error('expected a page');
    expect(first.right.plants.map((p) => p.id)).toEqual([2, 4]); // "a" twice: ties by id
    expect(first.right.total).toBe(4);
    const next = first.right.next;
    if (next === undefined || !('cursor' in next)) throw new Error('expected a cursor');
    const second = await service.list(query(2, 0, { sort: 'name', cursor: next.cursor as never }))();
    expect(E.isRight(second) && second.right.plants.map((p) => p.id)).toEqual([1, 3]);
    expect(E.isRight(second) && second.right.total).toBeUndefined();
    expect(await service.list(query(2, 0, { sort: '-name', cursor: next.cursor as never }))()).toMatchObject({
      left: { _tag: 'InvalidPlant' },
    });
    expect(
      await service.list(query(2, 0, { sort: 'name', q: 'a' as never, cursor: next.cursor as never }))(),
    ).toMatchObject({
      left: { _tag: 'InvalidPlant' },
    });
    expect(await service.list(query(2, 0, { sort: 'name', cursor: 'bm90LWEtY3Vyc29y' as never }))()).toMatchObject({
      left: { _tag: 'InvalidPlant' },
    });
    const newest = await service.list(query(3, 0, { sort: '-id', q: 'A' as never }), { count: true })();
    expect(E.isRight(newest) && newest.right).toEqual({
      plants: [
        { id: 4, name: 'a' },
        { id: 2, name: 'A' },
      ],
      next: undefined,
      total: 2,
      changeSeq: 4,
    });
  });
});
