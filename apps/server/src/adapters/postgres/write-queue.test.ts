import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlantId, PlantName } from '@plant-store/domain';
import { segment, type Write } from './write-queue.js';

// How a batch is cut into statements (the rest of the write queue is tested against PostgreSQL
// in store.test.ts and outage.test.ts).

const noop = (): void => undefined;
const write = (kind: 'create' | 'update' | 'delete', id: number | undefined, key?: string): Write =>
  kind === 'create'
    ? {
        kind,
        plant: { ...(id === undefined ? {} : { id: id as PlantId }), name: 'p' as PlantName },
        claim: key === undefined ? undefined : { owner: 'tok', key: key as never, request: '[]' },
        resolve: noop,
      }
    : kind === 'update'
      ? { kind, id: id as PlantId, patch: {}, condition: {}, resolve: noop }
      : { kind, id: id as PlantId, condition: undefined, resolve: noop };

const marksOf = (w: Write): string[] => {
  const id = w.kind === 'create' ? w.plant.id : w.id;
  return [...(id === undefined ? [] : [`#${id}`]), ...(w.kind === 'create' && w.claim !== undefined ? [`k${w.claim.key}`] : [])];
};

const writes = fc.array(
  fc.tuple(fc.constantFrom<'create' | 'update' | 'delete'>('create', 'update', 'delete'), fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }), fc.option(fc.constantFrom('a', 'b'), { nil: undefined })).map(([kind, id, key]) =>
    kind === 'create' ? write(kind, id, key) : write(kind, id ?? 1),
  ),
  { maxLength: 40 },
);

describe('segment', () => {
  it('keeps every write once, never names an id or a key twice in a statement, and keeps the writes of each in order', () => {
    fc.assert(
      fc.property(writes, (batch) => {
        const segments = segment(batch);
        expect(segments.flat().length).toBe(batch.length);
        expect(new Set(segments.flat())).toEqual(new Set(batch));
        for (const part of segments) {
          expect(part.length).toBeGreaterThan(0);
          const marks = part.flatMap(marksOf);
          expect(new Set(marks).size).toBe(marks.length);
        }
        const levelOf = new Map(segments.flatMap((part, level) => part.map((w) => [w, level] as const)));
        const last = new Map<string, number>();
        for (const w of batch) {
          for (const mark of marksOf(w)) {
            const level = levelOf.get(w) as number;
            if (last.has(mark)) expect(level).toBeGreaterThan(last.get(mark) as number);
            last.set(mark, level);
          }
        }
      }),
    );
  });

  it('takes as many statements as the most repeated id, not one per repeat', () => {
    const batch = [write('update', 1), write('update', 2), write('update', 1), write('update', 3), write('update', 2), write('create', 4)];
    expect(segment(batch).map((part) => part.map((w) => (w.kind === 'create' ? w.plant.id : w.id)))).toEqual([
      [1, 2, 3, 4],
      [1, 2],
    ]);
  });
});
