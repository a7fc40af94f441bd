import type { History, Operation } from './history.js';
import { describeOperation, describeWindow } from './history-lines.js';
import { ABSENT, describeState, mentionedEtags, stateKey, step, type RegisterState } from './register-model.js';

/**
 * A linearizability checker for plant histories: the WGL search (Wing & Gong 1993) with Lowe's
 * memoisation (2017), as Porcupine does it. Each id is checked on its own (linearizability is
 * local) against the compare-and-set register of register-model.ts.
 *
 * The calls and returns of an id's operations form a time-ordered linked list. The search takes
 * the first call it can order next (its result fits the state), lifts it and its return out of
 * the list, and starts over at the head; when it meets a return whose call is still in the list,
 * that operation should have been ordered already, so it undoes the last choice and tries the
 * next call. A cache of (ordered set, state) pairs, each found once to lead nowhere, keeps the
 * search from walking the same ground twice.
 *
 * An operation whose outcome is unknown is ordered only for its effect; that it never took
 * effect is chosen when the search meets its return (at Infinity, or at the moment the caller
 * knows it could no longer land): it is then "skipped", a choice undone like any other.
 */

export interface CheckOptions {
  /** Give up (an `ok: 'unknown'` verdict) after this many states in the cache, over all ids. Default 2,000,000. */
  readonly maxStates?: number;
  /** Give up after this many milliseconds. Default 60,000. */
  readonly maxMs?: number;
}

interface Spent {
  /** Search states kept in the caches (the measure of the work done). */
  readonly states: number;
  readonly ms: number;
}

export type Verdict =
  | (Spent & {
      readonly ok: true;
      readonly ids: number;
      readonly operations: number;
      /** Operations whose outcome was unknown (writes; reads without an answer are dropped). */
      readonly unknown: number;
    })
  | (Spent & {
      readonly ok: false;
      readonly id: number;
      /** What could not be explained, in words: the longest order found and what could not follow it. */
      readonly explanation: string;
      /** The id's operations around where every order got stuck, in time order, one readable line each. */
      readonly operations: readonly string[];
    })
  | (Spent & {
      /** Not checked to the end: the budget ran out. Never read as "linearizable". */
      readonly ok: 'unknown';
      readonly id: number;
      readonly reason: string;
    });

interface Node {
  readonly op: number;
  readonly call: boolean;
  readonly time: number;
  /** The call's return, or the return's call. */
  match: Node | undefined;
  prev: Node | undefined;
  next: Node | undefined;
}

const lift = (call: Node): void => {
  const ret = call.match as Node;
  (call.prev as Node).next = call.next;
  if (call.next !== undefined) call.next.prev = call.prev;
  (ret.prev as Node).next = ret.next;
  if (ret.next !== undefined) ret.next.prev = ret.prev;
};

const unlift = (call: Node): void => {
  const ret = call.match as Node;
  (ret.prev as Node).next = ret;
  if (ret.next !== undefined) ret.next.prev = ret;
  (call.prev as Node).next = call;
  if (call.next !== undefined) call.next.prev = call;
};

/** The calls and returns of `ops` in time order (a call before a return at the same time: they overlap). */
const buildList = (ops: readonly Operation[]): Node => {
  const nodes: Node[] = [];
  ops.forEach((op, i) => {
    const call: Node = { op: i, call: true, time: op.invokedAt, match: undefined, prev: undefined, next: undefined };
    const ret: Node = { op: i, call: false, time: op.returnedAt, match: call, prev: undefined, next: undefined };
    call.match = ret;
    nodes.push(call, ret);
  });
  nodes.sort((a, b) => a.time - b.time || (a.call === b.call ? a.op - b.op : a.call ? -1 : 1));
  const head: Node = { op: -1, call: false, time: -Infinity, match: undefined, prev: undefined, next: undefined };
  let last = head;
  for (const node of nodes) {
    node.prev = last;
    last.next = node;
    last = node;
  }
  return head;
};

/** A small seeded generator for the Zobrist hashes (mulberry32). */
const randomWords = (count: number): Uint32Array => {
  const words = new Uint32Array(count);
  let a = 0x9e3779b9;
  for (let i = 0; i < count; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    words[i] = (t ^ (t >>> 14)) >>> 0;
  }
  return words;
};

interface Frame {
  readonly call: Node;
  readonly before: RegisterState;
  readonly skipped: boolean;
}

type Outcome =
  | { readonly kind: 'ok' }
  | { readonly kind: 'stuck'; readonly order: readonly Frame[]; readonly state: RegisterState }
  | { readonly kind: 'budget'; readonly reason: string };

interface Budget {
  states: number;
  readonly maxStates: number;
  readonly deadline: number;
}

/** The WGL search over one id's operations. */
const checkOne = (ops: readonly Operation[], budget: Budget): Outcome => {
  const head = buildList(ops);
  // Each operation is ordered for its effect (bit 2i) or skipped (bit 2i + 1).
  const zobrist = randomWords(4 * ops.length);
  const bits = new Uint32Array(Math.ceil((2 * ops.length) / 32));
  let h1 = 0;
  let h2 = 0;
  const flip = (bit: number): void => {
    bits[bit >>> 5] = (bits[bit >>> 5] as number) ^ (1 << (bit & 31));
    h1 ^= zobrist[2 * bit] as number;
    h2 ^= zobrist[2 * bit + 1] as number;
  };
  // (ordered set, state) pairs seen: keyed by one hash word, told apart by the other, the state and the set
  const cache = new Map<number, { readonly h2: number; readonly state: number; readonly bits: Uint32Array }[]>();
  const stateIds = new Map<string, number>();
  const known = new WeakMap<RegisterState, number>();
  const idOf = (state: RegisterState): number => {
    let id = known.get(state);
    if (id === undefined) {
      const key = stateKey(state);
      id = stateIds.get(key) ?? stateIds.size;
      stateIds.set(key, id);
      known.set(state, id);
    }
    return id;
  };
  const used = new Map<string, number>();
  const usedEtags = { has: (etag: string) => (used.get(etag) ?? 0) > 0 };
  const mention = (op: number, by: 1 | -1): void => {
    for (const etag of mentionedEtags(ops[op] as Operation)) used.set(etag, (used.get(etag) ?? 0) + by);
  };

  let state: RegisterState = ABSENT;
  const stack: Frame[] = [];
  let best: { order: Frame[]; state: RegisterState } = { order: [], state: ABSENT };
  let atBest = false;

  /** Orders `call` (or skips it) with `next` as the new state, unless that configuration was seen before. */
  const advance = (call: Node, next: RegisterState, skipped: boolean): boolean => {
    const bit = 2 * call.op + (skipped ? 1 : 0);
    flip(bit);
    const sid = idOf(next);
    const key = (h1 ^ Math.imul(sid + 1, 0x9e3779b1)) >>> 0;
    const seen = cache.get(key);
    const same = (other: { h2: number; state: number; bits: Uint32Array }) =>
      other.h2 === h2 && other.state === sid && other.bits.every((word, i) => word === bits[i]);
    if (seen?.some(same) === true) {
      flip(bit);
      return false;
    }
    const entry = { h2, state: sid, bits: bits.slice() };
    if (seen === undefined) cache.set(key, [entry]);
    else seen.push(entry);
    budget.states++;
    stack.push({ call, before: state, skipped });
    state = next;
    lift(call);
    if (!skipped) mention(call.op, 1);
    if (stack.length > best.order.length) atBest = true;
    return true;
  };

  /** Undoes choices up to the last ordered (not skipped) call; returns the entry to try after it. */
  const backtrack = (): Node | undefined => {
    if (atBest) {
      best = { order: stack.slice(), state };
      atBest = false;
    }
    for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
      unlift(frame.call);
      flip(2 * frame.call.op + (frame.skipped ? 1 : 0));
      state = frame.before;
      if (frame.skipped) continue;
      mention(frame.call.op, -1);
      return frame.call.next;
    }
    return undefined;
  };

  let entry = head.next;
  let steps = 0;
  while (head.next !== undefined) {
    if (budget.states > budget.maxStates)
      return { kind: 'budget', reason: `more than ${budget.maxStates} search states` };
    if ((++steps & 0xfff) === 0 && performance.now() > budget.deadline)
      return { kind: 'budget', reason: 'the time budget ran out' };
    const node = entry as Node;
    if (node.call) {
      const next = step(state, ops[node.op] as Operation, usedEtags);
      entry = next !== undefined && advance(node, next, false) ? head.next : node.next;
      continue;
    }
    // A return whose call is still here: an unknown outcome may be one that never took effect.
    const call = node.match as Node;
    if ((ops[node.op] as Operation).result.status === 'unknown' && advance(call, state, true)) {
      entry = head.next;
      continue;
    }
    entry = backtrack();
    if (entry === undefined) {
      if (atBest) best = { order: stack.slice(), state };
      return { kind: 'stuck', ...best };
    }
  }
  return { kind: 'ok' };
};

/** Groups a history by plant id, in time order, leaving out reads whose answer never came. */
export const byPlant = (history: History): Map<number, Operation[]> => {
  const groups = new Map<number, Operation[]>();
  for (const op of history) {
    if (op.call.op === 'get' && op.result.status === 'unknown') continue;
    const list = groups.get(op.call.id) ?? [];
    list.push(op);
    groups.set(op.call.id, list);
  }
  for (const list of groups.values()) list.sort((a, b) => a.invokedAt - b.invokedAt || a.returnedAt - b.returnedAt);
  return groups;
};

/** Explains a stuck search: the longest order found, and the operations that could not follow it. */
const explain = (
  id: number,
  ops: readonly Operation[],
  order: readonly Frame[],
  state: RegisterState,
  origin: number,
): { explanation: string; operations: string[] } => {
  const done = new Set(order.map((f) => f.call.op));
  const remaining = ops.map((_, i) => i).filter((i) => !done.has(i));
  // The first remaining operation that returned had to be ordered by then; its rivals are those invoked before.
  const deadline = remaining.reduce((min, i) => Math.min(min, (ops[i] as Operation).returnedAt), Infinity);
  const blocked = remaining.filter((i) => (ops[i] as Operation).invokedAt <= deadline);
  const ordered = order.filter((f) => !f.skipped).map((f) => f.call.op);
  const explanation =
    `plant ${id}: no order of its ${ops.length} operations explains every answer. The longest order found ` +
    `takes ${ordered.length}${order.length > ordered.length ? ` (and rules out ${order.length - ordered.length} unknown outcomes)` : ''}, ` +
    `leaving the plant ${describeState(state)}; none of these can come next:\n` +
    blocked.map((i) => `  ${describeOperation(ops[i] as Operation, origin)}`).join('\n');
  return { explanation, operations: describeWindow(ops, ordered, blocked, origin) };
};

/** Checks `history` for linearizability, one plant id at a time; the first id that fails decides. */
export const checkHistory = (history: History, options: CheckOptions = {}): Verdict => {
  const started = performance.now();
  const budget: Budget = {
    states: 0,
    maxStates: options.maxStates ?? 2_000_000,
    deadline: started + (options.maxMs ?? 60_000),
  };
  const groups = byPlant(history);
  // a loop, not Math.min(...): a spread of a long history overflows the stack
  const origin = history.reduce((min, op) => Math.min(min, op.invokedAt), Infinity);
  let operations = 0;
  let unknown = 0;
  for (const [id, ops] of [...groups].sort(([a], [b]) => a - b)) {
    operations += ops.length;
    unknown += ops.filter((op) => op.result.status === 'unknown').length;
    const outcome = checkOne(ops, budget);
    const spent = () => ({ states: budget.states, ms: performance.now() - started });
    if (outcome.kind === 'budget') return { ok: 'unknown', id, reason: outcome.reason, ...spent() };
    if (outcome.kind === 'stuck')
      return { ok: false, id, ...explain(id, ops, outcome.order, outcome.state, origin), ...spent() };
  }
  return { ok: true, ids: groups.size, operations, unknown, states: budget.states, ms: performance.now() - started };
};

export { describeHistory, formatVerdict, type HistoryFigures } from './history-lines.js';
