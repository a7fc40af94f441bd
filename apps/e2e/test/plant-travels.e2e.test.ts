import { writeFile } from 'node:fs/promises';
import { createPlantStoreClient, type PlantStoreClient } from '@plant-store/client';
import { CreatePlantRequest, Plant } from '@plant-store/domain';
import { arbitraryOf, describePostgres, until } from '@plant-store/testkit';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bytesOf,
  cliJsonOf,
  createdBytesOf,
  data,
  eventsIn,
  eventsOf,
  exported,
  linesOf,
  pageBytesOf,
  parseExact,
  searchBytesOf,
  searchTextIn,
  verifiedPayload,
  openTravelStore,
  type StoreKind,
  type TravelStore,
  type Watcher,
} from './support/travel.js';

/*
 * A plant travels (docs/CONTRIBUTING.md): plants drawn from the arbitrary derived from
 * CreatePlantRequest's codec go through every path that carries a plant, and each path must give
 * back the codec's encoding byte for byte: create (201 and Location; by HTTP, the client or the
 * CLI), a keyed replay, PATCH to the next plant's members (an optional one it lacks removed; by
 * HTTP, the client or the CLI), PUT to the members of the plant two ahead (by the same three),
 * get, list, search, the change feed as JSON (whole and of one tag) and as an event stream (one
 * opened before the writes, one after), `plant-store watch --json`, webhook deliveries,
 * plants.mirror(), the client's and the CLI's get and list, both CLIs' export, both CLIs' import
 * into an empty store (`plant-store import` through a second server), backup (SQLite), and
 * migrate to the other kind of store and back. Nothing here names a member of the plant: the
 * plants, the patches and the CLI's flags are made from Plant's codec (`--<member>`, and
 * `--no-<member>` to remove an optional one), so a new member is carried, or missed, on every
 * path with no edit. One run is a batch of 5–8 plants; at its end they are deleted, so each run
 * sees only its own. SQLite always; PostgreSQL too (skipped with a line outside CI when none
 * answers). The seed is fixed (PLANT_STORE_TRAVEL_SEED to change it, `random` for a new one;
 * PLANT_STORE_TRAVEL_RUNS for more batches); a failure ends the run at once and prints the batch
 * and the seed.
 */

const SEED =
  process.env['PLANT_STORE_TRAVEL_SEED'] === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env['PLANT_STORE_TRAVEL_SEED'] ?? 20261129);
const RUNS = Number(process.env['PLANT_STORE_TRAVEL_RUNS'] ?? 6);

type Via = 'http' | 'client' | 'cli';
const VIA: readonly Via[] = ['http', 'client', 'cli'];

const batchArb = fc.uniqueArray(arbitraryOf(CreatePlantRequest), {
  minLength: 5,
  maxLength: 8,
  // Chosen ids differ within a batch (a second would be a 409); absent ones never collide.
  selector: (p) => p.id ?? Symbol('server-assigned'),
});

const PLANT_MEMBERS = new Set([...Object.keys(Plant.required), ...Object.keys(Plant.optional)]);
/** Plant's members but the id, in the codec's order: what a PATCH and `plant-store update` set. */
const MUTABLE = [...PLANT_MEMBERS].filter((key) => key !== 'id');

/**
 * The plant `from` (a request or another plant) makes with `id`, through Plant's codec. A member
 * `from` has and Plant does not declare would be dropped here as a store might drop it: it throws.
 */
const plantOf = (id: number, from: object): Plant => {
  const stranger = Object.keys(from).find((key) => !PLANT_MEMBERS.has(key));
  if (stranger !== undefined) throw new Error(`the member "${stranger}" of ${JSON.stringify(from)} is not Plant's`);
  const decoded = Plant.decode({ ...from, id });
  if (E.isLeft(decoded)) throw new Error(`not a plant: ${JSON.stringify({ ...from, id })}`);
  return decoded.right;
};
const memberOf = (plant: Plant, key: string): unknown => (plant as Record<string, unknown>)[key];
/** The merge patch that gives a plant `to`'s members: each one `to` has, null for each it lacks. */
const patchTo = (to: Plant): Record<string, unknown> =>
  Object.fromEntries(MUTABLE.map((key) => [key, memberOf(to, key) ?? null]));
/** The CLI's flag of a member: `--<member>` in kebab case. */
const flagOf = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
const idIn = (location: string | null): number => Number(/^\/plants\/([0-9]+)$/.exec(location ?? '')?.[1]);
const JSON_BODY = { 'content-type': 'application/json' };
let keys = 0;

/** Creates `request` by `via` with `key`; checks what that path gives back and returns the plant. */
const create = async (
  store: TravelStore,
  client: PlantStoreClient,
  via: Via,
  request: CreatePlantRequest,
  key: string,
): Promise<Plant> => {
  if (via === 'http') {
    const answer = await store.call('POST', '/plants', JSON.stringify(request), {
      ...JSON_BODY,
      'idempotency-key': key,
    });
    expect(answer.status, answer.body).toBe(201);
    const plant = plantOf(idIn(answer.headers.get('location')), request);
    expect(answer.body).toBe(createdBytesOf(plant));
    return plant;
  }
  if (via === 'client') {
    const created = await client.plants.create(request, { idempotencyKey: key });
    expect(created.replayed).toBe(false);
    const plant = plantOf(created.id, request);
    expect(JSON.stringify(created)).toBe(bytesOf(plant));
    return plant;
  }
  const members = Object.entries(request).map(([member, value]) => `${flagOf(member)}=${String(value)}`);
  const args = ['create', ...members, `--idempotency-key=${key}`, '--json'];
  const result = await store.cli(args);
  expect(result.code, result.stderr).toBe(0);
  const plant = plantOf((JSON.parse(result.stdout) as { id: number }).id, request);
  expect(result.stdout).toBe(cliJsonOf({ ...(JSON.parse(bytesOf(plant)) as object), replayed: false }));
  return plant;
};

/** Gives `plant` `to`'s members (removing an optional one `to` lacks) by `via`; returns the plant after. */
const patch = async (
  store: TravelStore,
  client: PlantStoreClient,
  via: Via,
  plant: Plant,
  to: Plant,
): Promise<Plant> => {
  const after = plantOf(plant.id, to);
  if (via === 'http') {
    const body = JSON.stringify(patchTo(to));
    const answer = await store.call('PATCH', `/plants/${plant.id}`, body, {
      'content-type': 'application/merge-patch+json',
    });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.body).toBe(bytesOf(after));
  } else if (via === 'client') {
    const updated = await client.plants.update(plant.id, patchTo(to) as Parameters<typeof client.plants.update>[1]);
    expect(JSON.stringify(updated)).toBe(bytesOf(after));
  } else {
    const members = MUTABLE.map((member) => {
      const value = memberOf(to, member);
      return value === undefined ? `--no-${flagOf(member).slice(2)}` : `${flagOf(member)}=${String(value)}`;
    });
    const result = await store.cli(['update', String(plant.id), ...members, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { etag } = JSON.parse(result.stdout) as { etag: string };
    expect(result.stdout).toBe(cliJsonOf({ ...(JSON.parse(bytesOf(after)) as object), etag }));
  }
  return after;
};

/** Replaces `plant` whole by `to`'s members (PUT) by `via`; returns the plant after. */
const replace = async (
  store: TravelStore,
  client: PlantStoreClient,
  via: Via,
  plant: Plant,
  to: Plant,
): Promise<Plant> => {
  const after = plantOf(plant.id, to);
  const { id: _id, ...body } = to;
  if (via === 'http') {
    const answer = await store.call('PUT', `/plants/${plant.id}`, JSON.stringify(body), JSON_BODY);
    expect(answer.status, answer.body).toBe(200);
    expect(answer.body).toBe(bytesOf(after));
  } else if (via === 'client') {
    const put = await client.plants.put(plant.id, body);
    expect([put.created, JSON.stringify(put)]).toEqual([false, bytesOf(after)]);
  } else {
    // A PUT leaves out what the body lacks, so only the members `to` has become flags.
    const members = MUTABLE.flatMap((member) => {
      const value = memberOf(to, member);
      return value === undefined ? [] : [`${flagOf(member)}=${String(value)}`];
    });
    const result = await store.cli(['put', String(plant.id), ...members, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { etag } = JSON.parse(result.stdout) as { etag: string };
    expect(result.stdout).toBe(cliJsonOf({ ...(JSON.parse(bytesOf(after)) as object), etag, created: false }));
  }
  return after;
};

/** Every path that reads plants back, for `plants` as the store holds them now. */
const readBack = async (store: TravelStore, client: PlantStoreClient, plants: readonly Plant[]) => {
  for (const plant of plants) {
    const got = await store.call('GET', `/plants/${plant.id}`);
    expect([got.status, got.body]).toEqual([200, bytesOf(plant)]);
    expect(JSON.stringify(await client.plants.get(plant.id))).toBe(bytesOf(plant));
  }
  expect((await store.call('GET', '/plants?limit=1000')).body).toBe(pageBytesOf(plants));
  expect(JSON.stringify((await client.plants.list({ limit: 1000 })).plants)).toBe(pageBytesOf(plants));
  let found = 0;
  for (const plant of plants) {
    const q = searchTextIn(plant.name);
    if (q === undefined) continue;
    const answer = await store.call('GET', `/plants?${new URLSearchParams({ q, limit: '1000' }).toString()}`);
    expect([answer.status, answer.body], `q=${JSON.stringify(q)}`).toEqual([200, searchBytesOf(plants, q)]);
    if (answer.body.includes(bytesOf(plant))) found += 1;
  }
  return found;
};

/** The paths outside the running server: the data CLI (export, import, backup, migrate) and the client CLI. */
const dataPaths = async (store: TravelStore, plants: readonly Plant[], run: number) => {
  const expected = linesOf(plants);
  const other: StoreKind = store.kind === 'sqlite' ? 'postgresql' : 'sqlite';
  const file = `${store.dir}/run-${run}.jsonl`;
  await Promise.all([
    (async () => {
      const lines = await exported(store.databaseUrl);
      expect(lines, 'export').toBe(expected);
      await writeFile(file, lines);
      const target = await store.fresh(store.kind);
      await data(['import', file], { DATABASE_URL: target });
      expect(await exported(target), 'export → import → export').toBe(expected);
    })(),
    (async () => {
      const there = await store.fresh(other);
      await data(['migrate', '--from', store.databaseUrl, '--to', there]);
      expect(await exported(there), `migrate to ${other}`).toBe(expected);
      const back = await store.fresh(store.kind);
      await data(['migrate', '--from', there, '--to', back]);
      expect(await exported(back), `migrate to ${other} and back`).toBe(expected);
    })(),
    (async () => {
      if (store.kind !== 'sqlite') return;
      const copy = `${store.dir}/backup-${run}.db`;
      await data(['backup', copy], { DATABASE_URL: store.databaseUrl });
      expect(await exported(`sqlite:${copy}`), 'backup').toBe(expected);
    })(),
    (async () => {
      const cliExport = await store.cli(['export']);
      expect([cliExport.code, cliExport.stdout], 'plant-store export').toEqual([0, expected]);
      // plant-store import into the second server's empty store, which must then hold the same bytes.
      const cliFile = `${store.dir}/cli-run-${run}.jsonl`;
      await writeFile(cliFile, cliExport.stdout);
      try {
        const imported = await store.target.cli(['import', cliFile, '--json']);
        const summary = { created: plants.length, replayed: 0, alreadyPresent: 0, failed: 0, interrupted: false };
        expect([imported.code, imported.stdout, imported.stderr], 'plant-store import').toEqual([
          0,
          cliJsonOf(summary),
          '',
        ]);
        const again = await store.target.call('GET', '/plants?limit=1000');
        expect([again.status, again.body], 'plant-store export → import → GET /plants').toEqual([
          200,
          pageBytesOf(plants),
        ]);
      } finally {
        for (const plant of plants) await store.target.call('DELETE', `/plants/${plant.id}`);
      }
    })(),
    (async () => {
      const first = plants[0] as Plant;
      const got = await store.cli(['get', String(first.id), '--json']);
      expect(got.stdout, 'plant-store get').toBe(cliJsonOf(JSON.parse(bytesOf(first))));
      const listed = await store.cli(['list', '--all', '--json', '--limit', '1000']);
      expect(listed.stdout, 'plant-store list').toBe(cliJsonOf(JSON.parse(pageBytesOf(plants))));
    })(),
  ]);
};

interface Tally {
  runs: number;
  plants: number;
  found: number;
}

/** One batch through every path; the plants are deleted at the end, whatever happened. */
const travel = async (store: TravelStore, requests: readonly CreatePlantRequest[], tally: Tally, watcher: Watcher) => {
  const run = ++tally.runs;
  const client = createPlantStoreClient({ baseUrl: store.server.url, token: store.token });
  store.deliveries.clear();
  const since = Number((await store.call('GET', '/plants?limit=1')).headers.get('x-change-seq'));
  const mirror = client.plants.mirror();
  await mirror.ready;
  // Follows the feed from `since` while the batch is written: the events from the server's hub
  // as the changes commit (as the suite's `plant-store watch` reads them too).
  const live = await store.stream(`/plants/changes?since=${since}`);
  const created: Plant[] = [];
  try {
    const events: string[] = [];
    // Chosen ids first: a server-assigned id never collides with a stored one, but a chosen id
    // could name one the server gave earlier in the batch (a 409, rightly).
    const ordered = [...requests].sort((a, b) => Number(b.id !== undefined) - Number(a.id !== undefined));
    for (const [i, request] of ordered.entries()) {
      const key = `travel-${SEED}-${++keys}`;
      const plant = await create(store, client, VIA[i % 3] as Via, request, key);
      created.push(plant);
      if (request.id !== undefined) expect(plant.id).toBe(request.id);
      events.push(`plant.created ${bytesOf(plant)}`);
      const replay = await store.call('POST', '/plants', JSON.stringify(request), {
        ...JSON_BODY,
        'idempotency-key': key,
      });
      expect([replay.status, replay.headers.get('idempotent-replayed'), replay.headers.get('location')]).toEqual([
        201,
        'true',
        `/plants/${plant.id}`,
      ]);
      expect(replay.body, 'the replayed 201').toBe(createdBytesOf(plant));
    }
    tally.found += await readBack(store, client, created);

    const patched: Plant[] = [];
    for (const [i, plant] of created.entries()) {
      const after = await patch(
        store,
        client,
        VIA[(i + 1) % 3] as Via,
        plant,
        created[(i + 1) % created.length] as Plant,
      );
      patched.push(after);
      if (bytesOf(after) !== bytesOf(plant)) events.push(`plant.updated ${bytesOf(after)}`);
    }
    tally.found += await readBack(store, client, patched);

    // PUT (issue 56): each plant replaced whole by the one two ahead, by each path in turn.
    const before = [...patched];
    for (const [i, plant] of before.entries()) {
      const to = before[(i + 2) % before.length] as Plant;
      const after = await replace(store, client, VIA[(i + 2) % 3] as Via, plant, to);
      patched[i] = after;
      if (bytesOf(after) !== bytesOf(plant)) events.push(`plant.updated ${bytesOf(after)}`);
    }
    tally.found += await readBack(store, client, patched);

    const feed = await store.call('GET', `/plants/changes?since=${since}&limit=1000`, undefined, {
      accept: 'application/json',
    });
    expect(feed.status, feed.body).toBe(200);
    const changes = parseExact(feed.body) as { seq: number; type: string; data: unknown }[];
    expect(
      changes.map((c) => `${c.type} ${JSON.stringify(c.data)}`),
      'the change feed',
    ).toEqual(events);

    // The feed of one tag (a tag of the batch, sent form-urlencoded) carries the same bytes.
    const tag = created.find((p) => p.tag !== undefined)?.tag;
    if (tag !== undefined) {
      const query = new URLSearchParams({ since: String(since), tag, limit: '1000' }).toString();
      const ofTag = await store.call('GET', `/plants/changes?${query}`, undefined, { accept: 'application/json' });
      expect(ofTag.status, ofTag.body).toBe(200);
      const shown = (parseExact(ofTag.body) as typeof changes).filter((c) => c.type !== 'plant.left');
      const whole = new Map(changes.map((c) => [c.seq, JSON.stringify(c)]));
      expect(shown.length, 'the feed of one tag').toBeGreaterThan(0);
      for (const c of shown) expect(JSON.stringify(c), 'the feed of one tag').toBe(whole.get(c.seq));
    }
    // The same changes as an event stream, byte for byte what the JSON form wrote for each: the
    // one open during the writes, and one opened now (read from the log before it is live).
    const streamed = eventsOf(changes);
    const count = changes.length + 1; // with `retry: 2000`
    await until('the live event stream', () => eventsIn(live.text()).length >= count, 10_000);
    await live.stop();
    expect(eventsIn(live.text()).join(''), 'the event stream during the writes').toBe(streamed);
    const after = await store.stream(`/plants/changes?since=${since}`);
    try {
      await until('the event stream opened after', () => eventsIn(after.text()).length >= count, 10_000);
    } finally {
      await after.stop();
    }
    expect(eventsIn(after.text()).join(''), 'the event stream opened after the writes').toBe(streamed);
    // plant-store watch --json, running since the suite began: each change's JSON as the server
    // sent it, one per line; this batch's are the lines numbered above `since`.
    const ofBatch = () => watcher.lines().filter((line) => (JSON.parse(line) as { seq: number }).seq > since);
    await until('plant-store watch', () => ofBatch().length >= changes.length, 10_000, {
      detail: () => ofBatch().join('\n'),
    });
    expect(ofBatch(), 'plant-store watch --json').toEqual(changes.map((c) => JSON.stringify(c)));

    // Deletes of the batch before may still arrive: only creates and updates are this batch's.
    const delivered = () =>
      [...store.deliveries.values()]
        .map((d) => verifiedPayload(d, store.secret))
        .filter((p) => p.type !== 'plant.deleted')
        .map((p) => `${p.type} ${JSON.stringify(p.data)}`);
    const missing = () => JSON.stringify(events.filter((e) => !delivered().includes(e)));
    await until('every webhook delivery', () => delivered().length >= events.length, 15_000, { detail: missing });
    expect(delivered().sort(), 'webhooks').toEqual([...events].sort());

    const last = changes.at(-1)?.seq ?? since;
    await until('the mirror', () => mirror.position >= last, 10_000);
    expect([...mirror.plants.values()].map((p) => JSON.stringify(p)).sort(), 'plants.mirror()').toEqual(
      patched.map(bytesOf).sort(),
    );

    await dataPaths(store, patched, run);
    tally.plants += created.length;
  } finally {
    // The stream is checked (and stopped) above; after a failure it only has to end here.
    await Promise.all([mirror.close(), live.stop().catch(() => undefined)]);
    for (const plant of created) await store.call('DELETE', `/plants/${plant.id}`);
  }
};

const travelSuite = (kind: StoreKind) => {
  let store: TravelStore;
  beforeAll(async () => {
    store = await openTravelStore(kind);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('gives back every plant byte for byte on every path', async () => {
    const tally: Tally = { runs: 0, plants: 0, found: 0 };
    // One `plant-store watch` for the whole suite, from the empty store's first change on.
    const watcher = store.watch(['--since', '0', '--json']);
    let watched: { code: number | null; stderr: string };
    try {
      await fc.assert(
        fc.asyncProperty(batchArb, (batch) => travel(store, batch, tally, watcher)),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    } finally {
      watched = await watcher.stop();
    }
    expect([watched.code, watched.stderr], 'plant-store watch ends at Ctrl-C').toEqual([130, '']);
    console.log(
      `plant-travels (${kind}): ${tally.runs} batches, ${tally.plants} plants, ${tally.found} searches found their plant, seed ${SEED}`,
    );
  }, 600_000);
};

describe('a plant travels, on SQLite', () => travelSuite('sqlite'));
describePostgres('a plant travels, on PostgreSQL', () => travelSuite('postgresql'));
