import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request, startTestServer, testStoreKind, type Reply, type TestServer } from './support.js';

/*
 * A model-based test (fast-check `commands`) of arrays of creates: random sequences of single
 * creates, arrays (POST /plants/batch, with or without an Idempotency-Key and its replay), arrays
 * that fail part-way — an invalid element at a random place, an id given twice, an id another
 * plant has — deletes and full listings, against the listening server, each answer checked
 * against a small in-memory model. Every plant of a sequence carries one of the sequence's own
 * tags, so a listing by those tags shows everything the sequence left behind, and after each
 * sequence the change log from where it started must hold exactly one `plant.created` per plant
 * the model saw created: a refused array leaves no plant and no change. Both stores: the
 * `postgres` project runs this file again. Fixed seed for CI (BATCH_MODEL_SEED to change it,
 * BATCH_MODEL_RUNS for more sequences); a failure prints the shrunk sequence and the seed.
 */

const SEED = Number(process.env['BATCH_MODEL_SEED'] ?? 20261201);
const RUNS = Number(process.env['BATCH_MODEL_RUNS'] ?? process.env['MODEL_RUNS'] ?? 30);

interface ModelPlant {
  readonly name: string;
  readonly tag: string;
}

interface Model {
  readonly plants: Map<number, ModelPlant>;
  /** Ids this sequence may name: chosen ones, then the assigned ones it met. */
  readonly ids: number[];
  readonly tags: readonly string[];
  /** How many times each id was created (the change log must say the same). */
  readonly created: Map<number, number>;
  /** The newest change number an answer of this sequence gave. */
  lastSeq: number;
  keys: number;
  readonly run: string;
}

interface Real {
  readonly server: TestServer;
}

interface Element {
  /** A chosen id (a pick among the model's ids), or undefined: the server assigns one. */
  readonly pick: number | undefined;
  readonly name: string;
  readonly tag: number;
}

/** How a refused array is made invalid: where the bad element goes, and what is wrong with it. */
interface Breakage {
  readonly at: number;
  readonly kind: 'empty name' | 'unknown member' | 'not an object' | 'tag null';
}

/** What the arrays of the whole run met, for the closing line. */
const met = { created: 0, invalid: 0, twice: 0, taken: 0, replayed: 0, plants: 0 };

const idOf = (model: Model, pick: number): number => model.ids[pick % model.ids.length] as number;
const tagOf = (model: Model, tag: number): string => model.tags[tag % model.tags.length] as string;

const expectStatus = (reply: Reply, status: number, what: string): void => {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.text}`);
};

const post = (server: TestServer, path: string, body: unknown, key?: string): Promise<Reply> =>
  request(server, path, {
    method: 'POST',
    headers: {
      ...bearer(server.tokens.all),
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(body),
  });

const remember = (model: Model, id: number, plant: ModelPlant): void => {
  model.plants.set(id, plant);
  model.created.set(id, (model.created.get(id) ?? 0) + 1);
};

class CreateOne implements fc.AsyncCommand<Model, Real> {
  constructor(readonly element: Element) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const { pick, name, tag: t } = this.element;
    const id = pick === undefined ? undefined : idOf(model, pick);
    const tag = tagOf(model, t);
    const reply = await post(server, '/plants', { ...(id === undefined ? {} : { id }), name, tag });
    if (id !== undefined && model.plants.has(id)) return expectStatus(reply, 409, this.toString());
    expectStatus(reply, 201, this.toString());
    const created = Number(String(reply.headers.location).split('/').pop());
    if (id === undefined) model.ids.push(created);
    else expect(created).toBe(id);
    remember(model, created, { name, tag });
  }
  toString = () => `create(${JSON.stringify(this.element)})`;
}

class CreateMany implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly elements: readonly Element[],
    readonly broken: Breakage | undefined,
    readonly keyed: boolean,
    readonly replay: boolean,
  ) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const what = this.toString();
    const plants = this.elements.map(({ pick, name, tag }) => ({
      ...(pick === undefined ? {} : { id: idOf(model, pick) }),
      name,
      tag: tagOf(model, tag),
    }));
    const body: unknown[] = [...plants];
    let place: number | undefined;
    if (this.broken !== undefined) {
      place = this.broken.at % (plants.length + 1);
      const bad = {
        'empty name': { name: '', tag: tagOf(model, 0) },
        'unknown member': { name: 'x', tag: tagOf(model, 0), colour: 'red' },
        'not an object': 7,
        'tag null': { name: 'x', tag: null },
      }[this.broken.kind];
      body.splice(place, 0, bad);
    }
    model.keys += 1;
    const key = this.keyed ? `model-${model.run}-${model.keys}` : undefined;
    const reply = await post(server, '/plants/batch', body, key);
    if (place !== undefined) {
      expectStatus(reply, 400, what);
      expect((reply.json as { message: string }).message).toMatch(new RegExp(`^\\[${place}\\]`));
      met.invalid += 1;
    } else {
      const given = plants.flatMap((p) => (p.id === undefined ? [] : [p.id]));
      const twice = given.find((id, i) => given.indexOf(id) < i);
      const taken = given.filter((id) => model.plants.has(id));
      if (twice !== undefined) {
        expectStatus(reply, 409, what);
        expect((reply.json as { message: string }).message).toMatch(new RegExp(`^id ${twice} is given twice`));
        met.twice += 1;
      } else if (taken.length > 0) {
        expectStatus(reply, 409, what);
        expect((reply.json as { message: string }).message).toContain(taken.join(', '));
        met.taken += 1;
      } else {
        expectStatus(reply, 201, what);
        const answered = reply.json as { id: number; name: string; tag: string }[];
        expect(answered.map(({ id: _id, ...rest }) => rest)).toEqual(plants.map(({ id: _id, ...rest }) => rest));
        const seq = Number(reply.headers['x-change-seq']);
        // The array's changes are its own, in the one commit, after every earlier answer's.
        expect(seq - plants.length).toBeGreaterThanOrEqual(model.lastSeq);
        model.lastSeq = seq;
        met.created += 1;
        met.plants += plants.length;
        for (const [i, plant] of answered.entries()) {
          const asked = plants[i]?.id;
          if (asked !== undefined) expect(plant.id).toBe(asked);
          else {
            // Assigned: never an id the array gives, nor one a plant has.
            expect(given).not.toContain(plant.id);
            expect(model.plants.has(plant.id)).toBe(false);
            if (!model.ids.includes(plant.id)) model.ids.push(plant.id);
          }
          remember(model, plant.id, { name: plant.name, tag: plant.tag });
        }
      }
    }
    if (key !== undefined && this.replay) {
      const again = await post(server, '/plants/batch', body, key);
      // A 400 or an id given twice saves nothing: the same request is judged afresh, alike.
      expect(again.status, what).toBe(reply.status);
      if (reply.status === 201 || (reply.status === 409 && !reply.text.includes('given twice'))) {
        expect(again.headers['idempotent-replayed'], what).toBe('true');
        expect(again.text, what).toBe(reply.text);
        expect(again.headers['x-change-seq'], what).toBe(reply.headers['x-change-seq']);
        met.replayed += 1;
      }
    }
  }
  toString = () =>
    `createMany(${JSON.stringify(this.elements)}, broken ${JSON.stringify(this.broken)}, keyed ${this.keyed}, replay ${this.replay})`;
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(model: Model, { server }: Real): Promise<void> {
    const id = idOf(model, this.pick);
    const reply = await request(server, `/plants/${id}`, { method: 'DELETE', headers: bearer(server.tokens.all) });
    if (!model.plants.has(id)) return expectStatus(reply, 404, this.toString());
    expectStatus(reply, 204, this.toString());
    model.plants.delete(id);
  }
  toString = () => `delete(id#${this.pick})`;
}

/** Every plant with one of the sequence's tags: exactly the model's. */
const listAll = async (model: Model, server: TestServer): Promise<void> => {
  const seen: unknown[] = [];
  for (const tag of model.tags) {
    let path: string | undefined = `/plants?${new URLSearchParams({ tag, limit: '1000' }).toString()}`;
    while (path !== undefined) {
      const reply = await request(server, path, { headers: bearer(server.tokens.all) });
      expectStatus(reply, 200, 'list');
      seen.push(...(reply.json as unknown[]));
      const link = reply.headers.link as string | undefined;
      path = link === undefined ? undefined : /^<([^>]*)>; rel="next"$/.exec(link)?.[1];
    }
  }
  const byId = (a: unknown, b: unknown) => (a as { id: number }).id - (b as { id: number }).id;
  expect(seen.sort(byId)).toEqual([...model.plants.entries()].map(([id, plant]) => ({ id, ...plant })).sort(byId));
};

class ListAll implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  run = (model: Model, { server }: Real): Promise<void> => listAll(model, server);
  toString = () => 'listAll()';
}

/** The changes above `since` whose plant carries one of `tags`, read to the end of the log. */
const createdAbove = async (server: TestServer, since: number, tags: readonly string[]): Promise<number[]> => {
  const ids: number[] = [];
  for (let from = since; ;) {
    const reply = await request(server, `/plants/changes?since=${from}&limit=1000`, {
      headers: bearer(server.tokens.all),
    });
    expectStatus(reply, 200, 'changes');
    const changes = reply.json as { seq: number; type: string; data: { id: number; tag?: string } }[];
    for (const change of changes)
      if (change.type === 'plant.created' && tags.includes(change.data.tag ?? '')) ids.push(change.data.id);
    const last = changes[changes.length - 1];
    if (last === undefined) return ids;
    from = last.seq;
  }
};

const pick = fc.nat({ max: 40 });
const element = fc.record({
  pick: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: pick, weight: 1 }),
  name: fc.constantFrom('Fern', 'Moss', 'Ivy', 'é 🌵', 'a "b" \\ c'),
  tag: fc.nat({ max: 2 }),
});
const breakage = fc.record({
  at: fc.nat({ max: 20 }),
  kind: fc.constantFrom<Breakage['kind']>('empty name', 'unknown member', 'not an object', 'tag null'),
});

const commands = [
  element.map((e) => new CreateOne(e)),
  fc
    .tuple(
      fc.array(element, { minLength: 1, maxLength: 12 }),
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: breakage, weight: 1 }),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([elements, broken, keyed, replay]) => new CreateMany(elements, broken, keyed, replay)),
  pick.map((p) => new Delete(p)),
  fc.constant(new ListAll()),
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('arrays of creates against a model', () => {
  it('answers random sequences of creates, arrays (some failing part-way), deletes and listings as the model says, and leaves nothing of a refused array', async () => {
    let sequence = 0;
    // Chosen ids count down from a random high one, below every id the server assigns.
    let nextChosen = 2 ** 46 + Math.floor(Math.random() * 2 ** 30);
    let commandsRun = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { size: '+1' }), async (cmds) => {
        sequence += 1;
        const run = `${testStoreKind}-${sequence}-${Math.random().toString(36).slice(2, 8)}`;
        const start = Number(
          (await request(server, '/plants?limit=1', { headers: bearer(server.tokens.all) })).headers['x-change-seq'],
        );
        const model: Model = {
          plants: new Map(),
          ids: Array.from({ length: 5 }, () => (nextChosen -= 1)),
          tags: [`t1 ${run}`, `t2 ${run}`, `t3 ${run}`],
          created: new Map(),
          lastSeq: start,
          keys: 0,
          run,
        };
        commandsRun += [...cmds].length;
        await fc.asyncModelRun(() => ({ model, real: { server } }), cmds);
        await listAll(model, server);
        const logged = await createdAbove(server, start, model.tags);
        const expected = [...model.created.entries()].flatMap(([id, n]) => Array.from({ length: n }, () => id));
        expect(logged.sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(
      `batch model (${testStoreKind}): ${RUNS} sequences, ${commandsRun} commands, seed ${SEED}; arrays: ${met.created} created (${met.plants} plants), ${met.invalid} with an invalid element, ${met.twice} with an id twice, ${met.taken} with a taken id, ${met.replayed} replays checked`,
    );
  }, 300_000);
});
