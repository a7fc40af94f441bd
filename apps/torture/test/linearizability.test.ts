import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Call, History, Operation, PlantPatch, Result } from './support/history.js';
import { checkHistory, describeHistory, formatVerdict, type Verdict } from './support/linearizability.js';
import { runReference, stepArbitrary } from './support/reference-register.js';
import { RegisterLoad } from './support/register-load.js';

/**
 * The checker on histories whose answer is known: classic register histories (Herlihy & Wing
 * 1990; Knossos's compare-and-set register), the ETag rules of a plant, unknown outcomes that must
 * (or must not) have happened, and a property over histories recorded from a sequential store.
 */

let clients = 0;
/** An operation of a fresh client over [from, to] (to undefined: the answer never came). */
const op = (from: number, to: number | undefined, call: Call, result: Result): Operation => ({
  client: clients++,
  call,
  result,
  invokedAt: from,
  returnedAt: to ?? Infinity,
});
const create = (id: number, name: string, tag?: string): Call => ({
  op: 'create',
  id,
  value: tag === undefined ? { name } : { name, tag },
});
const get = (id: number): Call => ({ op: 'get', id });
const patch = (id: number, p: PlantPatch, ifMatch?: string): Call => ({
  op: 'patch',
  id,
  patch: p,
  ...(ifMatch === undefined ? {} : { ifMatch }),
});
const del = (id: number, ifMatch?: string): Call => ({
  op: 'delete',
  id,
  ...(ifMatch === undefined ? {} : { ifMatch }),
});
const created = (etag: string): Result => ({ status: 201, etag });
const read = (name: string, etag?: string, tag?: string): Result => ({
  status: 200,
  value: tag === undefined ? { name } : { name, tag },
  etag,
});
const gone: Result = { status: 204 };
const missing: Result = { status: 404 };
const taken: Result = { status: 409 };
const failed: Result = { status: 412 };
const lost: Result = { status: 'unknown' };

const ok = (history: History): Verdict => {
  const verdict = checkHistory(history);
  expect(verdict.ok, verdict.ok === false ? verdict.explanation : JSON.stringify(verdict)).toBe(true);
  return verdict;
};
const notOk = (history: History): Verdict & { ok: false } => {
  const verdict = checkHistory(history);
  expect(verdict.ok, JSON.stringify(verdict)).toBe(false);
  return verdict as Verdict & { ok: false };
};

/** Plant 1 created as "a" with ETag "1" over [0, 1]. */
const base = (): Operation[] => [op(0, 1, create(1, 'a'), created('"1"'))];

describe('register histories from the literature', () => {
  it('an empty history and a sequential one are linearizable', () => {
    ok([]);
    ok([
      ...base(),
      op(2, 3, get(1), read('a', '"1"')),
      op(4, 5, patch(1, { name: 'b', tag: 't' }), read('b', '"2"', 't')),
      op(6, 7, patch(1, { tag: null }), read('b', '"3"')),
      op(8, 9, del(1), gone),
      op(10, 11, get(1), missing),
      op(12, 13, del(1), missing),
    ]);
  });

  it('Herlihy & Wing: a read overlapping a write may return the old or the new value', () => {
    const write = op(10, 20, patch(1, { name: 'b' }), read('b', '"2"'));
    ok([...base(), write, op(12, 15, get(1), read('a', '"1"'))]);
    ok([...base(), write, op(12, 15, get(1), read('b', '"2"'))]);
    // both reads inside the write, the first sees the new value, the second the old: no order
    notOk([...base(), write, op(11, 13, get(1), read('b', '"2"')), op(14, 16, get(1), read('a', '"1"'))]);
  });

  it('Jepsen: a read of an old value after the write completed is not linearizable', () => {
    const verdict = notOk([
      ...base(),
      op(10, 20, patch(1, { name: 'b' }), read('b', '"2"')),
      op(25, 30, get(1), read('a', '"1"')),
    ]);
    expect(verdict.id).toBe(1);
    expect(verdict.explanation).toMatch(/get 1 → 200 \{"name":"a"\} ETag "1"/);
    expect(verdict.operations.some((line) => line.includes('✗'))).toBe(true);
  });

  it('Knossos: write 1, then a compare-and-set 1→2 and a concurrent read of 2', () => {
    const cas = op(5, 15, patch(1, { name: '2' }, '"1"'), read('2', '"2"'));
    ok([op(0, 1, create(1, '1'), created('"1"')), cas, op(6, 10, get(1), read('2', '"2"'))]);
    // the read of 2 ended before the compare-and-set began
    notOk([op(0, 1, create(1, '1'), created('"1"')), op(2, 4, get(1), read('2', '"2"')), cas]);
  });

  it('two concurrent If-Match patches with one ETag cannot both succeed, unless neither changes anything', () => {
    const first = op(5, 15, patch(1, { name: 'b' }, '"1"'), read('b', '"2"'));
    notOk([...base(), first, op(6, 14, patch(1, { name: 'c' }, '"1"'), read('c', '"3"'))]);
    ok([...base(), first, op(6, 14, patch(1, { name: 'c' }, '"1"'), failed)]);
    // a patch to the values the plant has keeps its ETag, so the other still matches
    ok([
      ...base(),
      op(5, 15, patch(1, { name: 'a' }, '"1"'), read('a', '"1"')),
      op(6, 14, patch(1, { name: 'a' }, '"1"'), read('a', '"1"')),
    ]);
  });

  it('concurrent creates of one id: one 201, the rest 409; concurrent deletes: one 204', () => {
    ok([op(0, 10, create(1, 'a'), taken), op(1, 9, create(1, 'b'), created('"1"')), op(2, 8, create(1, 'c'), taken)]);
    notOk([op(0, 10, create(1, 'a'), created('"1"')), op(1, 9, create(1, 'b'), created('"2"'))]);
    ok([...base(), op(2, 10, del(1), gone), op(3, 9, del(1), missing)]);
    notOk([...base(), op(2, 10, del(1), gone), op(3, 9, del(1), gone)]);
  });

  it('operations on different plants do not constrain each other (locality)', () => {
    const verdict = ok([
      op(0, 10, create(1, 'a'), created('"1"')),
      op(0, 10, create(2, 'a'), created('"9"')),
      op(11, 12, get(2), read('a', '"9"')),
      op(11, 12, get(1), read('a', '"1"')),
    ]);
    expect(verdict).toMatchObject({ ok: true, ids: 2, operations: 4, unknown: 0 });
  });
});

describe('the ETag rules of a plant', () => {
  it('an ETag changes exactly when the representation changes', () => {
    ok([...base(), op(2, 3, patch(1, { name: 'a' }), read('a', '"1"')), op(4, 5, patch(1, {}), read('a', '"1"'))]);
    notOk([...base(), op(2, 3, patch(1, { name: 'a' }), read('a', '"2"'))]);
    notOk([...base(), op(2, 3, patch(1, { name: 'b' }), read('b', '"1"'))]);
  });

  it('an ETag is never given again to the same id, not after a delete and a re-create', () => {
    notOk([...base(), op(2, 3, del(1), gone), op(4, 5, create(1, 'a'), created('"1"'))]);
    notOk([
      ...base(),
      op(2, 3, patch(1, { name: 'b' }), read('b', '"2"')),
      op(4, 5, patch(1, { name: 'a' }), read('a', '"1"')),
    ]);
    ok([...base(), op(2, 3, del(1), gone), op(4, 5, create(1, 'a'), created('"7"'))]);
  });

  it('If-Match compares strongly; a missing plant answers 404 before any precondition', () => {
    ok([...base(), op(2, 3, patch(1, { name: 'b' }, '"0"'), failed), op(4, 5, del(1, '"0"'), failed)]);
    ok([...base(), op(2, 3, patch(1, { name: 'b' }, '*'), read('b', '"2"'))]);
    notOk([...base(), op(2, 3, patch(1, { name: 'b' }, 'W/"1"'), read('b', '"2"'))]);
    notOk([...base(), op(2, 3, del(1), gone), op(4, 5, patch(1, { name: 'b' }, '"1"'), failed)]);
    ok([...base(), op(2, 3, del(1), gone), op(4, 5, del(1, '"1"'), missing)]);
  });

  it('a plant read from a list page (no ETag) is checked by its value', () => {
    ok([...base(), op(2, 3, get(1), read('a'))]);
    notOk([...base(), op(2, 3, get(1), read('b'))]);
  });
});

describe('unknown outcomes', () => {
  it('a lost create that a later read proves happened; its unseen ETag is bound by that read', () => {
    ok([
      op(0, undefined, create(1, 'a'), lost),
      op(5, 6, get(1), read('a', '"5"')),
      op(7, 8, get(1), read('a', '"5"')),
    ]);
    notOk([
      op(0, undefined, create(1, 'a'), lost),
      op(5, 6, get(1), read('a', '"5"')),
      op(7, 8, get(1), read('a', '"6"')),
    ]);
    // without the lost create nothing explains the plant
    notOk([op(5, 6, get(1), read('a', '"5"'))]);
  });

  it('a lost create may never have happened, but cannot happen after a later read saw the plant gone for good', () => {
    ok([op(0, undefined, create(1, 'a'), lost), op(5, 6, get(1), missing), op(7, 8, get(1), missing)]);
    notOk([op(0, undefined, create(1, 'a'), lost), op(5, 6, get(1), read('a', '"5"')), op(7, 8, get(1), missing)]);
  });

  it('a lost delete: it may land any time after it was sent, or never', () => {
    const lostDelete = op(5, undefined, del(1), lost);
    ok([...base(), lostDelete, op(10, 11, get(1), read('a', '"1"')), op(12, 13, get(1), missing)]);
    notOk([...base(), lostDelete, op(10, 11, get(1), missing), op(12, 13, get(1), read('a', '"1"'))]);
  });

  it('an unknown outcome whose window closed (the server that took it is dead) cannot land later', () => {
    const closed = op(5, 8, del(1), lost);
    ok([...base(), closed, op(10, 11, get(1), missing)]);
    ok([...base(), closed, op(10, 11, get(1), read('a', '"1"'))]);
    notOk([...base(), closed, op(10, 11, get(1), read('a', '"1"')), op(12, 13, get(1), missing)]);
  });

  it('a write left unanswered at a kill is closed when its store settled: it cannot reappear a round later', () => {
    // Round k: plant 1 is "a"; a patch to "b" gets no answer, the server is killed at 8, its store
    // settled at 9. Round k + 1 (a new server from 10): reads see "a", then "b". Recorded as the
    // register load records it, the patch's window is open and it "lands" at 25; closed at the
    // settle (what crash-durability does after every kill), the history is a violation.
    const load = new RegisterLoad({ targets: [], token: '', seed: 1 });
    load.history.push(
      ...base(),
      op(5, undefined, patch(1, { name: 'b' }), lost),
      op(20, 21, get(1), read('a', '"1"')),
      op(30, 31, get(1), read('b', '"2"')),
    );
    ok([...load.history]);
    load.closeUnknown(9);
    expect(load.history[1]).toMatchObject({ result: lost, returnedAt: 9 });
    expect(notOk(load.history).explanation).toMatch(/plant 1/);
    // the same write, seen in round k + 1 and never undone, landed before the settle: still fine
    ok([...base(), op(5, 9, patch(1, { name: 'b' }), lost), op(30, 31, get(1), read('b', '"2"'))]);
    // a create lost at a kill, of a plant never seen in the round after, may not appear later either
    notOk([op(0, 9, create(1, 'a'), lost), op(20, 21, get(1), missing), op(30, 31, get(1), read('a', '"1"'))]);
  });

  it('a re-created plant cannot carry an ETag its id had before', () => {
    const history = [...base(), op(2, 3, del(1), gone), op(4, undefined, create(1, 'a'), lost)];
    notOk([...history, op(10, 11, get(1), read('a', '"1"'))]);
    ok([...history, op(10, 11, get(1), read('a', '"8"'))]);
  });

  it('a lost patch binds its unseen ETag at the first If-Match that succeeds against it', () => {
    const lostPatch = op(2, undefined, patch(1, { name: 'b' }), lost);
    ok([...base(), lostPatch, op(10, 11, patch(1, { tag: 'x' }, '"4"'), read('b', '"5"', 'x'))]);
    // the unseen ETag was bound to "4": a read cannot report another one for that version
    notOk([
      ...base(),
      lostPatch,
      op(10, 11, patch(1, { name: 'b' }, '"4"'), read('b', '"4"')),
      op(12, 13, get(1), read('b', '"6"')),
    ]);
  });

  it('a read without an answer is left out', () => {
    const verdict = ok([...base(), op(2, undefined, get(1), lost)]);
    expect(verdict).toMatchObject({ operations: 1, unknown: 0 });
  });
});

describe('cost and budget', () => {
  /** 12 concurrent patches, each a new version, and a read that pairs one's value with another's ETag. */
  const lowe = (consistent: boolean): Operation[] => [
    ...base(),
    ...Array.from({ length: 12 }, (_, i) => op(10, 100, patch(1, { name: `v${i}` }), read(`v${i}`, `"e${i}"`))),
    op(101, 102, get(1), read('v3', consistent ? '"e3"' : '"e5"')),
  ];

  it("Lowe's memoisation: 12! orders of concurrent patches are searched as sets", () => {
    const good = ok(lowe(true));
    const bad = notOk(lowe(false));
    // without the cache the search would walk 12! ≈ 4.8e8 orders; sets of 12 are 2^12
    expect(bad.states).toBeLessThan(14 * 2 ** 12);
    expect(good.states).toBeLessThan(bad.states);
  });

  it('a search that runs out of budget says so, and never says linearizable', () => {
    const verdict = checkHistory(lowe(false), { maxStates: 100 });
    expect(verdict).toMatchObject({ ok: 'unknown', id: 1 });
    expect(formatVerdict(describeHistory(lowe(false)), verdict)).toMatch(/NOT CHECKED to the end/);
  });
});

describe('property: histories recorded from a sequential store', () => {
  const runs = Number(process.env['TORTURE_INPUTS'] ?? 500);
  const steps = fc.array(stepArbitrary(), { minLength: 1, maxLength: 40 });
  // creates after deletes, often: the etag-reuse mutation needs a 201 that follows another version
  const churn = fc.array(stepArbitrary(['create', 'delete', 'get', 'create', 'delete', 'patch'], 2), {
    minLength: 1,
    maxLength: 40,
  });

  it('are always linearizable, whatever the intervals and the lost answers', () => {
    fc.assert(
      fc.property(steps, (s) => {
        const history = runReference(s);
        const verdict = checkHistory(history);
        if (verdict.ok !== true) throw new Error(verdict.ok === false ? verdict.explanation : verdict.reason);
      }),
      { numRuns: runs },
    );
  });

  it('are not, once a read reports a value nothing ever wrote', () => {
    fc.assert(
      fc.property(steps, fc.nat(), (s, pick) => {
        const history = runReference(s);
        const reads = history.flatMap((o, i) => (o.call.op === 'get' && o.result.status !== 'unknown' ? [i] : []));
        fc.pre(reads.length > 0);
        const at = reads[pick % reads.length] as number;
        const mutated = history.map((o, i) => (i === at ? { ...o, result: read('never written', undefined) } : o));
        expect(checkHistory(mutated).ok).toBe(false);
      }),
      { numRuns: runs },
    );
  });

  it('are not, once a create reports an ETag its id already had', () => {
    fc.assert(
      fc.property(churn, fc.nat(), (s, pick) => {
        const history = runReference(s);
        const etagOf = (o: Operation) => ('etag' in o.result ? o.result.etag : undefined);
        // a 201 after a completed operation of its id that reported another ETag: that one is ordered first
        const pairs = history.flatMap((w, i) =>
          w.result.status === 201
            ? history.flatMap((p) =>
                p.call.id === w.call.id &&
                p.returnedAt < w.invokedAt &&
                etagOf(p) !== undefined &&
                etagOf(p) !== etagOf(w)
                  ? [[i, etagOf(p) as string] as const]
                  : [],
              )
            : [],
        );
        fc.pre(pairs.length > 0);
        const [at, etag] = pairs[pick % pairs.length] as readonly [number, string];
        const mutated = history.map((o, i) => (i === at ? { ...o, result: created(etag) } : o));
        expect(checkHistory(mutated).ok).toBe(false);
      }),
      { numRuns: runs },
    );
  });
});
