import type http from 'node:http';
import { HistoryRecorder, plantValue } from './history-recorder.js';
import { errorBodyProblems, RequestFailed, send, type SendOptions, type SimpleResponse } from './http.js';
import { pickPresent, type Expected } from './ledger.js';
import type { StoredPlant } from './store.js';

/**
 * The mixed load of the PostgreSQL outage suite and what it knows about the store. Unlike
 * `Ledger` (crashes, where a 503 is a refusal that changed nothing), a write answered 503 here has
 * an unknown outcome (docs/reference/api.md: a create whose answer was a 503 may have landed, that is what
 * `Idempotency-Key` is for); so is one that got no answer at all (itself a violation: the server
 * never dies here). Every answer must come within `boundMs`, and be a 2xx, an expected 4xx or the
 * contract's JSON 503 (`violations`); answers later than the bound are kept apart (`late`).
 */

/** A keyed create whose answer was a 503 (or none): retried with its key once the database is back. */
export interface KeyedUnknown {
  readonly key: string;
  readonly body: string;
  readonly plant: Expected;
  /** When it was first sent (for the history, should the retry find it landed). */
  readonly sentAt: number;
}

type Op = 'create' | 'create-keyed' | 'delete' | 'get' | 'list';

export interface OutageTally {
  requests: number;
  unavailable: number;
  errors500: number;
  /** Writes acknowledged (201, 204), keyed retries included. */
  creates: number;
  deletes: number;
  unknown: number;
  slowestMs: number;
  readonly statuses: Map<number, number>;
  /** The statuses by the port that answered (requests sent through `transport` are not in it). */
  readonly statusesByPort: Map<number, Map<number, number>>;
}

const newTally = (): OutageTally => ({
  requests: 0,
  unavailable: 0,
  errors500: 0,
  creates: 0,
  deletes: 0,
  unknown: 0,
  slowestMs: 0,
  statuses: new Map(),
  statusesByPort: new Map(),
});

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const NAME_STYLES = ['Monstera', 'Ficus 🌿', 'Zoë', '日本の植物', 'مونستيرا', 'Ω≈ç√∫'] as const;

export class OutageLoad {
  readonly present = new Map<number, Expected>();
  /** Every id whose delete was acknowledged or found to have landed: it must never come back. */
  readonly deletedForGood = new Set<number>();
  readonly violations: string[] = [];
  /** Answers later than `boundMs`, with the server's request id (to find its log line). */
  readonly late: { readonly what: string; readonly status: number; readonly ms: number; readonly requestId: string }[] =
    [];
  /**
   * Every 503, with when it was sent and answered (`Date.now()`) and the server's request id: a
   * round may bound when the last one may come.
   */
  readonly refusals: {
    readonly what: string;
    readonly sentAt: number;
    readonly answeredAt: number;
    readonly requestId: string;
  }[] = [];
  /** The keyed creates to retry; emptied by `retryKeyed`. */
  keyedUnknown: KeyedUnknown[] = [];
  /** The current round's figures; `nextRound` starts new ones. */
  tally = newTally();
  /** Every create, delete and read as a History, for the linearizability checker. */
  readonly recorder = new HistoryRecorder();
  /** When each server-assigned create without an answer was sent, by name: its id is known only if it landed. */
  private readonly autoSentAt = new Map<string, number>();
  private readonly maybeCreated = new Map<number, Expected>();
  private readonly maybeAuto = new Map<string, Expected>();
  private readonly maybeDeleted = new Map<number, Expected>();
  /** Ids a request is under way for (a get or a delete): not picked again meanwhile. */
  private readonly busy = new Set<number>();
  private seq = 0;
  private nextChosenId: number;

  constructor(
    firstChosenId: number,
    private readonly target: {
      readonly agent: http.Agent;
      port: number;
      readonly token: string;
      readonly boundMs: number;
      readonly seed: number;
      /** How a request goes out (default: to `port` through `agent`); e.g. a balancer over several instances. */
      readonly transport?: (options: Omit<SendOptions, 'agent' | 'port'>) => Promise<SimpleResponse>;
      /** Why a request that got no answer breaks nothing (an instance being stopped cut it), or undefined. */
      readonly excuse?: (error: RequestFailed) => string | undefined;
    },
  ) {
    this.nextChosenId = firstChosenId;
  }

  nextRound(): OutageTally {
    const done = this.tally;
    this.tally = newTally();
    return done;
  }

  newPlant(label: string): Expected {
    const n = this.seq++;
    const name = `${NAME_STYLES[n % NAME_STYLES.length] as string} ${label} #${n}`;
    return { name, tag: n % 3 === 0 ? undefined : n % 3 === 1 ? 'tropical' : `t${n % 10}🌵` };
  }

  /** One random operation: creates with a chosen id, a server-assigned one, or a key; deletes; gets; lists. */
  async step(label: string, rand: () => number): Promise<void> {
    const r = rand();
    if (r < 0.15) return this.create(this.newPlant(label), this.nextChosenId++);
    if (r < 0.3) return this.create(this.newPlant(label), undefined);
    if (r < 0.5) return this.createKeyed(label);
    const id = r < 0.85 ? this.pick(rand) : undefined;
    if (id !== undefined && r < 0.65) return this.remove(id);
    if (id !== undefined) return this.get(id);
    return this.list(rand);
  }

  /**
   * A create with a chosen id, sent one after another until one is acknowledged; resolves when it
   * was (ms after `since`). Each to `port` when given, else wherever the target sends it.
   */
  async firstWrite(label: string, since: number, deadlineMs: number, port?: number): Promise<number | undefined> {
    while (Date.now() - since < deadlineMs) {
      const id = this.nextChosenId++;
      await this.create(this.newPlant(label), id, port);
      if (this.present.has(id)) return Date.now() - since;
      await new Promise((resolve) => setTimeout(resolve, 20)); // paces the tries; the time to the first success is measured
    }
    return undefined;
  }

  /** A plant with a chosen id above every chosen id of the load, so that server-assigned ids stay clear of them. */
  async fence(id: number): Promise<void> {
    await this.create({ name: `fence ${id}`, tag: undefined }, id);
    if (!this.present.has(id)) throw new Error(`could not create the fence plant ${id}: ${this.violations.join('; ')}`);
  }

  private pick(rand: () => number): number | undefined {
    return pickPresent(this.present, this.busy, rand);
  }

  private async request(
    op: Op,
    what: string,
    method: string,
    path: string,
    extra: { headers?: http.OutgoingHttpHeaders; body?: string; port?: number } = {},
  ): Promise<SimpleResponse | undefined> {
    const { agent, token, boundMs } = this.target;
    const port = extra.port ?? this.target.port;
    const headers = {
      authorization: `Bearer ${token}`,
      ...(extra.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...extra.headers,
    };
    this.tally.requests++;
    const started = Date.now();
    try {
      const transport = this.target.transport ?? ((options) => send({ agent, port, ...options }));
      const res = await transport({
        method,
        path,
        headers,
        ...(extra.body === undefined ? {} : { body: extra.body }),
        timeoutMs: boundMs + 10_000,
      });
      const ms = Date.now() - started;
      this.tally.slowestMs = Math.max(this.tally.slowestMs, ms);
      this.tally.statuses.set(res.status, (this.tally.statuses.get(res.status) ?? 0) + 1);
      if (this.target.transport === undefined) {
        const byPort = this.tally.statusesByPort.get(port) ?? new Map<number, number>();
        byPort.set(res.status, (byPort.get(res.status) ?? 0) + 1);
        this.tally.statusesByPort.set(port, byPort);
      }
      if (ms > boundMs)
        this.late.push({ what, status: res.status, ms, requestId: String(res.headers['x-request-id']) });
      if (res.status >= 400) {
        const problems = errorBodyProblems(res.status, res.headers['content-type'], res.body);
        if (problems.length > 0) this.violations.push(`${what} → ${res.status}: ${problems.join('; ')}`);
      }
      if (res.status === 503) {
        this.tally.unavailable++;
        this.refusals.push({
          what,
          sentAt: started,
          answeredAt: started + ms,
          requestId: String(res.headers['x-request-id']),
        });
        if (res.headers['retry-after'] !== '1')
          this.violations.push(`${what} → 503 with Retry-After ${JSON.stringify(res.headers['retry-after'])}, not "1"`);
      }
      if (res.status >= 500 && res.status !== 503) {
        this.tally.errors500++;
        this.violations.push(`${what} (${op}) → ${res.status} ${res.body.slice(0, 200)}`);
        return undefined;
      }
      return res;
    } catch (error) {
      if (!(error instanceof RequestFailed)) throw error;
      if (this.target.excuse?.(error) !== undefined) return undefined; // its outcome is unknown
      this.violations.push(
        `${what}: no complete answer after ${Date.now() - started} ms (${error.message}); the server never dies in this suite`,
      );
      return undefined;
    }
  }

  private checkCreated(what: string, res: SimpleResponse, plant: Expected, id: number | undefined): number | undefined {
    const location = /^\/plants\/([1-9][0-9]*)$/.exec(String(res.headers.location))?.[1];
    if (location === undefined) {
      this.violations.push(`${what}: 201 without a valid Location: ${String(res.headers.location)}`);
      return undefined;
    }
    const want = plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag };
    if (JSON.stringify(safeJson(res.body)) !== JSON.stringify(want))
      this.violations.push(`${what}: 201 body ${res.body} does not echo ${JSON.stringify(want)}`);
    const got = Number(location);
    if (id !== undefined && got !== id) this.violations.push(`${what}: 201 with Location ${location}`);
    return got;
  }

  private async create(plant: Expected, id: number | undefined, port?: number): Promise<void> {
    const body = JSON.stringify({
      ...(id === undefined ? {} : { id }),
      name: plant.name,
      ...(plant.tag === undefined ? {} : { tag: plant.tag }),
    });
    const what = `POST ${body}`;
    const sentAt = performance.now();
    const res = await this.request('create', what, 'POST', '/plants', {
      body,
      ...(port === undefined ? {} : { port }),
    });
    if (res?.status === 201) {
      const got = this.checkCreated(what, res, plant, id);
      if (got !== undefined) this.landed(got, plant);
      if (got !== undefined) this.recorder.answer({ op: 'create', id: got, value: plantValue(plant) }, res, sentAt);
      this.tally.creates++;
    } else if (res === undefined || res.status === 503) {
      this.tally.unknown++;
      if (id === undefined) this.maybeAuto.set(plant.name, plant);
      else this.maybeCreated.set(id, plant);
      if (id === undefined) this.autoSentAt.set(plant.name, sentAt);
      else this.recorder.unknown({ op: 'create', id, value: plantValue(plant) }, sentAt);
    } else {
      this.violations.push(`${what} → ${res.status} ${res.body.slice(0, 200)}`);
    }
  }

  private async createKeyed(label: string): Promise<void> {
    const plant = this.newPlant(label);
    const keyed: KeyedUnknown = {
      key: `outage-${this.target.seed}-${this.seq}`,
      body: JSON.stringify({ name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) }),
      plant,
      sentAt: performance.now(),
    };
    const what = `POST ${keyed.body} with Idempotency-Key ${keyed.key}`;
    const res = await this.request('create-keyed', what, 'POST', '/plants', {
      body: keyed.body,
      headers: { 'idempotency-key': keyed.key },
    });
    if (res?.status === 201) {
      const got = this.checkCreated(what, res, plant, undefined);
      if (got !== undefined) this.landed(got, plant);
      if (got !== undefined)
        this.recorder.answer({ op: 'create', id: got, value: plantValue(plant) }, res, keyed.sentAt);
      this.tally.creates++;
    } else if (res === undefined || res.status === 503) {
      this.tally.unknown++;
      this.keyedUnknown.push(keyed);
    } else {
      this.violations.push(`${what} → ${res.status} ${res.body.slice(0, 200)}`);
    }
  }

  private async remove(id: number): Promise<void> {
    this.busy.add(id);
    try {
      const sentAt = performance.now();
      const res = await this.request('delete', `DELETE /plants/${id}`, 'DELETE', `/plants/${id}`);
      const plant = this.present.get(id);
      if (res === undefined || res.status === 503) this.recorder.unknown({ op: 'delete', id }, sentAt);
      else this.recorder.answer({ op: 'delete', id }, res, sentAt);
      if (res?.status === 204) {
        if (res.body !== '') this.violations.push(`DELETE /plants/${id}: 204 with a body ${res.body}`);
        this.present.delete(id);
        this.deletedForGood.add(id);
        this.tally.deletes++;
      } else if ((res === undefined || res.status === 503) && plant !== undefined) {
        this.tally.unknown++;
        this.present.delete(id);
        this.maybeDeleted.set(id, plant);
      } else if (res !== undefined) {
        // 404: an acknowledged create is gone (nobody else deletes it)
        this.violations.push(`DELETE /plants/${id} of a present plant → ${res.status} ${res.body.slice(0, 200)}`);
      }
    } finally {
      this.busy.delete(id);
    }
  }

  private async get(id: number): Promise<void> {
    this.busy.add(id);
    try {
      const sentAt = performance.now();
      const res = await this.request('get', `GET /plants/${id}`, 'GET', `/plants/${id}`);
      if (res === undefined || res.status === 503) return;
      this.recorder.answer({ op: 'get', id }, res, sentAt);
      const plant = this.present.get(id);
      const want =
        plant === undefined
          ? undefined
          : { id, name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) };
      if (res.status !== 200 || JSON.stringify(safeJson(res.body)) !== JSON.stringify(want)) {
        this.violations.push(`GET /plants/${id} of ${JSON.stringify(want)} → ${res.status} ${res.body.slice(0, 200)}`);
      }
    } finally {
      this.busy.delete(id);
    }
  }

  private async list(rand: () => number): Promise<void> {
    const ids = [...this.present.keys()];
    const after = ids.length === 0 || rand() < 0.3 ? 0 : (ids[Math.floor(rand() * ids.length)] as number);
    const path = `/plants?limit=20&after=${after}`;
    const sentAt = performance.now();
    const res = await this.request('list', `GET ${path}`, 'GET', path);
    if (res === undefined || res.status === 503) return;
    const page = safeJson(res.body);
    if (res.status === 200) this.recorder.listed(page, sentAt, performance.now());
    const ok =
      res.status === 200 &&
      Array.isArray(page) &&
      page.length <= 20 &&
      page.every(
        (p: { id?: unknown; name?: unknown }, i) =>
          Number.isSafeInteger(p.id) &&
          (p.id as number) > after &&
          typeof p.name === 'string' &&
          (i === 0 || (p.id as number) > (page[i - 1] as { id: number }).id),
      );
    if (!ok) this.violations.push(`GET ${path} → ${res.status} ${res.body.slice(0, 200)}`);
  }

  private landed(id: number, plant: Expected): void {
    this.present.set(id, { name: plant.name, tag: plant.tag });
    this.deletedForGood.delete(id);
  }

  /**
   * Sends every keyed create answered 503 (or not at all) again with its key, 8 at a time: each
   * must be a 201 now, replayed (`Idempotent-Replayed: true`: it had committed) or made now.
   * Resolves with how many were sent, how many were replays, and the plants' names.
   */
  async retryKeyed(): Promise<{ retried: number; replayed: number; names: string[] }> {
    const queue = this.keyedUnknown;
    const names = queue.map((keyed) => keyed.plant.name);
    this.keyedUnknown = [];
    let replayed = 0;
    const worker = async (): Promise<void> => {
      for (let keyed = queue.shift(); keyed !== undefined; keyed = queue.shift()) {
        const what = `retry of POST ${keyed.body} with Idempotency-Key ${keyed.key}`;
        const res = await this.request('create-keyed', what, 'POST', '/plants', {
          body: keyed.body,
          headers: { 'idempotency-key': keyed.key },
        });
        if (res?.status !== 201) {
          if (res !== undefined)
            this.violations.push(`${what} after recovery → ${res.status} ${res.body.slice(0, 200)}`);
          this.maybeAuto.set(keyed.plant.name, keyed.plant);
          this.autoSentAt.set(keyed.plant.name, keyed.sentAt);
          continue;
        }
        const got = this.checkCreated(what, res, keyed.plant, undefined);
        if (got !== undefined) this.landed(got, keyed.plant);
        this.tally.creates++;
        const replay = res.headers['idempotent-replayed'] === 'true';
        if (replay) replayed++;
        // a replay is an echo of the first request, which landed (when, nobody saw); otherwise this one made it
        const call = { op: 'create' as const, id: got ?? 0, value: plantValue(keyed.plant) };
        if (got !== undefined && replay) this.recorder.unknown(call, keyed.sentAt);
        else if (got !== undefined) this.recorder.answer(call, res, keyed.sentAt);
      }
    };
    const retried = queue.length;
    await Promise.all(Array.from({ length: 8 }, worker));
    return { retried, replayed, names };
  }

  /**
   * Compares the store with what was acknowledged and resolves the unknown writes by it. Returns
   * the violations: an acknowledged plant missing or changed, an acknowledged delete undone, a
   * plant nobody asked for.
   */
  reconcile(stored: ReadonlyMap<number, StoredPlant>): string[] {
    const found: string[] = [];
    const same = (p: StoredPlant, e: Expected) => p.name === e.name && p.tag === e.tag;
    for (const [id, plant] of stored) {
      const known = this.present.get(id);
      const maybe = this.maybeCreated.get(id) ?? this.maybeDeleted.get(id) ?? this.maybeAuto.get(plant.name);
      if (known !== undefined) {
        if (!same(plant, known))
          found.push(`plant ${id} is ${JSON.stringify(plant)}, acknowledged as ${JSON.stringify(known)}`);
      } else if (maybe !== undefined && same(plant, maybe)) {
        this.landed(id, maybe); // a create that landed, or a delete that did not
        const sentAt = this.autoSentAt.get(plant.name);
        // a server-assigned create that landed: its id is known now
        if (this.maybeAuto.has(plant.name) && sentAt !== undefined && !this.maybeCreated.has(id))
          this.recorder.unknown({ op: 'create', id, value: plantValue(plant) }, sentAt);
        this.maybeAuto.delete(plant.name);
      } else if (this.deletedForGood.has(id)) {
        found.push(`acknowledged delete of ${id} undone: ${JSON.stringify(plant)}`);
      } else {
        found.push(`plant ${id} ${JSON.stringify(plant)} was never asked for`);
      }
    }
    for (const [id, expected] of [...this.present]) {
      if (stored.has(id)) continue;
      found.push(`acknowledged plant ${id} ${JSON.stringify(expected)} is missing`);
      this.present.delete(id);
    }
    for (const id of this.maybeDeleted.keys()) if (!stored.has(id)) this.deletedForGood.add(id);
    this.maybeCreated.clear();
    this.maybeAuto.clear();
    this.maybeDeleted.clear();
    this.autoSentAt.clear();
    return found;
  }

  /** The events the committed writes must have produced (`eventKey`): a create for every plant that existed, a delete for every delete. */
  expectedEvents(): Set<string> {
    return new Set([
      ...[...this.present.keys()].map((id) => `plant.created:${id}`),
      ...[...this.deletedForGood].flatMap((id) => [`plant.created:${id}`, `plant.deleted:${id}`]),
    ]);
  }
}
