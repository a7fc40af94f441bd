import type { History, Operation } from './history.js';
import type { Verdict } from './linearizability.js';

/** Milliseconds after `origin`, one decimal. */
const at = (time: number, origin: number): string => (Number.isFinite(time) ? `+${(time - origin).toFixed(1)}` : '∞');

/** One operation as a line: client, interval, call and result. */
export const describeOperation = (op: Operation, origin: number): string => {
  const { call, result } = op;
  const head = `c${op.client} [${at(op.invokedAt, origin)} … ${at(op.returnedAt, origin)} ms]`;
  const ifMatch = 'ifMatch' in call && call.ifMatch !== undefined ? ` If-Match ${call.ifMatch}` : '';
  const what =
    call.op === 'create'
      ? `create ${call.id} ${JSON.stringify(call.value)}`
      : call.op === 'patch'
        ? `patch ${call.id} ${JSON.stringify(call.patch)}${ifMatch}`
        : `${call.op} ${call.id}${ifMatch}`;
  const answer =
    result.status === 'unknown'
      ? 'unknown outcome'
      : result.status === 200
        ? `200 ${JSON.stringify(result.value)}${result.etag === undefined ? ' (from a list page, no ETag)' : ` ETag ${result.etag}`}`
        : result.status === 201
          ? `201 ETag ${result.etag}`
          : String(result.status);
  return `${head} ${what} → ${answer}`;
};

const WINDOW_ORDERED = 12;
const WINDOW_MAX = 40;

/**
 * The operations worth reading when an id's history cannot be ordered: the last ones of the
 * longest order found (numbered by their place in it), then those that could not follow it
 * (marked ✗), all in time order.
 */
export const describeWindow = (
  ops: readonly Operation[],
  ordered: readonly number[],
  blocked: readonly number[],
  origin: number,
): string[] => {
  const place = new Map(ordered.map((op, i) => [op, i + 1]));
  const shown = new Set([...ordered.slice(-WINDOW_ORDERED), ...blocked.slice(0, WINDOW_MAX - WINDOW_ORDERED)]);
  return [...shown]
    .sort((a, b) => a - b)
    .map((i) => {
      const mark = place.has(i) ? `#${place.get(i)}` : blocked.includes(i) ? '✗' : '·';
      return `${mark.padStart(5)} ${describeOperation(ops[i] as Operation, origin)}`;
    });
};

export interface HistoryFigures {
  readonly operations: number;
  readonly ids: number;
  /** Outcomes unknown (writes answered 503 or not at all). */
  readonly unknown: number;
  readonly byCall: Readonly<Record<Operation['call']['op'], number>>;
  /** From the first invocation to the last answer, ms. */
  readonly spanMs: number;
}

/** The figures of a history for a summary line. */
export const describeHistory = (history: History): HistoryFigures => {
  const byCall = { create: 0, get: 0, patch: 0, delete: 0 };
  let first = Infinity;
  let last = -Infinity;
  for (const op of history) {
    byCall[op.call.op]++;
    first = Math.min(first, op.invokedAt);
    if (Number.isFinite(op.returnedAt)) last = Math.max(last, op.returnedAt);
  }
  return {
    operations: history.length,
    ids: new Set(history.map((op) => op.call.id)).size,
    unknown: history.filter((op) => op.result.status === 'unknown').length,
    byCall,
    spanMs: history.length === 0 ? 0 : last - first,
  };
};

const thousands = (n: number): string => n.toLocaleString('en-US');

/** "12,345 operations on 8 ids (…), 3 unknown outcomes: linearizable, checked in 120 ms (4,567 states)". */
export const formatVerdict = (figures: HistoryFigures, verdict: Verdict): string => {
  const { create, get, patch, delete: del } = figures.byCall;
  const ops =
    `${thousands(figures.operations)} operations on ${figures.ids} ids (${thousands(create)} creates, ` +
    `${thousands(get)} reads, ${thousands(patch)} patches, ${thousands(del)} deletes), ${thousands(figures.unknown)} unknown outcomes`;
  const cost = `${Math.round(verdict.ms)} ms (${thousands(verdict.states)} states)`;
  if (verdict.ok === true) return `${ops}: linearizable, checked in ${cost}`;
  if (verdict.ok === 'unknown')
    return `${ops}: NOT CHECKED to the end (${verdict.reason}, at plant ${verdict.id}) after ${cost}`;
  return `${ops}: NOT linearizable at plant ${verdict.id}, found in ${cost}`;
};
