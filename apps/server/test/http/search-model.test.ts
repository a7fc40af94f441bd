import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  describeSearch,
  expectedList,
  expectSameList,
  plantName,
  plantTag,
  querySpec,
  resolveQuery,
  SORTS,
  walk,
  wirePlant,
  type QuerySpec,
  type Search,
  type Sort,
  type WirePlant,
} from './search-support.js';
import { bearer, jsonHeaders, request, startTestServer, type Reply, type TestServer } from './support.js';
import { seedFrom } from '../support/seed.js';

/*
 * A model-based test (fast-check `commands`) of search, sort, paging and counting: random
 * stores of names from many scripts and compatibility forms, then creates, renames, re-tags and
 * deletes interleaved with list queries (q often a slice of a stored name, a tag, an order, a
 * small limit, sometimes `Prefer: count=exact`), each followed through its Link to the last page
 * and compared plant for plant, in order, with the model. Both stores: the `postgres` project
 * runs this file again.
 *
 * SEARCH_MODEL_SEED (default fixed, `random` for a new one) and SEARCH_MODEL_RUNS (sequences per
 * store) set the run; a failure prints the seed, the path to the shrunk case and the commands.
 */

const SEED = seedFrom('SEARCH_MODEL_SEED', 20261126);
const RUNS = Number(process.env['SEARCH_MODEL_RUNS'] ?? 25);

interface Model {
  readonly plants: Map<number, WirePlant>;
  /** Every id this sequence used, deleted ones included, for commands to pick from. */
  readonly ids: number[];
}

interface Real {
  readonly server: TestServer;
}

let keys = 0;

const fail = (what: string, reply: Reply, expected: number): never => {
  throw new Error(`${what}: expected ${expected}, got ${reply.status} ${reply.text}`);
};

const idOf = (model: Model, pick: number): number | undefined => model.ids[pick % Math.max(1, model.ids.length)];

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly name: string,
    readonly tag: string | undefined,
    /** A client-chosen id (taken ones get 409), or the server assigns one. */
    readonly id: number | undefined,
    /** With an Idempotency-Key (a path of its own through the stores). */
    readonly keyed: boolean = false,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const body = { ...(this.id === undefined ? {} : { id: this.id }), name: this.name, tag: this.tag };
    const key = this.keyed ? { 'idempotency-key': `search-model-${process.pid}-${(keys += 1)}` } : {};
    const reply = await request(server, '/plants', {
      method: 'POST',
      headers: { ...jsonHeaders(server.tokens.all), ...key },
      body: JSON.stringify(body),
    });
    if (this.id !== undefined && model.plants.has(this.id)) {
      if (reply.status !== 409) fail(this.toString(), reply, 409);
      return;
    }
    if (reply.status !== 201) fail(this.toString(), reply, 201);
    const id = Number(String(reply.headers.location).split('/').pop());
    if (this.id !== undefined && id !== this.id) throw new Error(`${this.toString()}: Location ${id}`);
    model.plants.set(id, wirePlant(id, this.name, this.tag));
    if (!model.ids.includes(id)) model.ids.push(id);
  }
  toString = () =>
    `create(${JSON.stringify(this.name)}, ${JSON.stringify(this.tag)}, id ${String(this.id)}${this.keyed ? ', keyed' : ''})`;
}

class Patch implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly name: string | undefined,
    /** A new tag, null to remove it, undefined to keep it. */
    readonly tag: string | null | undefined,
    /** With `If-Match: *` (a conditional write, a path of its own through the stores). */
    readonly conditional: boolean = false,
  ) {}
  check = (model: Readonly<Model>) => model.ids.length > 0;
  async run(model: Model, { server }: Real): Promise<void> {
    const id = idOf(model, this.pick) as number;
    const reply = await request(server, `/plants/${id}`, {
      method: 'PATCH',
      headers: {
        ...bearer(server.tokens.all),
        'content-type': 'application/merge-patch+json',
        ...(this.conditional ? { 'if-match': '*' } : {}),
      },
      body: JSON.stringify({ name: this.name, tag: this.tag }),
    });
    const plant = model.plants.get(id);
    if (plant === undefined) {
      if (reply.status !== 404) fail(`${this.toString()} of ${id}`, reply, 404);
      return;
    }
    if (reply.status !== 200) fail(`${this.toString()} of ${id}`, reply, 200);
    const tag = this.tag === undefined ? plant.tag : (this.tag ?? undefined);
    model.plants.set(id, wirePlant(id, this.name ?? plant.name, tag));
  }
  toString = () =>
    `patch(#${this.pick}, ${JSON.stringify(this.name)}, ${JSON.stringify(this.tag)}${this.conditional ? ', If-Match *' : ''})`;
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.ids.length > 0;
  async run(model: Model, { server }: Real): Promise<void> {
    const id = idOf(model, this.pick) as number;
    const reply = await request(server, `/plants/${id}`, { method: 'DELETE', headers: bearer(server.tokens.all) });
    const expected = model.plants.has(id) ? 204 : 404;
    if (reply.status !== expected) fail(`${this.toString()} of ${id}`, reply, expected);
    model.plants.delete(id);
  }
  toString = () => `delete(#${this.pick})`;
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly q: QuerySpec,
    readonly tag: string | undefined,
    readonly sort: Sort | undefined,
    readonly limit: number,
    readonly count: boolean,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const names = [...model.plants.values()].map((p) => p.name);
    const search: Search = { q: resolveQuery(this.q, names), tag: this.tag, sort: this.sort, limit: this.limit };
    const expected = expectedList(model.plants.values(), search);
    const walked = await walk(server, search, { count: this.count ? expected.length : undefined });
    expectSameList(walked.plants, expected, `list ${describeSearch(search)}${this.count ? ' counted' : ''}`);
  }
  toString = () =>
    `list(${JSON.stringify(this.q)}, tag ${JSON.stringify(this.tag)}, sort ${String(this.sort)}, limit ${this.limit}${this.count ? ', count' : ''})`;
}

const explicitId = fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: undefined, freq: 3 });
const pick = fc.nat({ max: 1000 });

const commands = [
  fc.tuple(plantName, plantTag, explicitId, fc.boolean()).map(([n, t, i, k]) => new Create(n, t, i, k)),
  fc
    .tuple(pick, fc.option(plantName, { nil: undefined, freq: 5 }), fc.oneof(plantTag, fc.constant(null)), fc.boolean())
    .map(([p, n, t, c]) => new Patch(p, n, t, c)),
  fc.nat({ max: 1000 }).map((p) => new Delete(p)),
  fc
    .tuple(
      querySpec,
      plantTag,
      fc.option(fc.constantFrom(...SORTS), { nil: undefined, freq: 6 }),
      fc.integer({ min: 1, max: 7 }),
      fc.boolean(),
    )
    .map(([q, t, s, l, c]) => new List(q, t, s, l, c)),
  // Lists weigh double: they are what is under test.
  fc
    .tuple(querySpec, plantTag, fc.constantFrom(...SORTS), fc.integer({ min: 1, max: 7 }), fc.boolean())
    .map(([q, t, s, l, c]) => new List(q, t, s, l, c)),
];

/** Deletes every plant, so that each sequence starts from an empty store. */
const wipe = async (server: TestServer): Promise<void> => {
  for (;;) {
    const reply = await request(server, '/plants?limit=1000', { headers: bearer(server.tokens.all) });
    const plants = reply.json as WirePlant[];
    if (plants.length === 0) return;
    for (const { id } of plants) {
      const gone = await request(server, `/plants/${id}`, { method: 'DELETE', headers: bearer(server.tokens.all) });
      if (gone.status !== 204) throw new Error(`wipe: DELETE /plants/${id}: ${gone.status}`);
    }
  }
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('search, sort, paging and counting against a model', () => {
  it('answer random stores and random queries exactly as the model does', async () => {
    let commandsRun = 0;
    const initial = fc.array(fc.tuple(plantName, plantTag, explicitId), { minLength: 0, maxLength: 30, size: 'max' });
    await fc.assert(
      fc.asyncProperty(initial, fc.commands(commands, { maxCommands: 60, size: 'max' }), async (start, cmds) => {
        await wipe(server);
        const model: Model = { plants: new Map(), ids: [] };
        for (const [n, t, i] of start) await new Create(n, t, i).run(model, { server });
        commandsRun += start.length + [...cmds].length;
        await fc.asyncModelRun(() => ({ model, real: { server } }), cmds);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(
      `search model (${process.env['PLANT_STORE_TEST_STORE'] ?? 'sqlite'}): ${RUNS} sequences, ${commandsRun} commands, seed ${SEED}`,
    );
  }, 300_000);
});
