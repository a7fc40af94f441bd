import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, startTestServer, type Reply, type TestServer } from './support.js';

/*
 * A model-based test (fast-check `commands`): random sequences of create / get / patch / put /
 * delete / list-by-tag, with and without If-Match / If-None-Match (current, stale, `*`, unknown),
 * against the listening server, each answer checked against a small in-memory model of the store,
 * its `X-Change-Seq` included (nothing else writes to this server: each change the model makes is
 * the next number, a write that changes nothing and every read carry the newest). Both stores:
 * the `postgres` project runs this file again. The seed is fixed for CI (MODEL_SEED to change it,
 * MODEL_RUNS for more sequences); a failure prints the shrunk sequence and the seed.
 */

const SEED = Number(process.env['MODEL_SEED'] ?? 20261124);
const RUNS = Number(process.env['MODEL_RUNS'] ?? 40);

interface ModelPlant {
  readonly name: string;
  readonly tag?: string;
  readonly etag: string;
}

interface Model {
  /** The plants this sequence made that exist now. */
  readonly plants: Map<number, ModelPlant>;
  /** Every ETag ever seen per id (the current one included). */
  readonly etags: Map<number, Set<string>>;
  /** Every id this sequence has used, deleted ones too, and ids it may choose. */
  readonly ids: number[];
  /** This sequence's own tags, so that list-by-tag sees only its plants. */
  readonly tags: readonly string[];
  /** The newest change number of the store: each change the sequence makes is the next one. */
  seq: number;
}

interface Real {
  readonly server: TestServer;
}

type Precondition = 'none' | 'current' | 'stale' | 'star' | 'unknown' | 'weak-current';

const headerValue = (model: Model, id: number, kind: Precondition): string | undefined => {
  const current = model.plants.get(id)?.etag;
  switch (kind) {
    case 'none':
      return undefined;
    case 'star':
      return '*';
    case 'unknown':
      return '"unknown-tag"';
    case 'current':
      return current ?? '"never-had-one"';
    case 'weak-current':
      return current === undefined ? 'W/"never-had-one"' : `W/${current}`;
    case 'stale': {
      const old = [...(model.etags.get(id) ?? [])].find((e) => e !== current);
      return old ?? '"no-stale-one"';
    }
  }
};

/** The If-Match / If-None-Match values a command sends for `id`, and the headers that carry them. */
const preconditions = (model: Model, id: number, match: Precondition, noneMatch: Precondition = 'none') => {
  const ifMatch = headerValue(model, id, match);
  const ifNoneMatch = headerValue(model, id, noneMatch);
  const headers = {
    ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
    ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }),
  };
  return { ifMatch, ifNoneMatch, headers };
};

/** Whether `value` (If-Match, strong comparison) holds for the plant as the model has it. */
const ifMatchHolds = (value: string, plant: ModelPlant): boolean => value === '*' || value === plant.etag;
/** Whether `value` (If-None-Match, weak comparison) matches the plant. */
const ifNoneMatchMatches = (value: string, plant: ModelPlant): boolean =>
  value === '*' || value.replace(/^W\//, '') === plant.etag;

const idOf = (model: Model, pick: number): number => model.ids[pick % model.ids.length] as number;

const expectStatus = (reply: Reply, status: number, what: string): void => {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text}`);
};

/** Checks the answer's X-Change-Seq: the next number when it made a change (and counts it), else the newest. */
const expectSeq = (model: Model, reply: Reply, changed: boolean, what: string): void => {
  if (changed) model.seq += 1;
  const value = reply.headers['x-change-seq'];
  if (value !== String(model.seq))
    throw new Error(`${what}: expected X-Change-Seq ${model.seq}, got ${String(value)} on a ${reply.status}`);
};

/** A write that failed (409, 412, 404) says nothing of the log. */
const expectNoSeq = (reply: Reply, what: string): void => {
  if (reply.headers['x-change-seq'] !== undefined)
    throw new Error(`${what}: a ${reply.status} carries X-Change-Seq ${String(reply.headers['x-change-seq'])}`);
};

const plantBody = (id: number, plant: { name: string; tag?: string | undefined }) =>
  plant.tag === undefined ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag };

/** Records a new current ETag for `id`: it must be one the id never had. */
const newEtag = (model: Model, id: number, etag: unknown, what: string): string => {
  if (typeof etag !== 'string' || !/^"[0-9a-z]+"$/.test(etag))
    throw new Error(`${what}: ETag ${String(etag)} is not a strong quoted tag`);
  const seen = model.etags.get(id) ?? new Set<string>();
  if (seen.has(etag)) throw new Error(`${what}: ETag ${etag} was given to plant ${id} before`);
  seen.add(etag);
  model.etags.set(id, seen);
  return etag;
};

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number | undefined,
    readonly name: string,
    readonly tag: number | undefined,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const id = this.pick === undefined ? undefined : idOf(model, this.pick);
    const tag = this.tag === undefined ? undefined : model.tags[this.tag % model.tags.length];
    const body = { ...(id === undefined ? {} : { id }), name: this.name, ...(tag === undefined ? {} : { tag }) };
    const reply = await request(server, '/plants', {
      method: 'POST',
      headers: { ...bearer(server.tokens.all), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (id !== undefined && model.plants.has(id)) {
      expectNoSeq(reply, this.toString());
      return expectStatus(reply, 409, this.toString());
    }
    expectStatus(reply, 201, this.toString());
    expectSeq(model, reply, true, this.toString());
    const created = Number(String(reply.headers.location).split('/').pop());
    if (id !== undefined) expect(created).toBe(id);
    else model.ids.push(created);
    const etag = newEtag(model, created, reply.headers.etag, this.toString());
    model.plants.set(created, { name: this.name, ...(tag === undefined ? {} : { tag }), etag });
    // The ETag of the 201 is the one GET shows.
    const read = await request(server, `/plants/${created}`, { headers: bearer(server.tokens.all) });
    expect(read.headers.etag).toBe(etag);
  }
  toString = () =>
    `create(${this.pick === undefined ? 'assigned' : `id#${this.pick}`}, ${JSON.stringify(this.name)}, tag#${String(this.tag)})`;
}

class Get implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly ifMatch: Precondition,
    readonly ifNoneMatch: Precondition,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const id = idOf(model, this.pick);
    const plant = model.plants.get(id);
    const { ifMatch, ifNoneMatch, headers } = preconditions(model, id, this.ifMatch, this.ifNoneMatch);
    const reply = await request(server, `/plants/${id}`, { headers: { ...bearer(server.tokens.all), ...headers } });
    // A get says where its snapshot stands, whatever it answers (200, 304, 404 or 412).
    expectSeq(model, reply, false, this.toString());
    if (plant === undefined) return expectStatus(reply, 404, this.toString());
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, plant)) return expectStatus(reply, 412, this.toString());
    if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, plant)) {
      expectStatus(reply, 304, this.toString());
      expect(reply.text).toBe('');
      expect(reply.headers.etag).toBe(plant.etag);
      return;
    }
    expectStatus(reply, 200, this.toString());
    expect(reply.json).toEqual(plantBody(id, plant));
    expect(reply.headers.etag).toBe(plant.etag);
  }
  toString = () => `get(id#${this.pick}, If-Match ${this.ifMatch}, If-None-Match ${this.ifNoneMatch})`;
}

class Patch implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly name: string | undefined,
    readonly tag: number | null | undefined,
    readonly ifMatch: Precondition,
    readonly ifNoneMatch: Precondition,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const id = idOf(model, this.pick);
    const plant = model.plants.get(id);
    const tag = this.tag === undefined || this.tag === null ? this.tag : model.tags[this.tag % model.tags.length];
    const body = { ...(this.name === undefined ? {} : { name: this.name }), ...(tag === undefined ? {} : { tag }) };
    const { ifMatch, ifNoneMatch, headers } = preconditions(model, id, this.ifMatch, this.ifNoneMatch);
    const reply = await request(server, `/plants/${id}`, {
      method: 'PATCH',
      headers: { ...bearer(server.tokens.all), 'content-type': 'application/merge-patch+json', ...headers },
      body: JSON.stringify(body),
    });
    if (plant === undefined) {
      expectNoSeq(reply, this.toString());
      return expectStatus(reply, 404, this.toString());
    }
    if (
      (ifMatch !== undefined && !ifMatchHolds(ifMatch, plant)) ||
      (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, plant))
    ) {
      expectNoSeq(reply, this.toString());
      return expectStatus(reply, 412, this.toString());
    }
    expectStatus(reply, 200, this.toString());
    const name = this.name ?? plant.name;
    const nextTag = tag === undefined ? plant.tag : (tag ?? undefined);
    const changed = name !== plant.name || nextTag !== plant.tag;
    expectSeq(model, reply, changed, this.toString());
    const etag = changed ? newEtag(model, id, reply.headers.etag, this.toString()) : plant.etag;
    expect(reply.headers.etag).toBe(etag);
    const next: ModelPlant = { name, ...(nextTag === undefined ? {} : { tag: nextTag }), etag };
    model.plants.set(id, next);
    expect(reply.json).toEqual(plantBody(id, next));
  }
  toString = () =>
    `patch(id#${this.pick}, name ${JSON.stringify(this.name)}, tag ${String(this.tag)}, If-Match ${this.ifMatch}, If-None-Match ${this.ifNoneMatch})`;
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly ifMatch: Precondition,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const id = idOf(model, this.pick);
    const plant = model.plants.get(id);
    const { ifMatch, headers } = preconditions(model, id, this.ifMatch);
    const reply = await request(server, `/plants/${id}`, {
      method: 'DELETE',
      headers: { ...bearer(server.tokens.all), ...headers },
    });
    if (plant === undefined) return expectStatus(reply, 404, this.toString());
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, plant)) return expectStatus(reply, 412, this.toString());
    expectStatus(reply, 204, this.toString());
    expectSeq(model, reply, true, this.toString());
    model.plants.delete(id);
  }
  toString = () => `delete(id#${this.pick}, If-Match ${this.ifMatch})`;
}

class Put implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly name: string,
    readonly tag: number | undefined,
    readonly ifMatch: Precondition,
    readonly ifNoneMatch: Precondition,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const id = idOf(model, this.pick);
    const plant = model.plants.get(id);
    const tag = this.tag === undefined ? undefined : model.tags[this.tag % model.tags.length];
    const body = { name: this.name, ...(tag === undefined ? {} : { tag }) };
    const { ifMatch, ifNoneMatch, headers } = preconditions(model, id, this.ifMatch, this.ifNoneMatch);
    const reply = await request(server, `/plants/${id}`, {
      method: 'PUT',
      headers: { ...bearer(server.tokens.all), 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    // RFC 9110 §13.1.1: If-Match fails on a missing plant (412, never 404); If-None-Match holds.
    const refused =
      plant === undefined
        ? ifMatch !== undefined
        : (ifMatch !== undefined && !ifMatchHolds(ifMatch, plant)) ||
          (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, plant));
    if (refused) {
      expectNoSeq(reply, this.toString());
      return expectStatus(reply, 412, this.toString());
    }
    expectStatus(reply, plant === undefined ? 201 : 200, this.toString());
    if (plant === undefined) expect(reply.headers.location).toBe(`/plants/${id}`);
    const changed = plant === undefined || plant.name !== this.name || plant.tag !== tag;
    expectSeq(model, reply, changed, this.toString());
    const etag = changed ? newEtag(model, id, reply.headers.etag, this.toString()) : plant.etag;
    expect(reply.headers.etag).toBe(etag);
    const next: ModelPlant = { ...body, etag };
    model.plants.set(id, next);
    expect(reply.json).toEqual(plantBody(id, next));
  }
  toString = () =>
    `put(id#${this.pick}, ${JSON.stringify(this.name)}, tag#${String(this.tag)}, If-Match ${this.ifMatch}, If-None-Match ${this.ifNoneMatch})`;
}

class ListByTag implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly tag: number,
    readonly limit: number,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const tag = model.tags[this.tag % model.tags.length] as string;
    const seen: unknown[] = [];
    let path: string | undefined = `/plants?${new URLSearchParams({ tag, limit: String(this.limit) }).toString()}`;
    for (let pages = 0; path !== undefined; pages += 1) {
      if (pages > 100) throw new Error(`${this.toString()}: more than 100 pages`);
      const reply = await request(server, path, { headers: bearer(server.tokens.all) });
      expectStatus(reply, 200, this.toString());
      expectSeq(model, reply, false, this.toString());
      const page = reply.json as unknown[];
      seen.push(...page);
      const link = reply.headers.link as string | undefined;
      expect(link === undefined).toBe(page.length < this.limit);
      path = link === undefined ? undefined : /^<([^>]*)>; rel="next"$/.exec(link)?.[1];
    }
    const expected = [...model.plants.entries()]
      .filter(([, plant]) => plant.tag === tag)
      .sort(([a], [b]) => a - b)
      .map(([id, plant]) => plantBody(id, plant));
    expect(seen).toEqual(expected);
  }
  toString = () => `list(tag#${this.tag}, limit ${this.limit})`;
}

const precondition = fc.constantFrom<Precondition>(
  'none',
  'none',
  'current',
  'stale',
  'star',
  'unknown',
  'weak-current',
);
const pick = fc.nat({ max: 50 });
const name = fc.constantFrom('Fern', 'Moss', 'Ivy', 'Fern ', 'ferN', 'é');
const tagPick = fc.nat({ max: 3 });

const commands = [
  fc
    .tuple(fc.option(pick, { nil: undefined }), name, fc.option(tagPick, { nil: undefined }))
    .map(([p, n, t]) => new Create(p, n, t)),
  fc.tuple(pick, precondition, precondition).map(([p, m, n]) => new Get(p, m, n)),
  fc
    .tuple(
      pick,
      fc.option(name, { nil: undefined }),
      fc.oneof(tagPick, fc.constant(null), fc.constant(undefined)),
      precondition,
      precondition,
    )
    .map(([p, n, t, m, nm]) => new Patch(p, n, t, m, nm)),
  fc
    .tuple(pick, name, fc.option(tagPick, { nil: undefined }), precondition, precondition)
    .map(([p, n, t, m, nm]) => new Put(p, n, t, m, nm)),
  fc.tuple(pick, precondition).map(([p, m]) => new Delete(p, m)),
  fc.tuple(tagPick, fc.integer({ min: 1, max: 3 })).map(([t, l]) => new ListByTag(t, l)),
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the plant store against a model', () => {
  it('answers random sequences of create, get, patch, put, delete and list-by-tag as the model says', async () => {
    let sequence = 0;
    // Ids this file may choose: counting down from a random high id, below every id the server
    // assigns (it assigns above the highest id stored), and each sequence gets its own.
    let nextChosen = 2 ** 45 + Math.floor(Math.random() * 2 ** 30);
    let commandsRun = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { size: '+1' }), async (cmds) => {
        sequence += 1;
        const chosen = Array.from({ length: 4 }, () => (nextChosen -= 1));
        const run = `${sequence}-${Math.random().toString(36).slice(2, 6)}`;
        const start = await request(server, '/plants?limit=1', { headers: bearer(server.tokens.all) });
        const model: Model = {
          plants: new Map(),
          etags: new Map(),
          ids: chosen,
          tags: [`a ${run}`, `b ${run}`, `A ${run}`, `a+&% é ${run}`],
          seq: Number(start.headers['x-change-seq']),
        };
        commandsRun += [...cmds].length;
        await fc.asyncModelRun(() => ({ model, real: { server } }), cmds);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(
      `plant model (${process.env['PLANT_STORE_TEST_STORE'] ?? 'sqlite'}): ${RUNS} sequences, ${commandsRun} commands, seed ${SEED}`,
    );
  }, 120_000);
});
