import type http from 'node:http';
import type { Call, PlantValue } from './history.js';
import { HistoryRecorder } from './history-recorder.js';
import { RequestFailed, send } from './http.js';
import type { StoredPlant } from './store.js';

export interface Expected {
  readonly name: string;
  readonly tag: string | undefined;
}

/** Names of every shape the contract allows: astral, combining, CJK, RTL, the 200-code-point maximum. */
const NAME_STYLES = [
  'Monstera',
  'Ficus 🌿',
  'Zoë',
  '日本の植物',
  'e\u0301',
  'مونستيرا',
  '  spaced  ',
  'Ω≈ç√∫',
] as const;

/**
 * A plant id of `present` that `busy` does not hold, for a load to act on; undefined when there is
 * none in the sample. A sample of the first keys is enough and O(1)-ish: it walks at most 50.
 */
export const pickPresent = (
  present: ReadonlyMap<number, unknown>,
  busy: ReadonlySet<number>,
  rand: () => number,
): number | undefined => {
  if (present.size === 0) return undefined;
  const skip = Math.floor(rand() * Math.min(50, present.size));
  let i = 0;
  for (const id of present.keys()) {
    if (i++ < skip || busy.has(id)) continue;
    return id;
  }
  return undefined;
};

/**
 * What the client side knows about the store, and what it must find after a crash:
 * `present` holds every plant known to exist (acknowledged, or an unknown outcome later seen);
 * requests that got no answer are "unknown" and may or may not have landed.
 */
export class Ledger {
  readonly present = new Map<number, Expected>();
  /** Every id whose delete was acknowledged, ever: such an id must never come back. */
  readonly deletedForGood = new Set<number>();
  private readonly maybeCreated = new Map<number, Expected>();
  private readonly maybeAuto = new Map<string, Expected>();
  private readonly maybeDeleted = new Set<number>();
  /** A patch of the id got no answer: the plant is as acknowledged, or as that patch made it. */
  private readonly maybePatched = new Map<number, Expected>();
  /** Ids with a delete or a patch in flight: no other request of the load touches them meanwhile. */
  private readonly busy = new Set<number>();
  private nextChosenId: number;
  private seq = 0;

  readonly tally = { creates: 0, patches: 0, deletes: 0, unknown: 0, conflicts: 0, refused: 0, lost: 0, requests: 0 };
  /** Every contract violation seen, in words. */
  readonly violations: string[] = [];
  /**
   * Every create, patch and delete as an operation of a History (support/history.ts), and the
   * store reads the caller adds. A write without an answer stays open (returnedAt Infinity) until
   * the caller closes it (the server that took it is dead).
   */
  readonly recorder = new HistoryRecorder();
  /** When each server-assigned create without an answer was sent, by name: its id is known only if it landed. */
  private readonly autoSentAt = new Map<string, number>();

  /**
   * `deleteShare` / `patchShare`: the fractions of steps that delete / patch (when there is
   * something to act on; default 0.25 / 0); `allowUnavailable`: a 503 with the contract's body is
   * a legitimate refusal (while shutting down).
   */
  constructor(
    firstChosenId: number,
    private readonly options: {
      readonly deleteShare?: number;
      readonly patchShare?: number;
      readonly allowUnavailable?: boolean;
    } = {},
  ) {
    this.nextChosenId = firstChosenId;
  }

  newPlant(label: string): Expected {
    const n = this.seq++;
    const style = NAME_STYLES[n % NAME_STYLES.length] as string;
    const name = n % 97 === 0 ? `${label} #${n} `.padEnd(200, 'ä') : `${style} ${label} #${n}`;
    const tag = n % 3 === 0 ? undefined : n % 3 === 1 ? 'tropical' : `t${n % 10}🌵`;
    return { name, tag };
  }

  /** One random operation of the mixed load; returns when its response (or failure) came. */
  async step(agent: http.Agent, port: number, token: string, label: string, rand: () => number): Promise<void> {
    const r = rand();
    const deleteShare = this.options.deleteShare ?? 0.25;
    const patchShare = this.options.patchShare ?? 0;
    const deletable = r < deleteShare ? this.pickIdle(rand) : undefined;
    if (deletable !== undefined) return this.remove(agent, port, token, deletable);
    const patchable = r >= deleteShare && r < deleteShare + patchShare ? this.pickIdle(rand) : undefined;
    if (patchable !== undefined) return this.patch(agent, port, token, patchable, this.newPlant(label));
    const plant = this.newPlant(label);
    const createShare = 1 - deleteShare - patchShare;
    const id = (r - deleteShare - patchShare) / createShare < 0.5 ? this.nextChosenId++ : undefined;
    return this.create(agent, port, token, plant, id);
  }

  private pickIdle(rand: () => number): number | undefined {
    return pickPresent(this.present, this.busy, rand);
  }

  /** A merge patch setting the name and the tag (`null` when the new plant has none). */
  private async patch(agent: http.Agent, port: number, token: string, id: number, plant: Expected): Promise<void> {
    const body = JSON.stringify({ name: plant.name, tag: plant.tag ?? null });
    this.busy.add(id);
    this.tally.requests++;
    const call: Call = { op: 'patch', id, patch: { name: plant.name, tag: plant.tag ?? null } };
    const invokedAt = performance.now();
    try {
      const res = await send({
        agent,
        port,
        method: 'PATCH',
        path: `/plants/${id}`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' },
        body,
      });
      if (res.status === 200) {
        const expected = plant.tag === undefined ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag };
        if (JSON.stringify(safeJson(res.body)) !== JSON.stringify(expected))
          this.violate(`PATCH ${id} ${body} → 200 ${res.body}`);
        if (!/^"[0-9a-z]+"$/.test(String(res.headers.etag)))
          this.violate(`PATCH ${id} → 200 without a strong ETag: ${String(res.headers.etag)}`);
        this.present.set(id, plant);
        this.tally.patches++;
        this.recorder.answer(call, res, invokedAt);
      } else if (res.status === 503 && this.options.allowUnavailable === true && isErrorBody(res.body, 503)) {
        this.tally.refused++;
        this.recorder.unknown(call, invokedAt);
      } else {
        // 404 here means an acknowledged create was lost: nobody else deletes it
        this.violate(`PATCH /plants/${id} of a present plant → ${res.status} ${res.body}`);
        this.recorder.answer(call, res, invokedAt);
      }
    } catch (err) {
      if (!(err instanceof RequestFailed)) throw err;
      if (err.phase === 'truncated') this.violate(`PATCH /plants/${id}: truncated response (${err.code})`);
      this.tally.unknown++;
      this.recorder.unknown(call, invokedAt);
      this.maybePatched.set(id, plant);
    } finally {
      this.busy.delete(id);
    }
  }

  private async create(
    agent: http.Agent,
    port: number,
    token: string,
    plant: Expected,
    id: number | undefined,
  ): Promise<void> {
    const body = JSON.stringify({
      ...(id === undefined ? {} : { id }),
      name: plant.name,
      ...(plant.tag === undefined ? {} : { tag: plant.tag }),
    });
    this.tally.requests++;
    const value: PlantValue = plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
    const invokedAt = performance.now();
    try {
      const res = await send({
        agent,
        port,
        method: 'POST',
        path: '/plants',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      if (res.status === 201) {
        const location = /^\/plants\/([1-9][0-9]*)$/.exec(String(res.headers.location))?.[1];
        const echoed = safeJson(res.body);
        if (location === undefined)
          return this.violate(`201 without a valid Location: ${String(res.headers.location)}`);
        if (
          JSON.stringify(echoed) !==
          JSON.stringify(plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag })
        ) {
          this.violate(`201 body ${res.body} does not echo ${JSON.stringify(plant)}`);
        }
        const got = Number(location);
        if (id !== undefined && got !== id) this.violate(`201 for id ${id} with Location ${location}`);
        this.landed(got, plant);
        this.tally.creates++;
        this.recorder.answer({ op: 'create', id: got, value }, res, invokedAt);
      } else if (res.status === 409 && id !== undefined) {
        this.tally.conflicts++; // the id was taken (e.g. by a server-assigned id); nothing changed
        this.recorder.answer({ op: 'create', id, value }, res, invokedAt);
      } else if (res.status === 503 && this.options.allowUnavailable === true && isErrorBody(res.body, 503)) {
        this.tally.refused++; // shutting down: refused, nothing changed
      } else {
        this.violate(`POST ${body} → ${res.status} ${res.body}`);
      }
    } catch (err) {
      if (!(err instanceof RequestFailed)) throw err;
      if (err.phase === 'truncated') this.violate(`POST ${body}: truncated response (${err.code})`);
      this.tally.unknown++;
      if (id === undefined) {
        this.maybeAuto.set(plant.name, plant);
        this.autoSentAt.set(plant.name, invokedAt);
      } else {
        this.maybeCreated.set(id, plant);
        this.recorder.unknown({ op: 'create', id, value }, invokedAt);
      }
    }
  }

  private async remove(agent: http.Agent, port: number, token: string, id: number): Promise<void> {
    this.busy.add(id);
    this.tally.requests++;
    const call: Call = { op: 'delete', id };
    const invokedAt = performance.now();
    try {
      const res = await send({
        agent,
        port,
        method: 'DELETE',
        path: `/plants/${id}`,
        headers: { authorization: `Bearer ${token}` },
      });
      if (res.status === 204) {
        if (res.body !== '') this.violate(`204 with a body: ${res.body}`);
        this.present.delete(id);
        this.deletedForGood.add(id);
        this.tally.deletes++;
        this.recorder.answer(call, res, invokedAt);
      } else if (res.status === 503 && this.options.allowUnavailable === true && isErrorBody(res.body, 503)) {
        this.tally.refused++;
        this.recorder.unknown(call, invokedAt);
      } else {
        // 404 here means an acknowledged create was lost: nobody else deletes it
        this.violate(`DELETE /plants/${id} of a present plant → ${res.status} ${res.body}`);
        this.recorder.answer(call, res, invokedAt);
      }
    } catch (err) {
      if (!(err instanceof RequestFailed)) throw err;
      if (err.phase === 'truncated') this.violate(`DELETE /plants/${id}: truncated response (${err.code})`);
      this.tally.unknown++;
      this.recorder.unknown(call, invokedAt);
      this.maybeDeleted.add(id);
    } finally {
      this.busy.delete(id);
    }
  }

  /** A create landed on `id`. The contract lets a server-assigned id reuse a deleted one. */
  private landed(id: number, plant: Expected): void {
    this.present.set(id, { name: plant.name, tag: plant.tag });
    this.deletedForGood.delete(id);
  }

  /**
   * Creates one plant with a chosen id above every chosen id of the load, so that server-assigned
   * ids (above the highest id ever stored) do not run into the load's chosen ids.
   */
  async fence(agent: http.Agent, port: number, token: string, id: number): Promise<void> {
    await this.create(agent, port, token, this.newPlant('fence'), id);
    if (!this.present.has(id)) throw new Error(`could not create the fence plant ${id}: ${this.violations.join('; ')}`);
  }

  private violate(what: string): void {
    this.violations.push(what);
  }

  /**
   * Compares what the store holds after a crash with what was acknowledged; resolves the unknowns
   * (landed or not) so the next round starts from an exact picture. Returns the violations found.
   */
  reconcile(stored: ReadonlyMap<number, StoredPlant>): string[] {
    const found: string[] = [];
    const same = (p: StoredPlant, e: Expected) => p.name === e.name && p.tag === e.tag;
    for (const [id, plant] of stored) {
      const known = this.present.get(id);
      const patched = this.maybePatched.get(id);
      if (known !== undefined) {
        if (patched !== undefined && same(plant, patched)) this.present.set(id, patched);
        else if (!same(plant, known))
          found.push(`plant ${id} is ${JSON.stringify(plant)}, acknowledged as ${JSON.stringify(known)}`);
      } else if (this.maybeCreated.has(id) && same(plant, this.maybeCreated.get(id) as Expected)) {
        this.landed(id, plant);
      } else if (this.maybeAuto.has(plant.name) && same(plant, this.maybeAuto.get(plant.name) as Expected)) {
        this.landed(id, plant);
        this.maybeAuto.delete(plant.name);
        // its id is known now: a create of that id whose answer was lost
        const value: PlantValue = plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
        const sentAt = this.autoSentAt.get(plant.name) ?? 0;
        this.recorder.unknown({ op: 'create', id, value }, sentAt);
      } else if (this.deletedForGood.has(id)) {
        found.push(`acknowledged delete of ${id} undone: ${JSON.stringify(plant)}`);
      } else {
        found.push(`plant ${id} ${JSON.stringify(plant)} was never asked for`);
      }
    }
    for (const [id, expected] of [...this.present]) {
      if (stored.has(id)) continue;
      if (this.maybeDeleted.has(id)) {
        this.present.delete(id);
        this.deletedForGood.add(id); // its delete landed; it must stay gone
      } else {
        found.push(`acknowledged plant ${id} ${JSON.stringify(expected)} is missing`);
        this.present.delete(id);
      }
    }
    this.maybeCreated.clear();
    this.maybeAuto.clear();
    this.autoSentAt.clear();
    this.maybeDeleted.clear();
    this.maybePatched.clear();
    this.tally.lost += found.length;
    return found;
  }
}

const isErrorBody = (text: string, status: number): boolean => {
  const body = safeJson(text) as { error?: unknown; message?: unknown } | null;
  return typeof body === 'object' && body !== null && body.error === status && typeof body.message === 'string';
};

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** A small seeded PRNG (mulberry32), so a failing round can be replayed from its seed. */
export const seeded = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};
