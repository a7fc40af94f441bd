import type { Operation, PlantPatch, PlantValue } from './history.js';

/**
 * One plant id as a compare-and-set register, the sequential specification the linearizability
 * checker (linearizability.ts) holds each id's history against.
 *
 * The state is "absent" or a value with an ETag. A write whose answer was lost leaves a version
 * whose ETag nobody saw: `etag: undefined`, a symbol that the first later observation binds (a
 * 200 that reports an ETag, or an If-Match that succeeded). ETags are never given twice to one id,
 * so a new version's ETag, and whatever a symbol is bound to, must be one no earlier operation of
 * the order mentioned (`used`).
 */
export type RegisterState =
  | { readonly present: false }
  | { readonly present: true; readonly value: PlantValue; readonly etag: string | undefined };

export const ABSENT: RegisterState = { present: false };

/** The ETags the operations ordered so far mentioned (results and If-Match headers). */
export interface UsedEtags {
  has(etag: string): boolean;
}

export const sameValue = (a: PlantValue, b: PlantValue): boolean => a.name === b.name && a.tag === b.tag;

/** RFC 7396 on a plant: members present replace, a `null` tag removes it. */
export const mergePatch = (value: PlantValue, patch: PlantPatch): PlantValue => {
  const name = patch.name ?? value.name;
  const tag = patch.tag === undefined ? value.tag : (patch.tag ?? undefined);
  return tag === undefined ? { name } : { name, tag };
};

/** The ETags an operation mentions: counted as used once it is ordered. */
export const mentionedEtags = (op: Operation): string[] => {
  const found: string[] = [];
  const { call, result } = op;
  if ((call.op === 'patch' || call.op === 'delete') && call.ifMatch !== undefined && call.ifMatch !== '*')
    found.push(call.ifMatch);
  if ((result.status === 201 || result.status === 200) && result.etag !== undefined) found.push(result.etag);
  return found;
};

/** The ETag a present state has once an observation reporting `seen` is ordered; undefined: impossible. */
const observe = (current: string | undefined, seen: string, used: UsedEtags): string | undefined => {
  if (current !== undefined) return current === seen ? current : undefined;
  return used.has(seen) ? undefined : seen;
};

type Precondition =
  | { readonly kind: 'absent' }
  | { readonly kind: 'holds'; readonly etag: string | undefined }
  | { readonly kind: 'fails' };

/**
 * If-Match (strong comparison: `W/"…"` never matches) against the state, and the state's ETag if
 * it holds. Against an unseen ETag an If-Match may hold (binding it) or fail; `wanted` says which
 * the result claims.
 */
const precondition = (
  state: RegisterState,
  ifMatch: string | undefined,
  wanted: 'holds' | 'fails',
  used: UsedEtags,
): Precondition => {
  if (!state.present) return { kind: 'absent' };
  if (ifMatch === undefined || ifMatch === '*') return { kind: 'holds', etag: state.etag };
  if (ifMatch.startsWith('W/')) return { kind: 'fails' };
  if (state.etag !== undefined) return state.etag === ifMatch ? { kind: 'holds', etag: ifMatch } : { kind: 'fails' };
  if (wanted === 'fails') return { kind: 'fails' };
  return used.has(ifMatch) ? { kind: 'fails' } : { kind: 'holds', etag: ifMatch };
};

/**
 * The state after `op` when it is ordered at `state`, or undefined when its result cannot happen
 * there. An operation with an unknown outcome is asked here only for its effect (it took place);
 * that it never took place is the checker's other choice.
 */
export const step = (state: RegisterState, op: Operation, used: UsedEtags): RegisterState | undefined => {
  const { call, result } = op;
  const unknown = result.status === 'unknown';
  switch (call.op) {
    case 'create': {
      if (unknown) return state.present ? undefined : { present: true, value: call.value, etag: undefined };
      if (result.status === 409) return state.present ? state : undefined;
      if (result.status !== 201 || state.present || used.has(result.etag)) return undefined;
      return { present: true, value: call.value, etag: result.etag };
    }
    case 'get': {
      if (result.status === 404) return state.present ? undefined : state;
      if (result.status !== 200 || !state.present || !sameValue(state.value, result.value)) return undefined;
      if (result.etag === undefined) return state;
      const etag = observe(state.etag, result.etag, used);
      return etag === undefined ? undefined : { ...state, etag };
    }
    case 'patch': {
      if (result.status === 404) return state.present ? undefined : state;
      if (result.status === 412)
        return precondition(state, call.ifMatch, 'fails', used).kind === 'fails' ? state : undefined;
      if (result.status !== 200 && !unknown) return undefined;
      const check = precondition(state, call.ifMatch, 'holds', used);
      if (check.kind !== 'holds' || !state.present) return undefined;
      const value = mergePatch(state.value, call.patch);
      const changed = !sameValue(value, state.value);
      if (unknown) return { present: true, value, etag: changed ? undefined : check.etag };
      if (result.status !== 200 || !sameValue(value, result.value) || result.etag === undefined) return undefined;
      if (!changed) {
        const etag = observe(check.etag, result.etag, used);
        return etag === undefined ? undefined : { present: true, value, etag };
      }
      // a new version: an ETag never seen before, not even the one the If-Match just bound
      if (used.has(result.etag) || result.etag === check.etag) return undefined;
      return { present: true, value, etag: result.etag };
    }
    case 'delete': {
      if (result.status === 404) return state.present ? undefined : state;
      if (result.status === 412)
        return precondition(state, call.ifMatch, 'fails', used).kind === 'fails' ? state : undefined;
      if (result.status !== 204 && !unknown) return undefined;
      return precondition(state, call.ifMatch, 'holds', used).kind === 'holds' ? ABSENT : undefined;
    }
  }
};

/** A string equal exactly for equal states (the checker's cache key; names and tags hold no U+0000). */
export const stateKey = (state: RegisterState): string =>
  state.present ? `+\u0000${state.value.name}\u0000${state.value.tag ?? '\u0001'}\u0000${state.etag ?? '\u0001'}` : '-';

/** The state in words, for explanations. */
export const describeState = (state: RegisterState): string =>
  state.present
    ? `${JSON.stringify(state.value)} with ETag ${state.etag ?? '(not yet seen: set by a write whose answer was lost)'}`
    : 'absent';
