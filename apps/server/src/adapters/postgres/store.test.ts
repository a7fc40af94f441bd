import { MAX_PLANT_ID } from '@plant-store/domain';
import { afterAll, expect, it } from 'vitest';
import {
  describePostgres,
  freshPostgresUrl,
  openAdminSql,
  pgTestUrl,
  type FreshPostgres,
  until,
} from '@plant-store/testkit';
import {
  id,
  name,
  page,
  recordingLogger,
  rightOf,
  tagOf,
  useFreshSchema,
} from '../../../test/support/postgres-store.js';
import * as E from 'fp-ts/lib/Either.js';
import { idempotencyKey, plainPlant, plantTag } from '../../../test/contract/values.js';
import type { Store } from '../../ports/store.js';
import { plantStoreContract } from '../../../test/contract/plant-store-contract.js';
import { webhookStoreContract } from '../../../test/contract/webhook-store-contract.js';
import postgres from 'postgres';
import { canonicalRequest } from '../../idempotency/canonical-request.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './migrations.js';
import { openPostgresStore } from './open.js';

// The contract, migrations and the id and type traps. Pool exhaustion, timeouts and lost
// connections: outage.test.ts.

describePostgres('PostgreSQL store', () => {
  let fresh: Promise<FreshPostgres> | undefined;
  const freshOnce = (): Promise<FreshPostgres> => (fresh ??= freshPostgresUrl());
  afterAll(async () => {
    await (await fresh)?.drop();
  });

  plantStoreContract('PostgreSQL', async () => openPostgresStore({ url: (await freshOnce()).url, poolSize: 4 }));
});

describePostgres('PostgreSQL webhook store', () => {
  let fresh: Promise<FreshPostgres> | undefined;
  afterAll(async () => {
    await (await fresh)?.drop();
  });
  webhookStoreContract('PostgreSQL', async () =>
    openPostgresStore({ url: (await (fresh ??= freshPostgresUrl())).url, poolSize: 4 }),
  );
});

describePostgres('openPostgresStore migrations', () => {
  const fresh = useFreshSchema();

  it('migrates once when four instances open an empty schema at the same time', async () => {
    const loggers = Array.from({ length: 4 }, recordingLogger);
    const stores = await Promise.all(loggers.map((logger) => fresh.open({ logger })));
    const { schema } = await fresh.db();
    const admin = openAdminSql();
    try {
      const rows =
        await admin`SELECT version, count(*)::int4 AS n FROM ${admin(schema)}.schema_migrations GROUP BY version ORDER BY version`;
      expect(rows.map((r) => [r['version'], r['n']])).toEqual(POSTGRES_MIGRATIONS.map((m) => [m.version, 1]));
    } finally {
      await admin.end();
    }
    const applied = loggers.flatMap((l) => l.lines.filter((line) => line.msg === 'applied PostgreSQL migrations'));
    expect(applied).toHaveLength(1);
    // All four work over the same tables.
    const [a, b, c, d] = stores as [Store, Store, Store, Store];
    const plant = rightOf(
      await a.plants
        .create({ name: name('shared') })()
        .then(plainPlant),
    );
    expect(rightOf(await b.plants.get(plant.id)().then(plainPlant))).toEqual(plant);
    rightOf(await c.plants.delete(plant.id)());
    expect(tagOf(await d.plants.get(plant.id)().then(plainPlant))).toBe('PlantNotFound');
  });

  // A schema as the release before plant versions left it (migrations 1–4), with plants, a saved
  // idempotency key and a tag, upgraded in place by opening it with this release.
  it('upgrades a store of the previous release in place: nothing lost, versions and the tag filter work', async () => {
    const { url, schema } = await fresh.db();
    const previous = postgres(url, { onnotice: () => undefined });
    const request = canonicalRequest({ name: name('Moss'), tag: 'green' as never });
    try {
      expect(
        await migratePostgres(
          previous,
          undefined,
          POSTGRES_MIGRATIONS.filter((m) => m.version <= 4),
        ),
      ).toEqual([1, 2, 3, 4]);
      await previous`SELECT * FROM plant_store_write(${previous.json([
        { i: 0, op: 'create', id: 1, name: 'Fern', tag: 'green' },
        { i: 1, op: 'create', id: 2, name: 'Cactus', tag: null },
        { i: 2, op: 'create', id: 3, name: 'Moss', tag: 'green', owner: 'tok_old', key: 'old-key', request },
      ])}, 3, 0, 3600)`;
    } finally {
      await previous.end();
    }
    const store = await fresh.open();
    expect(rightOf(await store.plants.list(page(10, 0))()).plants).toEqual([
      { id: 1, name: 'Fern', tag: 'green' },
      { id: 2, name: 'Cactus' },
      { id: 3, name: 'Moss', tag: 'green' },
    ]);
    // Plants of the release before are not in the change log: it starts at the upgrade.
    expect(rightOf(await store.plants.get(id(1))())).toEqual({
      plant: { id: 1, name: 'Fern', tag: 'green' },
      version: 0,
      changeSeq: 0,
    });
    expect(
      rightOf(await store.plants.list({ ...page(10, 0), tag: 'green' as never })()).plants.map((p) => p.id),
    ).toEqual([1, 3]);
    const replay = rightOf(
      await store.plants.createOnce(
        { name: name('Moss'), tag: 'green' as never },
        { owner: 'tok_old', key: 'old-key' as never, request },
      )(),
    );
    expect(replay).toEqual({
      result: { _tag: 'Right', right: { plant: { id: 3, name: 'Moss', tag: 'green' }, version: 0 } },
      replayed: true,
    });
    const changed = rightOf(await store.plants.update(id(1), { tag: 'blue' as never }, { ifMatch: [0] })());
    expect(changed.version).toBeGreaterThan(0);
    // Above the ids stored before (a replayed server-assigned create may have used one up).
    const next = rightOf(await store.plants.create({ name: name('New') })());
    expect(next.plant.id).toBeGreaterThan(3);
    expect(next.version).toBeGreaterThan(changed.version);
    const admin = openAdminSql();
    try {
      const [index] =
        await admin`SELECT indexdef FROM pg_indexes WHERE schemaname = ${schema} AND indexname = 'plants_tag'`;
      expect(String(index?.['indexdef'])).toContain('(tag, id) WHERE (tag IS NOT NULL)');
    } finally {
      await admin.end();
    }
  });

  // A schema as the release before the left tags left it (migrations up to 9): a plant written
  // before the change log began, and changes of plants logged without the tag they left.
  it('gives the changes logged before migration 11 the tag they took their plant from, where the log knows it', async () => {
    const { url } = await fresh.db();
    const previous = postgres(url, { onnotice: () => undefined, max: 1 });
    try {
      await migratePostgres(
        previous,
        undefined,
        POSTGRES_MIGRATIONS.filter((m) => m.version <= 7),
      );
      await previous`INSERT INTO plants (id, name, tag, version, name_folded) VALUES (1, 'old', 'a', 1, 'old')`;
      await migratePostgres(
        previous,
        undefined,
        POSTGRES_MIGRATIONS.filter((m) => m.version <= 9),
      );
      await previous`UPDATE plants SET tag = 'b' WHERE id = 1`; // 1: its tag before is not in the log
      await previous`INSERT INTO plants (id, name, tag, version, name_folded) VALUES (2, 'x', 'a', 2, 'x')`; // 2
      await previous`UPDATE plants SET name = 'y' WHERE id = 2`; // 3: a → a
      await previous`UPDATE plants SET tag = 'b' WHERE id = 2`; // 4: leaves a
      await previous`UPDATE plants SET tag = NULL WHERE id = 2`; // 5: leaves b
      await previous`UPDATE plants SET tag = 'a' WHERE id = 2`; // 6: leaves nothing
      await previous`DELETE FROM plants WHERE id = 2`; // 7: a plant of a
      await previous`INSERT INTO plants (id, name, version, name_folded) VALUES (3, 'z', 3, 'z')`; // 8
      await previous`DELETE FROM plants WHERE id = 3`; // 9: had no tag
      const store = await fresh.open();
      const logged = await previous`SELECT seq::int4 AS seq, left_tag FROM plant_changes ORDER BY seq`;
      expect(logged.map((r) => [r['seq'], r['left_tag']])).toEqual([
        [1, null],
        [2, null],
        [3, null],
        [4, 'a'],
        [5, 'b'],
        [6, null],
        [7, 'a'],
        [8, null],
        [9, null],
      ]);
      const [state] = await previous`SELECT untagged_through::int4 AS n FROM plant_change_state`;
      expect(state?.['n']).toBe(1);
      // Below change 1 a reader of one tag cannot know what it missed; from 1 on, it reads them.
      const a = plantTag('a');
      expect(rightOf(await store.changes.aboveTagged(0, a, 10, 0)())).toEqual({ kind: 'expired' });
      const read = rightOf(await store.changes.aboveTagged(1, a, 10, 0)());
      expect(read.kind === 'changes' ? read.changes.map((c) => c.seq) : read).toEqual([2, 3, 4, 6, 7]);
      // The trigger function of this release logs every writer's changes (the release before's too).
      await previous`UPDATE plants SET tag = 'c' WHERE id = 1`;
      const [last] = await previous`SELECT left_tag FROM plant_changes WHERE seq = 10`;
      expect(last?.['left_tag']).toBe('b');
    } finally {
      await previous.end();
    }
  });

  it('creates the schema named by the schema option, also when several instances race', async () => {
    const { schema: base } = await fresh.db();
    const schema = `${base}_opt`;
    const stores = await Promise.all(
      Array.from({ length: 3 }, async () =>
        fresh.track(await openPostgresStore({ url: pgTestUrl, schema, poolSize: 1 })),
      ),
    );
    const admin = openAdminSql();
    try {
      const plant = rightOf(await stores[0]!.plants.create({ name: name('in its own schema') })()).plant;
      const [row] = await admin`SELECT name FROM ${admin(schema)}.plants WHERE id = ${plant.id}`;
      expect(row?.['name']).toBe('in its own schema');
      await Promise.all(stores.splice(0).map((s) => s.close()));
    } finally {
      await admin`DROP SCHEMA IF EXISTS ${admin(schema)} CASCADE`;
      await admin.end();
    }
  });

  it('rejects options it cannot use with a TypeError naming them', async () => {
    await expect(openPostgresStore({ url: 'mysql://x' })).rejects.toThrow(TypeError);
    await expect(openPostgresStore({ url: pgTestUrl, poolSize: 0 })).rejects.toThrow(/poolSize/);
    await expect(openPostgresStore({ url: pgTestUrl, schema: 'x; drop table plants' })).rejects.toThrow(/schema/);
  });
});

describePostgres('PostgreSQL store traps', () => {
  const fresh = useFreshSchema();

  it('returns ids as JSON numbers, up to 2^53-1, although int8 arrives as a string', async () => {
    const store = await fresh.open();
    const max = id(MAX_PLANT_ID);
    rightOf(
      await store.plants
        .create({ id: max, name: name('the last id') })()
        .then(plainPlant),
    );
    const got = rightOf(await store.plants.get(max)().then(plainPlant));
    expect(got).toEqual({ id: MAX_PLANT_ID, name: 'the last id' });
    expect(typeof got.id).toBe('number');
    const listed = rightOf(await store.plants.list(page(10, MAX_PLANT_ID - 1))()).plants;
    expect(listed).toEqual([{ id: MAX_PLANT_ID, name: 'the last id' }]);
    expect(JSON.stringify(listed)).toBe(`[{"id":${MAX_PLANT_ID},"name":"the last id"}]`);
  });

  it('assigns the smallest free ids above a moving cursor once a client took 2^53-1', async () => {
    const store = await fresh.open();
    for (const n of [MAX_PLANT_ID, 1, 2, 4])
      rightOf(
        await store.plants
          .create({ id: id(n), name: name(`chosen ${n}`) })()
          .then(plainPlant),
      );
    const assigned: number[] = [];
    for (let i = 0; i < 3; i += 1)
      assigned.push(
        rightOf(
          await store.plants
            .create({ name: name(`assigned ${i}`) })()
            .then(plainPlant),
        ).id,
      );
    expect(assigned).toEqual([3, 5, 6]);
    // The cursor does not go back to a freed id while there are free ids above it.
    rightOf(await store.plants.delete(id(1))());
    expect(
      rightOf(
        await store.plants
          .create({ name: name('after delete') })()
          .then(plainPlant),
      ).id,
    ).toBe(7);
    // Client-chosen ids still work, also in the same batch as assigned ones.
    const [chosen, more] = await Promise.all([
      store.plants
        .create({ id: id(100), name: name('chosen 100') })()
        .then(plainPlant),
      store.plants
        .create({ name: name('more') })()
        .then(plainPlant),
    ]);
    expect(rightOf(chosen).id).toBe(100);
    expect(rightOf(more).id).toBe(8);
  });

  it('gives concurrent creates through two instances distinct free ids once 2^53-1 is taken', async () => {
    const [one, two] = [await fresh.open(), await fresh.open()];
    rightOf(
      await one.plants
        .create({ id: id(MAX_PLANT_ID), name: name('last') })()
        .then(plainPlant),
    );
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? one : two).plants.create({ name: name(`racer ${i}`) })()),
    );
    const ids = results.map((r) => rightOf(r).plant.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [i, n] of ids.entries())
      expect(rightOf(await two.plants.get(id(n))().then(plainPlant)).name).toBe(`racer ${i}`);
  });

  it('keeps assigned ids clear of explicit ids made concurrently through two instances', async () => {
    const [one, two] = [await fresh.open(), await fresh.open()];
    const first = rightOf(
      await one.plants
        .create({ name: name('start') })()
        .then(plainPlant),
    ).id;
    // Explicit ids just above the mark, where a sequence would hand them out again.
    const explicit = Array.from({ length: 40 }, (_, i) => first + 1 + i * 3);
    const writes = [
      ...explicit.map((n, i) => (i % 2 === 0 ? one : two).plants.create({ id: id(n), name: name(`explicit ${n}`) })()),
      ...Array.from({ length: 80 }, (_, i) =>
        (i % 2 === 0 ? two : one).plants.create({ name: name(`assigned ${i}`) })(),
      ),
    ];
    const results = await Promise.all(writes);
    // An explicit id may lose to an assigned one that got there first (IdTaken); an assigned
    // create never fails, and no two plants share an id.
    const explicitResults = results.slice(0, explicit.length);
    const assignedResults = results.slice(explicit.length);
    for (const r of explicitResults) expect(['Right', 'IdTaken']).toContain(tagOf(r));
    const ids = [
      ...explicitResults.flatMap((r) => (E.isRight(r) ? [r.right.plant.id] : [])),
      ...assignedResults.map((r) => rightOf(r).plant.id),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    for (const [i, r] of explicitResults.entries()) {
      if (E.isRight(r))
        expect(rightOf(await one.plants.get(id(explicit[i]!))().then(plainPlant)).name).toBe(`explicit ${explicit[i]}`);
    }
    for (const [i, r] of assignedResults.entries())
      expect(rightOf(await two.plants.get(rightOf(r).plant.id)().then(plainPlant)).name).toBe(`assigned ${i}`);
    // A later assigned id is above every id ever stored.
    const later = rightOf(
      await two.plants
        .create({ name: name('later') })()
        .then(plainPlant),
    ).id;
    expect(later).toBeGreaterThan(Math.max(...ids, ...explicit));
  });

  it('keeps exact outcomes when writes span many batches and a small pool is saturated', async () => {
    const store = await fresh.open({ poolSize: 2, maxBatchSize: 7 });
    const contested = id(5_000_000);
    const writes = Array.from({ length: 600 }, (_, i) => {
      if (i % 10 === 0)
        return store.plants
          .create({ id: contested, name: name(`racer ${i}`) })()
          .then(plainPlant);
      if (i % 10 === 5) return store.plants.delete(contested)();
      return store.plants
        .create({ name: name(`bulk ${i}`) })()
        .then(plainPlant);
    });
    const reads = Array.from({ length: 600 }, () => store.plants.get(contested)().then(plainPlant));
    const [written, read] = await Promise.all([Promise.all(writes), Promise.all(reads)]);
    // Writes apply in order: each create of the contested id follows a delete of it (or comes
    // first), so every one succeeds; each delete follows a create, so every one succeeds too.
    expect(written.map(tagOf)).toEqual(Array(600).fill('Right'));
    const assigned = written.flatMap(
      (r: E.Either<unknown, { readonly id: number } | { readonly changeSeq: number }>, i) =>
        i % 5 === 0 || E.isLeft(r) || !('id' in r.right) ? [] : [r.right.id],
    );
    expect(new Set(assigned).size).toBe(480);
    for (const r of read) expect(['Right', 'PlantNotFound']).toContain(tagOf(r));
  });

  it('writes the same plants and events for creates without a key (lone or batched) as the function does for keyed ones', async () => {
    const store = await fresh.open();
    const endpoints = ['we_one', 'we_two'];
    for (const endpointId of endpoints) {
      rightOf(
        await store.webhooks.addEndpoint({
          id: endpointId,
          url: 'https://receiver.example/hook',
          events: null,
          secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
        })(),
      );
    }
    const plant = (n: number) => ({ id: id(n), name: name('Fern "Ada" \\ é'), tag: plantTag('ü') });
    // createsStatement, lone; createsStatement, a batch (with an assigned id); plant_store_write_v2.
    const lone = rightOf(await store.plants.create(plant(10))());
    const batch = (
      await Promise.all([store.plants.create(plant(11))(), store.plants.create({ name: name('untagged') })()])
    ).map(rightOf);
    const claim = { owner: 'tok_parity', key: idempotencyKey('parity'), request: canonicalRequest(plant(20)) };
    const keyed = rightOf(await store.plants.createOnce(plant(20), claim)()).result;
    const versions = [lone, ...batch, rightOf(keyed)].map((v) => v.version);
    expect(new Set(versions).size).toBe(4);
    expect(batch[1]?.plant.id).toBe(12);
    const claimed = rightOf(await store.webhooks.claimDue('parity', 100, 60_000)());
    const byPlant = new Map<number, (typeof claimed)[number][]>();
    for (const delivery of claimed) {
      const plantId = (JSON.parse(delivery.body) as { data: { id: number } }).data.id;
      byPlant.set(plantId, [...(byPlant.get(plantId) ?? []), delivery]);
    }
    expect([...byPlant.keys()].sort((a, b) => a - b)).toEqual([10, 11, 12, 20]);
    const shapes = new Set<string>();
    for (const [plantId, deliveries] of byPlant) {
      // One event per plant: one id and one body for both endpoints.
      expect(deliveries.map((d) => d.endpointId).sort()).toEqual(endpoints);
      expect(new Set(deliveries.map((d) => d.eventId)).size).toBe(1);
      expect(new Set(deliveries.map((d) => d.body)).size).toBe(1);
      const body = deliveries[0]?.body ?? '';
      expect(body).toMatch(/^\{"type":"plant\.created","timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","data":/);
      if (plantId !== 12) shapes.add(body.replace(/"timestamp":"[^"]*"/, '').replace(`"id":${plantId},`, ''));
    }
    // Byte for byte the same but for the id and the time, whichever statement wrote it.
    expect(shapes.size).toBe(1);
    expect(JSON.parse(byPlant.get(12)?.[0]?.body ?? '').data).toEqual({ id: 12, name: 'untagged' });
  });

  it('stores token scopes as a jsonb array', async () => {
    const store = await fresh.open();
    rightOf(
      await store.tokens.insert({
        id: 'tok_json',
        name: 'json',
        scopes: ['plants:read', 'plants:write'],
        hash: new Uint8Array(32).fill(7),
        expiresAt: null,
      })(),
    );
    const { schema } = await fresh.db();
    const admin = openAdminSql();
    try {
      const [row] =
        await admin`SELECT jsonb_typeof(scopes) AS kind, scopes::text AS text FROM ${admin(schema)}.tokens WHERE id = 'tok_json'`;
      expect(row).toEqual({ kind: 'array', text: '["plants:read", "plants:write"]' });
    } finally {
      await admin.end();
    }
  });
});

describePostgres('PostgreSQL token lookups (tokenCacheMs)', () => {
  const fresh = useFreshSchema();
  const hash = new Uint8Array(32).fill(9);
  const insertToken = async (store: Store, n = 0) =>
    rightOf(
      await store.tokens.insert({
        id: n === 0 ? 'tok_cached' : `tok_cached_${n}`,
        name: n === 0 ? 'cached' : `cached-${n}`,
        scopes: ['plants:read'],
        hash: n === 0 ? hash : new Uint8Array(32).fill(9 + n),
        expiresAt: null,
      })(),
    );
  const revokedAt = async (store: Store, n = 0) => {
    const found = rightOf(await store.tokens.findByHash(n === 0 ? hash : new Uint8Array(32).fill(9 + n))());
    return found === undefined ? 'unknown token' : found.revokedAt;
  };
  /** The store's time slot of `ms` now: it runs on the monotonic clock of this process. */
  const slotOf = (ms: number) => Math.floor(performance.now() / ms);

  it('reuses a found token within its slot, though another instance revoked it', async () => {
    const a = await fresh.open({ tokenCacheMs: 60_000 });
    const b = await fresh.open({ tokenCacheMs: 0 });
    // The reads below must fall in one slot to show the cache; a try that crossed a slot's end
    // shows nothing either way and is made again with another token.
    for (let n = 1; n <= 3; n++) {
      await insertToken(b, n);
      const first = slotOf(60_000);
      expect(await revokedAt(a, n)).toBeNull(); // read and cached by a
      expect(rightOf(await b.tokens.revoke(`cached-${n}`, new Date())())).toBe(true);
      expect(await revokedAt(b, n)).toBeInstanceOf(Date); // b does not cache
      const cachedRead = revokedAt(a, n);
      const last = slotOf(60_000);
      if (first !== last) continue;
      expect(await cachedRead).toBeNull(); // a answers from its cache: the slot has not ended
      return;
    }
    expect.fail('three tries each crossed the end of a 60 s slot');
  });

  it("shows another instance's revocation once the slot ends", async () => {
    const a = await fresh.open({ tokenCacheMs: 200 });
    const b = await fresh.open({ tokenCacheMs: 0 });
    await insertToken(b);
    expect(await revokedAt(a)).toBeNull(); // read and cached by a, in this slot at the latest
    const cachedIn = slotOf(200);
    expect(rightOf(await b.tokens.revoke('cached', new Date())())).toBe(true);
    await until('the 200 ms slot to end', () => slotOf(200) > cachedIn, 1000, { everyMs: 20 });
    expect(await revokedAt(a)).toBeInstanceOf(Date);
  });

  it("takes this instance's own revocation at once, and caches nothing with tokenCacheMs 0", async () => {
    const a = await fresh.open({ tokenCacheMs: 60_000 });
    const b = await fresh.open({ tokenCacheMs: 0 });
    await insertToken(a);
    expect(await revokedAt(a)).toBeNull();
    expect(await revokedAt(b)).toBeNull();
    expect(rightOf(await a.tokens.revoke('cached', new Date())())).toBe(true);
    expect(await revokedAt(a)).toBeInstanceOf(Date);
    expect(await revokedAt(b)).toBeInstanceOf(Date);
  });

  it('rejects a cache time it cannot use', async () => {
    const { url } = await fresh.db();
    await expect(openPostgresStore({ url, tokenCacheMs: -1 })).rejects.toThrow(/tokenCacheMs/);
    await expect(openPostgresStore({ url, tokenCacheMs: 60_001 })).rejects.toThrow(/tokenCacheMs/);
  });
});

describePostgres('PostgreSQL change log: numbers in commit order', () => {
  const fresh = useFreshSchema();

  // A number from a sequence is drawn at the write and committed later: a writer that draws 8
  // after another drew 7 can commit first, and a reader that then sees 8 skips 7 for good. Here
  // the second writer's change waits for the first's commit, and nobody sees it before.
  it('holds a later change back until an earlier open transaction has committed', async () => {
    const store = await fresh.open();
    const { url, schema } = await fresh.db();
    const raw = postgres(url, { max: 1, onnotice: () => {} });
    const admin = openAdminSql();
    try {
      const start = rightOf(await store.changes.newest()());
      let releaseFirst: () => void = () => {};
      const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
      let firstWrote: () => void = () => {};
      const firstInserted = new Promise<void>((resolve) => (firstWrote = resolve));
      const first = raw.begin(async (tx) => {
        await tx`INSERT INTO plants (id, name, tag, name_folded) VALUES (101, 'first', NULL, 'first')`;
        firstWrote();
        await firstHeld;
      });
      await firstInserted;
      let secondDone = false;
      const second = store.plants
        .create({ id: id(102), name: name('second') })()
        .finally(() => (secondDone = true));
      // Seen waiting for a lock (the first's, held until it commits), so the checks below cannot
      // pass merely because the second write had not reached the database yet.
      await until('the second write to wait for a lock', async () => {
        const [row] =
          await admin`SELECT count(*)::int4 AS n FROM pg_stat_activity WHERE application_name = ${schema} AND wait_event_type = 'Lock'`;
        return row?.['n'] === 1;
      });
      // The second write waits; a reader sees neither change.
      expect(secondDone).toBe(false);
      expect(rightOf(await store.changes.above(start, 10, 0)())).toEqual({
        kind: 'changes',
        changes: [],
        newest: start,
      });
      releaseFirst();
      await first;
      rightOf(await second);
      const read = rightOf(await store.changes.above(start, 10, 0)());
      expect(read.kind === 'changes' && read.changes.map((c) => [c.seq, c.id])).toEqual([
        [start + 1, 101],
        [start + 2, 102],
      ]);
    } finally {
      await raw.end();
      await admin.end();
    }
  });
});
