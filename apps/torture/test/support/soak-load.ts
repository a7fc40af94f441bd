import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { errorBodyProblems, rawExchange, RequestFailed, send, type SimpleResponse } from './http.js';

/**
 * The soak's mixed load: one `step` is one request, drawn from creates without
 * and with an `Idempotency-Key` (some keys sent again once answered, to get replays), gets, lists,
 * deletes and 1 % hostile requests over a raw socket (bad JSON, a huge header, bad paths, wrong
 * media types). Every answer is checked against docs/reference/api.md; what breaks it lands in `violations`.
 * The store is kept near a steady size (deletes catch up with creates above `FLOOR` plants), so
 * that memory follows the traffic, not a growing data set.
 */

/** Below this many plants a delete turns into a create: the store settles a little above it. */
const FLOOR = 500;
/** Answered keys kept for replays (the newest), and the age after which one is no longer replayed. */
const REPLAY_POOL = 1_000;
const REPLAY_WITHIN_MS = 20_000;
/** Violations kept in words (the rest only counted). */
const KEEP_VIOLATIONS = 50;

interface Plant {
  readonly id: number;
  readonly name: string;
  readonly tag: string | undefined;
}

interface AnsweredKey {
  readonly key: string;
  readonly body: string;
  readonly location: string;
  readonly answeredAt: number;
}

/** A hostile request: the raw bytes, what it is, and the statuses it may get. */
interface Hostile {
  readonly kind: string;
  readonly bytes: string;
  readonly method: string;
  readonly allowed: readonly number[];
}

export interface SoakTally {
  /** Requests sent, and those whose answer (or failure) came. */
  requests: number;
  answered: number;
  hostile: number;
  creates: number;
  keyedCreates: number;
  replays: number;
  gets: number;
  lists: number;
  deletes: number;
  /** 503s with the contract's body: allowed (a healthy SQLite run has none). */
  unavailable: number;
  /** Any other 5xx: each is a violation too. */
  serverErrors: number;
  /** Requests that got no (complete) answer. */
  failed: number;
}

const plantJson = (p: Plant): string =>
  JSON.stringify(p.tag === undefined ? { id: p.id, name: p.name } : { id: p.id, name: p.name, tag: p.tag });

export class SoakLoad {
  readonly tally: SoakTally = {
    requests: 0,
    answered: 0,
    hostile: 0,
    creates: 0,
    keyedCreates: 0,
    replays: 0,
    gets: 0,
    lists: 0,
    deletes: 0,
    unavailable: 0,
    serverErrors: 0,
    failed: 0,
  };
  readonly byStatus = new Map<number, number>();
  readonly violations: string[] = [];
  violationCount = 0;
  /** Latencies (ms) of the regular requests answered since the last `drainLatencies`. */
  private latencies: number[] = [];
  private readonly present = new Map<number, Plant>();
  /** Ids with a request in flight: nobody else reads or deletes them meanwhile. */
  private readonly busy = new Set<number>();
  private readonly answeredKeys: AnsweredKey[] = [];
  private readonly keysInFlight = new Set<string>();
  private seq = 0;
  private maxId = 0;

  constructor(
    private readonly agent: http.Agent,
    private readonly port: number,
    private readonly token: string,
    private readonly rand: () => number,
    /** A unique word for this run's idempotency keys. */
    private readonly run: string,
  ) {}

  /** Hands over the latencies gathered since the last call (and starts a new interval). */
  drainLatencies(): number[] {
    const out = this.latencies;
    this.latencies = [];
    return out;
  }

  /** One request of the mix; resolves when its answer (or failure) came. */
  async step(): Promise<void> {
    const r = this.rand();
    if (r < 0.01) return this.hostile();
    if (r < 0.19) return this.create(undefined);
    if (r < 0.31) return this.create(`${this.run}-${this.seq}`);
    if (r < 0.36) return this.replay();
    if (r < 0.66) return this.get();
    if (r < 0.76) return this.list();
    return this.remove();
  }

  private violate(what: string): void {
    this.violationCount += 1;
    if (this.violations.length < KEEP_VIOLATIONS) this.violations.push(`${new Date().toISOString()} ${what}`);
  }

  private count(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  /** Sends one regular request, timing it; undefined when no complete answer came (counted, violated). */
  private async request(
    method: string,
    path: string,
    headers: http.OutgoingHttpHeaders = {},
    body?: string,
  ): Promise<SimpleResponse | undefined> {
    this.tally.requests += 1;
    const started = performance.now();
    try {
      const res = await send({
        agent: this.agent,
        port: this.port,
        method,
        path,
        headers: { authorization: `Bearer ${this.token}`, ...headers },
        ...(body === undefined ? {} : { body }),
        timeoutMs: 30_000,
      });
      this.tally.answered += 1;
      this.latencies.push(performance.now() - started);
      this.count(res.status);
      if (res.status >= 500) this.serverError(`${method} ${path}`, res);
      return res;
    } catch (error) {
      if (!(error instanceof RequestFailed)) throw error;
      this.tally.answered += 1;
      this.tally.failed += 1;
      this.violate(`${method} ${path}: no complete answer (${error.message})`);
      return undefined;
    }
  }

  /** A 5xx: a 503 with the contract's body is allowed and counted; anything else is a violation. */
  private serverError(
    what: string,
    res: { status: number; contentType: string | undefined; body: string } | SimpleResponse,
  ): void {
    const contentType = 'contentType' in res ? res.contentType : res.headers['content-type'];
    if (res.status === 503 && errorBodyProblems(503, contentType, res.body).length === 0) {
      this.tally.unavailable += 1;
      return;
    }
    this.tally.serverErrors += 1;
    this.violate(`${what} → ${res.status} ${res.body.slice(0, 300)}`);
  }

  private newPlant(): { name: string; tag: string | undefined } {
    const n = this.seq++;
    return {
      name: `soak ${['Monstera', 'Ficus 🌿', '日本の植物', 'Zoë'][n % 4] as string} #${n}`,
      tag: n % 3 === 0 ? undefined : `t${n % 7}`,
    };
  }

  private async create(key: string | undefined): Promise<void> {
    const plant = this.newPlant();
    const body = JSON.stringify(plant.tag === undefined ? { name: plant.name } : plant);
    if (key !== undefined) this.keysInFlight.add(key);
    const res = await this.request(
      'POST',
      '/plants',
      { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body,
    );
    if (key !== undefined) this.keysInFlight.delete(key);
    if (res === undefined || res.status >= 500) return;
    const id = /^\/plants\/([1-9][0-9]*)$/.exec(String(res.headers.location))?.[1];
    if (
      res.status !== 201 ||
      id === undefined ||
      res.body !== body ||
      res.headers['idempotent-replayed'] !== undefined
    ) {
      return this.violate(
        `POST ${body} (key ${String(key)}) → ${res.status} Location ${String(res.headers.location)} ${res.body.slice(0, 300)}`,
      );
    }
    this.present.set(Number(id), { id: Number(id), ...plant });
    this.maxId = Math.max(this.maxId, Number(id));
    if (key === undefined) {
      this.tally.creates += 1;
      return;
    }
    this.tally.keyedCreates += 1;
    this.answeredKeys.push({ key, body, location: `/plants/${id}`, answeredAt: Date.now() });
    if (this.answeredKeys.length > REPLAY_POOL) this.answeredKeys.shift();
  }

  /** Sends an answered key again with its body: the saved 201, replayed, whatever became of the plant. */
  private async replay(): Promise<void> {
    const fresh = this.answeredKeys.filter(
      (k) => Date.now() - k.answeredAt < REPLAY_WITHIN_MS && !this.keysInFlight.has(k.key),
    );
    const keyed = fresh[Math.floor(this.rand() * fresh.length)];
    if (keyed === undefined) return this.create(`${this.run}-${this.seq}`);
    this.keysInFlight.add(keyed.key);
    const res = await this.request(
      'POST',
      '/plants',
      { 'content-type': 'application/json', 'idempotency-key': keyed.key },
      keyed.body,
    );
    this.keysInFlight.delete(keyed.key);
    if (res === undefined || res.status >= 500) return;
    if (
      res.status !== 201 ||
      res.headers.location !== keyed.location ||
      res.headers['idempotent-replayed'] !== 'true' ||
      res.body !== keyed.body
    ) {
      return this.violate(
        `replay of ${keyed.key} (${keyed.location}) → ${res.status} Location ${String(res.headers.location)} replayed ${String(res.headers['idempotent-replayed'])} ${res.body.slice(0, 300)}`,
      );
    }
    this.tally.replays += 1;
  }

  /** A plant nobody else is reading or deleting now, marked busy (a recent one: walks ≤ 50 entries). */
  private pick(): Plant | undefined {
    if (this.present.size === 0) return undefined;
    const skip = Math.floor(this.rand() * Math.min(50, this.present.size));
    let i = 0;
    for (const plant of this.present.values()) {
      if (i++ < skip || this.busy.has(plant.id)) continue;
      this.busy.add(plant.id);
      return plant;
    }
    return undefined;
  }

  private async get(): Promise<void> {
    const plant = this.pick();
    if (plant === undefined) return this.list();
    const res = await this.request('GET', `/plants/${plant.id}`);
    this.busy.delete(plant.id);
    if (res === undefined || res.status >= 500) return;
    if (res.status !== 200 || res.body !== plantJson(plant))
      return this.violate(
        `GET /plants/${plant.id} → ${res.status} ${res.body.slice(0, 300)}, expected ${plantJson(plant)}`,
      );
    this.tally.gets += 1;
  }

  private async list(): Promise<void> {
    const limit = 1 + Math.floor(this.rand() * 100);
    const after = Math.floor(this.rand() * this.maxId);
    const path = `/plants?limit=${limit}&after=${after}`;
    const res = await this.request('GET', path);
    if (res === undefined || res.status >= 500) return;
    let page: unknown;
    try {
      page = JSON.parse(res.body);
    } catch {
      page = undefined;
    }
    const ids = Array.isArray(page) ? page.map((p: { id?: unknown }) => p.id) : [];
    const ordered = ids.every(
      (id, i) => typeof id === 'number' && id > after && (i === 0 || id > (ids[i - 1] as number)),
    );
    if (res.status !== 200 || !Array.isArray(page) || page.length > limit || !ordered)
      return this.violate(`GET ${path} → ${res.status} ${res.body.slice(0, 300)}`);
    this.tally.lists += 1;
  }

  private async remove(): Promise<void> {
    const plant = this.present.size > FLOOR ? this.pick() : undefined;
    if (plant === undefined) return this.create(undefined);
    const res = await this.request('DELETE', `/plants/${plant.id}`);
    this.busy.delete(plant.id);
    if (res === undefined || res.status >= 500) return;
    if (res.status !== 204 || res.body !== '')
      return this.violate(`DELETE /plants/${plant.id} → ${res.status} ${res.body.slice(0, 300)}`);
    this.present.delete(plant.id);
    this.tally.deletes += 1;
  }

  private hostileRequest(): Hostile {
    const auth = `Authorization: Bearer ${this.token}\r\n`;
    const head = (method: string, path: string, extra = ''): string =>
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${auth}${extra}`;
    const post = (contentType: string, body: string): string =>
      `${head('POST', '/plants', `Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`)}\r\n${body}`;
    const badJson = ['{"name": ', '{"name": "x",}', "{'name': 'x'}", '[[[[[[', '{"name": "x"} tail', '\u0000'];
    const badPaths = [
      '/plants/abc',
      '/plants/0',
      '/plants/-1',
      '/plants/1.5',
      '/plants/%ZZ',
      '/plants/99999999999999999999999',
      '/plants/1/leaves',
      '/nowhere',
      '/plants/%00',
    ];
    const contentTypes = [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json-patch+json',
    ];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(this.rand() * list.length)] as T;
    switch (Math.floor(this.rand() * 4)) {
      case 0:
        return { kind: 'bad JSON', method: 'POST', bytes: post('application/json', pick(badJson)), allowed: [400] };
      case 1:
        return {
          kind: 'huge header',
          method: 'GET',
          bytes: `${head('GET', '/plants', `X-Padding: ${'h'.repeat(64 * 1024)}\r\n`)}\r\n`,
          allowed: [431],
        };
      case 2:
        return { kind: 'bad path', method: 'GET', bytes: `${head('GET', pick(badPaths))}\r\n`, allowed: [400, 404] };
      default:
        return {
          kind: 'wrong content type',
          method: 'POST',
          bytes: post(pick(contentTypes), '{"name": "wrong type"}'),
          allowed: [415],
        };
    }
  }

  /** A hostile request on a fresh connection: a 4xx it may get, with the contract's body; never 5xx. */
  private async hostile(): Promise<void> {
    const h = this.hostileRequest();
    this.tally.hostile += 1;
    this.tally.requests += 1;
    const what = `${h.kind} ${JSON.stringify(h.bytes.slice(0, 120))}`;
    const outcome = await rawExchange(this.port, h.bytes, 30_000, h.method);
    this.tally.answered += 1;
    if (outcome.kind !== 'response') {
      this.tally.failed += 1;
      return this.violate(`${what}: ${outcome.kind} without an answer`);
    }
    const { status, headers, body } = outcome.response;
    const text = body.toString('utf8');
    this.count(status);
    if (status >= 500)
      return this.serverError(what, { status, contentType: headers.get('content-type')?.[0], body: text });
    const problems = errorBodyProblems(status, headers.get('content-type')?.[0], text);
    if (!h.allowed.includes(status) || problems.length > 0 || headers.get('x-request-id') === undefined) {
      this.violate(
        `${what} → ${status} ${text.slice(0, 200)} (expected ${h.allowed.join('/')}${problems.length > 0 ? `; ${problems.join('; ')}` : ''})`,
      );
    }
  }
}
