import fc from 'fast-check';
import type { Call, Operation, PlantPatch, PlantValue, Result } from './history.js';

/**
 * Histories that are linearizable by construction, for the checker's property test: a sequential
 * store of plants (written apart from register-model.ts, so that the two do not share a mistake)
 * runs random steps one after another, the n-th at time 100·n, and each step's interval is drawn
 * around that moment. The true order is therefore one the intervals allow.
 */

const NAMES = ['fern', 'ivy', 'moss'] as const;
const TAGS = [undefined, 'green', 'wet'] as const;

export interface Step {
  readonly kind: 'create' | 'get' | 'list' | 'patch' | 'delete';
  readonly id: number;
  readonly client: number;
  readonly name: number;
  readonly tag: number;
  /** Which members a patch carries: 1 name, 2 tag, 3 both (0: `{}`). */
  readonly members: number;
  /** If-Match of a patch or delete: none, the current ETag, an older one, one never given. */
  readonly ifMatch: 'none' | 'current' | 'stale' | 'never';
  /** A write whose answer is lost, and whether it took effect. */
  readonly lost: boolean;
  readonly landed: boolean;
  /** Whether a lost answer's window closes (a finite returnedAt) or stays open. */
  readonly closes: boolean;
  readonly before: number;
  readonly after: number;
}

const MIX: readonly Step['kind'][] = ['create', 'get', 'list', 'patch', 'delete', 'patch', 'get'];

/** A random step; `kinds` weights the mix (a kind listed twice comes twice as often), `ids` the plants. */
export const stepArbitrary = (kinds: readonly Step['kind'][] = MIX, ids = 3): fc.Arbitrary<Step> =>
  fc.record({
    kind: fc.constantFrom(...kinds),
    id: fc.integer({ min: 1, max: ids }),
    client: fc.integer({ min: 0, max: 5 }),
    name: fc.integer({ min: 0, max: NAMES.length - 1 }),
    tag: fc.integer({ min: 0, max: TAGS.length - 1 }),
    members: fc.integer({ min: 0, max: 3 }),
    ifMatch: fc.constantFrom('none', 'current', 'stale', 'never'),
    lost: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    landed: fc.boolean(),
    closes: fc.boolean(),
    before: fc.integer({ min: 0, max: 400 }),
    after: fc.integer({ min: 0, max: 400 }),
  });

interface Version {
  readonly value: PlantValue;
  readonly etag: string;
}

const valueOf = (name: number, tag: number): PlantValue => {
  const t = TAGS[tag];
  return t === undefined ? { name: NAMES[name] as string } : { name: NAMES[name] as string, tag: t };
};

/** Runs `steps` on a sequential store and records each as an operation with an interval around its moment. */
export const runReference = (steps: readonly Step[]): Operation[] => {
  const plants = new Map<number, Version>();
  const etagsOf = new Map<number, string[]>();
  let counter = 0;
  const newEtag = (id: number): string => {
    const etag = `"v${++counter}"`;
    etagsOf.set(id, [...(etagsOf.get(id) ?? []), etag]);
    return etag;
  };
  return steps.map((s, n) => {
    const moment = 100 * (n + 1);
    const current = plants.get(s.id);
    const older = (etagsOf.get(s.id) ?? []).filter((e) => e !== current?.etag);
    const ifMatch =
      s.ifMatch === 'current'
        ? (current?.etag ?? '"v0"')
        : s.ifMatch === 'stale'
          ? (older[s.name % Math.max(1, older.length)] ?? '"v0"')
          : s.ifMatch === 'never'
            ? '"never"'
            : undefined;
    let call: Call;
    let result: Result;
    let apply: (() => void) | undefined;
    if (s.kind === 'create') {
      const value = valueOf(s.name, s.tag);
      call = { op: 'create', id: s.id, value };
      if (current !== undefined) result = { status: 409 };
      else {
        const etag = newEtag(s.id);
        result = { status: 201, etag };
        apply = () => plants.set(s.id, { value, etag });
      }
    } else if (s.kind === 'get' || s.kind === 'list') {
      call = { op: 'get', id: s.id };
      result =
        current === undefined
          ? { status: 404 }
          : { status: 200, value: current.value, etag: s.kind === 'list' ? undefined : current.etag };
    } else {
      const patch: PlantPatch = {
        ...(s.members & 1 ? { name: NAMES[s.name] as string } : {}),
        ...(s.members & 2 ? { tag: TAGS[s.tag] ?? null } : {}),
      };
      call =
        s.kind === 'patch'
          ? { op: 'patch', id: s.id, patch, ...(ifMatch === undefined ? {} : { ifMatch }) }
          : { op: 'delete', id: s.id, ...(ifMatch === undefined ? {} : { ifMatch }) };
      if (current === undefined) result = { status: 404 };
      else if (ifMatch !== undefined && ifMatch !== current.etag) result = { status: 412 };
      else if (s.kind === 'delete') {
        result = { status: 204 };
        apply = () => plants.delete(s.id);
      } else {
        const tag = 'tag' in patch ? (patch.tag ?? undefined) : current.value.tag;
        const name = patch.name ?? current.value.name;
        const value: PlantValue = tag === undefined ? { name } : { name, tag };
        const same = value.name === current.value.name && value.tag === current.value.tag;
        const etag = same ? current.etag : newEtag(s.id);
        result = { status: 200, value, etag };
        apply = () => plants.set(s.id, { value, etag });
      }
    }
    const lost = s.lost && call.op !== 'get';
    if (!lost || s.landed) apply?.();
    return {
      client: s.client,
      call,
      result: lost ? { status: 'unknown' } : result,
      invokedAt: moment - s.before,
      returnedAt: lost && !s.closes ? Infinity : moment + s.after,
    };
  });
};
