import fc from 'fast-check';
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import type { PlantId, PlantName } from '@plant-store/domain';
import { PostgresGate } from './gate.js';
import { PostgresWriteQueue, segment } from './write-queue.js';
import type { Write } from './write.js';

// How a batch is cut into statements, and when a batch leaves (the rest of the write queue is
// tested against PostgreSQL in store.test.ts and outage.test.ts).

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
  return [
    ...(id === undefined ? [] : [`#${id}`]),
    ...(w.kind === 'create' && w.claim !== undefined ? [`k${w.claim.key}`] : []),
  ];
};

const writes = fc.array(
  fc
    .tuple(
      fc.constantFrom<'create' | 'update' | 'delete'>('create', 'update', 'delete'),
      fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
      fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
    )
    .map(([kind, id, key]) => (kind === 'create' ? write(kind, id, key) : write(kind, id ?? 1))),
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
    const batch = [
      write('update', 1),
      write('update', 2),
      write('update', 1),
      write('update', 3),
      write('update', 2),
      write('create', 4),
    ];
    expect(segment(batch).map((part) => part.map((w) => (w.kind === 'create' ? w.plant.id : w.id)))).toEqual([
      [1, 2, 3, 4],
      [1, 2],
    ]);
  });
});

/**
 * A stand-in for the driver that records the creates of each statement and answers every one
 * as stored, on the next timer tick, or when released while held. It knows the two shapes of
 * createsStatement (write-statements.ts): a lone create's fields as parameters, or several as one
 * JSON parameter.
 */
const recordingSql = () => {
  const statements: number[][] = [];
  let held: (() => void)[] | undefined;
  let version = 0;
  const row = (i: number, id: number) => ({
    i,
    id: String(id),
    done: true,
    found: false,
    version: String((version += 1)),
    saved_status: null,
    change_seq: version,
  });
  const sql = (strings: TemplateStringsArray, ...args: unknown[]): unknown => {
    if (!strings.join('').includes('plant_id_counter')) return { fragment: strings.join('?') };
    const json = args.find(
      (arg): arg is { json: { id: number }[] } => typeof arg === 'object' && arg !== null && 'json' in arg,
    );
    const ids = json === undefined ? [args[0] as number] : json.json.map((w) => w.id);
    statements.push(ids);
    return new Promise((resolve) => {
      const answer = () => resolve(ids.map((id, i) => row(i, id)));
      if (held === undefined) setTimeout(answer, 0);
      else held.push(answer);
    });
  };
  sql.json = (value: unknown) => ({ json: value });
  // The statements name the plant columns through `sql.unsafe` fragments (plant-columns.ts).
  sql.unsafe = (text: string) => ({ fragment: text });
  /** Holds the answers to the statements sent from now on; the function returned sends them. */
  const hold = (): (() => void) => {
    const answers: (() => void)[] = [];
    held = answers;
    return () => {
      held = undefined;
      for (const answer of answers) answer();
    };
  };
  return { sql: sql as unknown as postgres.Sql, statements, hold };
};

describe('PostgresWriteQueue batching', () => {
  const open = () => {
    const { sql, statements, hold } = recordingSql();
    const gate = new PostgresGate({
      slots: 8,
      acquireTimeoutMs: 1_000,
      runTimeoutMs: 25_000,
      outageHoldMs: 3_000,
      logger: undefined,
    });
    const queue = new PostgresWriteQueue({
      sql,
      gate,
      acquireTimeoutMs: 1_000,
      maxBatchSize: 100,
      idempotencyTtlSeconds: 60,
    });
    const create = (id: number) => queue.create({ id: id as PlantId, name: 'p' as PlantName });
    return { queue, create, statements, hold };
  };
  /** Runs `fn` from a check-phase callback, as an I/O callback's continuation would run it later in its turn. */
  const fromCheckPhase = <A>(fn: () => A): Promise<A> => new Promise((resolve) => setImmediate(() => resolve(fn())));

  it("sends a lone writer's statement before its event-loop turn ends", async () => {
    const { queue, create, statements } = open();
    const seenAtTurnEnd = fromCheckPhase(() => statements.length);
    const created = create(1);
    expect(await seenAtTurnEnd).toBe(1);
    expect((await created)._tag).toBe('Right');
    // Still so for the next lone write.
    const next = fromCheckPhase(() => statements.length);
    const second = create(2);
    expect(await next).toBe(2);
    await second;
    await queue.close();
    expect(statements).toEqual([[1], [2]]);
  });

  it("gathers a turn's writes once writes come together; a lone writer's go at once, and those made meanwhile share the next", async () => {
    const { queue, create, statements, hold } = open();
    // Made in one task: one statement.
    await Promise.all([create(1), create(2), create(3)]);
    // Made by two callbacks of one turn, after a batch of several: one statement.
    await Promise.all([fromCheckPhase(() => create(4)), fromCheckPhase(() => create(5))]);
    // Alone now, after company: it still waits for its turn to end; the next goes at once.
    const notYet = fromCheckPhase(() => statements.length);
    const sixth = create(6);
    expect(await notYet).toBe(2);
    await sixth;
    const release = hold();
    const seenAtTurnEnd = fromCheckPhase(() => statements.length);
    const lone = create(7);
    expect(await seenAtTurnEnd).toBe(4);
    // Writes made while it is written wait for it, then share the next statement.
    const meanwhile = [fromCheckPhase(() => create(8)), fromCheckPhase(() => create(9))];
    await fromCheckPhase(() => undefined);
    release();
    await Promise.all([lone, ...meanwhile]);
    await queue.close();
    expect(statements).toEqual([[1, 2, 3], [4, 5], [6], [7], [8, 9]]);
  });
});
