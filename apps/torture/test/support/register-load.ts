import http from 'node:http';
import type { Call, Operation, PlantPatch, PlantValue, Result } from './history.js';
import { errorBodyProblems, RequestFailed, send, type SimpleResponse } from './http.js';
import { seeded } from './ledger.js';

/**
 * A concurrent mixed load on a few plant ids that records a History for the linearizability
 * checker: sequential clients, each with one request in flight, over one or more server
 * instances, on a small key space of client-chosen ids so that operations on one plant contend.
 * Creates (some with an Idempotency-Key, retried with it after a lost answer), reads, merge
 * patches and deletes with and without If-Match (taken from the client's last seen ETag of the
 * id, sometimes an older one on purpose), and list pages (each plant on the page a read without
 * an ETag, within the list request's interval).
 *
 * A write answered 503, or not at all, is 'unknown' (it may land any time from when it was sent,
 * until `closeUnknown` says it no longer can, or never); a read so answered is left out, and so is a
 * write whose connection was refused (it was never sent). A replayed keyed create is an echo of
 * an earlier request, not an operation: left out too. Every answer is also kept as a sample, and
 * every 5xx other than 503, error body outside the contract, or status the contract does not
 * allow for the call is a violation.
 */

/**
 * The ids of a register load that runs beside a ledger's (whose chosen ids count up from 1 below a
 * fence plant at 10^9, its server-assigned ones above it): 8 ids from 900,000,001.
 */
export const BESIDE_LEDGER = { firstId: 900_000_001, keys: 8 } as const;
export const isBesideLedger = (id: number): boolean =>
  id >= BESIDE_LEDGER.firstId && id < BESIDE_LEDGER.firstId + BESIDE_LEDGER.keys;
/** `plants` without the register load's ids (BESIDE_LEDGER): what the ledger alone wrote. */
export const withoutRegisters = <V>(plants: ReadonlyMap<number, V>): Map<number, V> =>
  new Map([...plants].filter(([id]) => !isBesideLedger(id)));

export interface RegisterLoadOptions {
  /** Ports of the server instances on 127.0.0.1; each request picks one at random. */
  readonly targets: readonly number[];
  readonly token: string;
  /** Sequential clients (default 12). */
  readonly clients?: number;
  /** How many plant ids the load works on (default 8). */
  readonly keys?: number;
  /** The first id (default 1,000,001: far above the ids a server assigns on its own). */
  readonly firstId?: number;
  readonly seed: number;
  /** No answer within this long is a lost answer (default 10,000 ms). */
  readonly requestTimeoutMs?: number;
  /** A client waits this long after a 503 or a lost answer (default 25 ms). */
  readonly backoffMs?: number;
  /**
   * Other loads write to the same store (default false): plants of theirs on a list page are
   * passed over instead of counted as answers the load cannot explain.
   */
  readonly sharedStore?: boolean;
}

export interface AnswerSample {
  /** The request in words (`PATCH /plants/1000003 If-Match "5"`). */
  readonly what: string;
  readonly target: number;
  /** 'none': no (complete) answer. */
  readonly status: number | 'none';
  readonly ms: number;
  /** performance.now() when it was sent (the history's clock). */
  readonly invokedAt: number;
  readonly requestId: string | undefined;
}

export interface RegisterTally {
  requests: number;
  unavailable: number;
  noAnswer: number;
  replayed: number;
  byStatus: Map<number | 'none', number>;
}

const NAMES = ['fern', 'ivy', 'moss', 'palm'] as const;
const TAGS = ['green', 'wet', null] as const;
/** A 409 of a keyed create whose key is in flight: nothing was looked at or changed. */
const inFlight = (res: SimpleResponse): boolean => res.status === 409 && res.headers['retry-after'] !== undefined;

const parse = (body: string): unknown => {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
};

const valueFrom = (body: unknown): PlantValue | undefined => {
  if (typeof body !== 'object' || body === null) return undefined;
  const { name, tag } = body as { name?: unknown; tag?: unknown };
  if (typeof name !== 'string' || (tag !== undefined && typeof tag !== 'string')) return undefined;
  return tag === undefined ? { name } : { name, tag };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Client {
  readonly n: number;
  /** The ETags this client saw, per id, newest last. */
  readonly seen: Map<number, string[]>;
  /** A keyed create whose answer was lost, to send again with its key. */
  retry: { readonly key: string; readonly id: number; readonly value: PlantValue } | undefined;
  seq: number;
}

export class RegisterLoad {
  readonly history: Operation[] = [];
  readonly samples: AnswerSample[] = [];
  readonly violations: string[] = [];
  readonly tally: RegisterTally = { requests: 0, unavailable: 0, noAnswer: 0, replayed: 0, byStatus: new Map() };
  private targets: readonly number[];
  private readonly agents = new Map<number, http.Agent>();
  private readonly rand: () => number;
  private readonly ids: readonly number[];
  private readonly clients: Client[];

  constructor(private readonly options: RegisterLoadOptions) {
    this.targets = options.targets;
    this.rand = seeded(options.seed);
    const first = options.firstId ?? 1_000_001;
    this.ids = Array.from({ length: options.keys ?? 8 }, (_, i) => first + i);
    this.clients = Array.from({ length: options.clients ?? 12 }, (_, n) => ({
      n,
      seen: new Map(),
      retry: undefined,
      seq: 0,
    }));
  }

  /** Other instances from now on (a restarted server listens on another port). */
  setTargets(targets: readonly number[]): void {
    this.targets = targets;
  }

  /** Runs every client until `durationMs` passed or `signal` aborted. */
  async run({ durationMs, signal }: { durationMs?: number; signal?: AbortSignal }): Promise<void> {
    const until = durationMs === undefined ? Infinity : performance.now() + durationMs;
    const going = () => performance.now() < until && signal?.aborted !== true;
    await Promise.all(
      this.clients.map(async (client) => {
        while (going()) {
          const before = this.tally.unavailable + this.tally.noAnswer;
          await this.step(client);
          if (this.tally.unavailable + this.tally.noAnswer > before) await sleep(this.options.backoffMs ?? 25);
        }
      }),
    );
  }

  /** Reads every id once more (retrying 503s and lost answers a while): the final state, for the checker. */
  async settle(): Promise<void> {
    const client = this.clients[0] as Client;
    for (const id of this.ids) {
      for (let attempt = 0; attempt < 50; attempt++) {
        const got = await this.get(client, id);
        if (got) break;
        await sleep(100); // back-off between retries of a 503 or a lost answer
      }
    }
  }

  /**
   * The writes still without an answer could not land after `at`: the server that took them was
   * killed and its store settled (before it restarts). Without this their window stays open, and a
   * write lost at one kill that shows up rounds later — a store that held it back, a restart that
   * replayed it — would still be explained.
   */
  closeUnknown(at: number): void {
    this.history.forEach((op, i) => {
      if (op.result.status === 'unknown' && op.returnedAt === Infinity) this.history[i] = { ...op, returnedAt: at };
    });
  }

  /** Closes the keep-alive connections. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.rand() * list.length)] as T;
  }

  private async step(client: Client): Promise<void> {
    if (client.retry !== undefined && this.rand() < 0.7) return this.createKeyed(client, client.retry);
    const id = this.pick(this.ids);
    const r = this.rand();
    if (r < 0.2) return this.create(client, id);
    if (r < 0.42) return void (await this.get(client, id));
    if (r < 0.72) return this.patch(client, id);
    if (r < 0.9) return this.remove(client, id);
    return this.list(client);
  }

  /** The If-Match to send: none, the last ETag this client saw of the id, or an older one (stale on purpose). */
  private ifMatch(client: Client, id: number): string | undefined {
    const seen = client.seen.get(id) ?? [];
    const r = this.rand();
    if (seen.length === 0 || r < 0.3) return undefined;
    if (r < 0.8 || seen.length === 1) return seen.at(-1);
    return seen[Math.floor(this.rand() * (seen.length - 1))];
  }

  private saw(client: Client, id: number, etag: string | undefined): void {
    if (etag === undefined) return;
    const seen = client.seen.get(id) ?? [];
    if (seen.at(-1) !== etag) seen.push(etag);
    if (seen.length > 8) seen.shift();
    client.seen.set(id, seen);
  }

  private record(client: Client, call: Call, result: Result, invokedAt: number, returnedAt: number): void {
    this.history.push({ client: client.n, call, result, invokedAt, returnedAt });
  }

  /**
   * One request; resolves with the answer, 'refused' (the connection was refused: never sent),
   * or 'none' (no complete answer: it may have landed). `allowed`: the statuses the contract
   * allows for this call besides 503.
   */
  private async request(
    what: string,
    method: string,
    path: string,
    allowed: readonly number[],
    extra: { headers?: http.OutgoingHttpHeaders; body?: string } = {},
  ): Promise<{ res: SimpleResponse | 'none' | 'refused'; invokedAt: number; returnedAt: number }> {
    const port = this.pick(this.targets);
    let agent = this.agents.get(port);
    if (agent === undefined) {
      agent = new http.Agent({ keepAlive: true, maxSockets: this.clients.length });
      this.agents.set(port, agent);
    }
    const headers = {
      authorization: `Bearer ${this.options.token}`,
      ...(extra.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...extra.headers,
    };
    this.tally.requests++;
    const invokedAt = performance.now();
    let res: SimpleResponse | 'none' | 'refused';
    try {
      res = await send({
        agent,
        port,
        method,
        path,
        headers,
        ...(extra.body === undefined ? {} : { body: extra.body }),
        timeoutMs: this.options.requestTimeoutMs ?? 10_000,
      });
    } catch (error) {
      if (!(error instanceof RequestFailed)) throw error;
      res = error.phase === 'no-response' && error.code === 'ECONNREFUSED' ? 'refused' : 'none';
    }
    const returnedAt = performance.now();
    const status = typeof res === 'string' ? 'none' : res.status;
    const requestId = typeof res === 'string' ? undefined : String(res.headers['x-request-id']);
    this.samples.push({ what, target: port, status, ms: returnedAt - invokedAt, invokedAt, requestId });
    this.tally.byStatus.set(status, (this.tally.byStatus.get(status) ?? 0) + 1);
    if (typeof res === 'string') this.tally.noAnswer++;
    else {
      if (res.status === 503) this.tally.unavailable++;
      if (res.status >= 400) {
        const problems = errorBodyProblems(res.status, res.headers['content-type'], res.body);
        if (problems.length > 0) this.violations.push(`${what} → ${res.status}: ${problems.join('; ')}`);
      }
      if (res.status !== 503 && !allowed.includes(res.status))
        this.violations.push(`${what} → ${res.status} (allowed: ${allowed.join(', ')}, 503) ${res.body.slice(0, 200)}`);
    }
    return { res, invokedAt, returnedAt };
  }

  /** The ETag of a 2xx, or a violation. */
  private etagOf(what: string, res: SimpleResponse): string | undefined {
    const etag = res.headers.etag;
    if (typeof etag === 'string' && /^"[^"]*"$/.test(etag)) return etag;
    this.violations.push(`${what} → ${res.status} without a strong ETag: ${String(etag)}`);
    return undefined;
  }

  private newValue(client: Client): PlantValue {
    const tag = this.pick(TAGS);
    const name = `${this.pick(NAMES)} c${client.n}.${client.seq++}`;
    return tag === null ? { name } : { name, tag };
  }

  private async create(client: Client, id: number): Promise<void> {
    const value = this.newValue(client);
    if (this.rand() < 0.4)
      return this.createKeyed(client, { key: `reg-${this.options.seed}-${client.n}-${client.seq}`, id, value });
    const body = JSON.stringify({ id, ...value });
    const { res, invokedAt, returnedAt } = await this.request(`POST ${body}`, 'POST', '/plants', [201, 409], { body });
    this.recordCreate(client, { op: 'create', id, value }, res, invokedAt, returnedAt, `POST ${body}`);
  }

  private async createKeyed(
    client: Client,
    keyed: { readonly key: string; readonly id: number; readonly value: PlantValue },
  ): Promise<void> {
    client.retry = undefined;
    const body = JSON.stringify({ id: keyed.id, ...keyed.value });
    const what = `POST ${body} Idempotency-Key ${keyed.key}`;
    const { res, invokedAt, returnedAt } = await this.request(what, 'POST', '/plants', [201, 409], {
      body,
      headers: { 'idempotency-key': keyed.key },
    });
    if (res === 'none' || (res !== 'refused' && (res.status === 503 || inFlight(res)))) client.retry = keyed;
    if (res !== 'refused' && res !== 'none' && (res.headers['idempotent-replayed'] === 'true' || inFlight(res))) {
      // an echo of the earlier request with this key, or a refusal that looked at nothing
      if (res.headers['idempotent-replayed'] === 'true') this.tally.replayed++;
      return;
    }
    this.recordCreate(client, { op: 'create', id: keyed.id, value: keyed.value }, res, invokedAt, returnedAt, what);
  }

  private recordCreate(
    client: Client,
    call: Call & { op: 'create' },
    res: SimpleResponse | 'none' | 'refused',
    invokedAt: number,
    returnedAt: number,
    what: string,
  ): void {
    if (res === 'refused') return;
    if (res === 'none' || res.status === 503)
      return this.record(client, call, { status: 'unknown' }, invokedAt, Infinity);
    if (res.status === 409) return this.record(client, call, { status: 409 }, invokedAt, returnedAt);
    if (res.status !== 201) return;
    if (res.headers.location !== `/plants/${call.id}`)
      this.violations.push(`${what} → 201 with Location ${String(res.headers.location)}`);
    if (JSON.stringify(parse(res.body)) !== JSON.stringify(call.value))
      this.violations.push(`${what} → 201 body ${res.body.slice(0, 200)}`);
    const etag = this.etagOf(what, res);
    if (etag === undefined) return;
    this.saw(client, call.id, etag);
    this.record(client, call, { status: 201, etag }, invokedAt, returnedAt);
  }

  /** Reads one plant; resolves whether it got a definite answer. */
  private async get(client: Client, id: number): Promise<boolean> {
    const what = `GET /plants/${id}`;
    const { res, invokedAt, returnedAt } = await this.request(what, 'GET', `/plants/${id}`, [200, 404]);
    if (typeof res === 'string' || res.status === 503) return false;
    const call: Call = { op: 'get', id };
    if (res.status === 404) this.record(client, call, { status: 404 }, invokedAt, returnedAt);
    if (res.status !== 200) return res.status === 404;
    const body = parse(res.body) as { id?: unknown } | undefined;
    const value = valueFrom(body);
    const etag = this.etagOf(what, res);
    if (value === undefined || body?.id !== id) this.violations.push(`${what} → 200 ${res.body.slice(0, 200)}`);
    if (value === undefined || etag === undefined) return false;
    this.saw(client, id, etag);
    this.record(client, call, { status: 200, value, etag }, invokedAt, returnedAt);
    return true;
  }

  private async patch(client: Client, id: number): Promise<void> {
    const r = this.rand();
    const tag = this.pick(TAGS);
    // names from a small set, so that some patches set what the plant already has (its ETag stays)
    const patch: PlantPatch = {
      ...(r < 0.7 ? { name: this.pick(NAMES) } : {}),
      ...(r > 0.4 ? { tag } : {}),
    };
    const ifMatch = this.ifMatch(client, id);
    const body = JSON.stringify(patch);
    const what = `PATCH /plants/${id} ${body}${ifMatch === undefined ? '' : ` If-Match ${ifMatch}`}`;
    const { res, invokedAt, returnedAt } = await this.request(what, 'PATCH', `/plants/${id}`, [200, 404, 412], {
      body,
      headers: {
        'content-type': 'application/merge-patch+json',
        ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
      },
    });
    const call: Call = { op: 'patch', id, patch, ...(ifMatch === undefined ? {} : { ifMatch }) };
    if (res === 'refused') return;
    if (res === 'none' || res.status === 503)
      return this.record(client, call, { status: 'unknown' }, invokedAt, Infinity);
    if (res.status === 404 || res.status === 412)
      return this.record(client, call, { status: res.status }, invokedAt, returnedAt);
    if (res.status !== 200) return;
    const body200 = parse(res.body) as { id?: unknown } | undefined;
    const value = valueFrom(body200);
    const etag = this.etagOf(what, res);
    if (value === undefined || body200?.id !== id) this.violations.push(`${what} → 200 ${res.body.slice(0, 200)}`);
    if (value === undefined || etag === undefined) return;
    this.saw(client, id, etag);
    this.record(client, call, { status: 200, value, etag }, invokedAt, returnedAt);
  }

  private async remove(client: Client, id: number): Promise<void> {
    const ifMatch = this.ifMatch(client, id);
    const what = `DELETE /plants/${id}${ifMatch === undefined ? '' : ` If-Match ${ifMatch}`}`;
    const { res, invokedAt, returnedAt } = await this.request(what, 'DELETE', `/plants/${id}`, [204, 404, 412], {
      headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
    });
    const call: Call = { op: 'delete', id, ...(ifMatch === undefined ? {} : { ifMatch }) };
    if (res === 'refused') return;
    if (res === 'none' || res.status === 503)
      return this.record(client, call, { status: 'unknown' }, invokedAt, Infinity);
    if (res.status === 204 && res.body !== '')
      this.violations.push(`${what} → 204 with a body ${res.body.slice(0, 200)}`);
    if (res.status === 204 || res.status === 404 || res.status === 412)
      this.record(client, call, { status: res.status }, invokedAt, returnedAt);
  }

  /** A page of the key space: each plant on it is a read without an ETag, within the list's interval. */
  private async list(client: Client): Promise<void> {
    const first = this.ids[0] as number;
    const path = `/plants?limit=${this.ids.length}&after=${first - 1}`;
    const { res, invokedAt, returnedAt } = await this.request(`GET ${path}`, 'GET', path, [200]);
    if (typeof res === 'string' || res.status !== 200) return;
    const page = parse(res.body);
    if (!Array.isArray(page)) return void this.violations.push(`GET ${path} → 200 ${res.body.slice(0, 200)}`);
    for (const item of page as { id?: unknown }[]) {
      const value = valueFrom(item);
      if (
        this.options.sharedStore === true &&
        value !== undefined &&
        typeof item.id === 'number' &&
        !this.ids.includes(item.id)
      )
        continue;
      if (value === undefined || typeof item.id !== 'number' || !this.ids.includes(item.id)) {
        this.violations.push(`GET ${path} listed ${JSON.stringify(item)}`);
        continue;
      }
      this.record(client, { op: 'get', id: item.id }, { status: 200, value }, invokedAt, returnedAt);
    }
  }
}
