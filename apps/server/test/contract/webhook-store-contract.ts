import { randomInt } from 'node:crypto';
import { MAX_PLANT_ID } from '@plant-store/domain';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { canonicalRequest } from '../../src/idempotency/canonical-request.js';
import type { Store } from '../../src/ports/store.js';
import type { AttemptRecord, ClaimedDelivery, EventType } from '../../src/ports/webhook-store.js';
import { idempotencyKey, plainPlant, plantId, plantName, plantTag, rightOf } from './values.js';

/**
 * The contract of the outbox and the WebhookStore port, run on both adapters: the plant writes
 * fill the outbox in their own transaction; the dispatcher's claims, leases and records; the
 * operator's endpoints. `open` returns a store over the same database each call, and that
 * database is used by this suite alone (endpoints receive every create of it).
 */

const SECRET_A = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const SECRET_B = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
const LONG = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function webhookStoreContract(name: string, open: () => Promise<Store>): void {
  describe(`WebhookStore contract: ${name}`, () => {
    let store: Store;
    let n = 0;
    const endpointId = () => `we_test${Date.now().toString(36)}${(n += 1)}`;
    const freshId = () => plantId(randomInt(1, 2 ** 40));
    const add = async (events: readonly EventType[] | null = null, secret = SECRET_A) =>
      rightOf(
        await store.webhooks.addEndpoint({ id: endpointId(), url: 'https://receiver.example/hook', events, secret })(),
      );
    /** Everything due now, held by `holder`. */
    const claimAll = async (holder = 'test', leaseMs = LONG): Promise<readonly ClaimedDelivery[]> =>
      rightOf(await store.webhooks.claimDue(holder, 1000, leaseMs)());
    const record = (
      delivery: ClaimedDelivery,
      outcome: AttemptRecord['outcome'],
      extra: Partial<AttemptRecord> = {},
    ): AttemptRecord => ({
      deliveryId: delivery.id,
      outcome,
      startedAt: new Date(),
      durationMs: 3,
      ...extra,
    });

    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });
    beforeEach(async () => {
      // Each test starts with no endpoints, so nothing earlier is pending.
      for (const endpoint of rightOf(await store.webhooks.listEndpoints()()))
        rightOf(await store.webhooks.removeEndpoint(endpoint.id)());
      expect(rightOf(await store.webhooks.backlog()()).pending).toBe(0);
    });

    it('writes nothing to the outbox while no endpoint is registered', async () => {
      const plant = rightOf(
        await store.plants
          .create({ name: plantName('quiet') })()
          .then(plainPlant),
      );
      rightOf(await store.plants.delete(plant.id)());
      expect(rightOf(await store.webhooks.backlog()())).toEqual({ pending: 0, oldestAgeSeconds: 0 });
      expect(await claimAll()).toEqual([]);
    });

    it('commits plant.created and plant.deleted with the change, serialised once, one delivery per endpoint', async () => {
      const first = await add();
      const second = await add();
      const id = freshId();
      const before = Date.now();
      const plant = rightOf(
        await store.plants
          .create({ id, name: plantName('Fern "Ada" \\ é'), tag: plantTag('ü') })()
          .then(plainPlant),
      );
      rightOf(await store.plants.delete(plant.id)());
      const claimed = await claimAll();
      expect(claimed).toHaveLength(4);
      const created = claimed.filter((d) => d.body.includes('plant.created'));
      const deleted = claimed.filter((d) => d.body.includes('plant.deleted'));
      expect(created.map((d) => d.endpointId).sort()).toEqual([first.id, second.id].sort());
      // One event: one id and one body for both endpoints.
      expect(new Set(created.map((d) => d.eventId)).size).toBe(1);
      expect(created[0]?.body).toBe(created[1]?.body);
      expect(created[0]?.eventId).toMatch(/^msg_[A-Za-z0-9]{1,64}$/);
      expect(deleted[0]?.eventId).not.toBe(created[0]?.eventId);
      const body = JSON.parse(created[0]?.body ?? '') as { type: string; timestamp: string; data: unknown };
      expect(created[0]?.body).toBe(
        `{"type":"plant.created","timestamp":"${body.timestamp}","data":{"id":${id},"name":"Fern \\"Ada\\" \\\\ é","tag":"ü"}}`,
      );
      expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(body.timestamp)).toBeGreaterThanOrEqual(before - 2000);
      expect(Date.parse(body.timestamp)).toBeLessThanOrEqual(Date.now() + 2000);
      expect(JSON.parse(deleted[0]?.body ?? '')).toMatchObject({ type: 'plant.deleted', data: { id } });
      expect(deleted[0]?.body).toMatch(/^\{"type":"plant\.deleted","timestamp":"[^"]+","data":\{"id":\d+\}\}$/);
      expect(
        claimed.every(
          (d) =>
            d.url === 'https://receiver.example/hook' &&
            d.secrets.length === 1 &&
            d.secrets[0] === SECRET_A &&
            d.attempts === 0,
        ),
      ).toBe(true);
    });

    it('writes a plant without a tag without one, and only the types an endpoint subscribed to', async () => {
      const deletesOnly = await add(['plant.deleted']);
      const plant = rightOf(
        await store.plants
          .create({ name: plantName('untagged') })()
          .then(plainPlant),
      );
      expect(await claimAll()).toEqual([]);
      const all = await add();
      const other = rightOf(
        await store.plants
          .create({ name: plantName('untagged') })()
          .then(plainPlant),
      );
      rightOf(await store.plants.delete(plant.id)());
      const claimed = await claimAll();
      expect(claimed.map((d) => [d.endpointId, JSON.parse(d.body).type as string]).sort()).toEqual(
        [
          [all.id, 'plant.created'],
          [all.id, 'plant.deleted'],
          [deletesOnly.id, 'plant.deleted'],
        ].sort(),
      );
      expect(JSON.parse(claimed.find((d) => d.body.includes('created'))?.body ?? '').data).toEqual({
        id: other.id,
        name: 'untagged',
      });
    });

    it('emits nothing for writes that change nothing: 409, 404, a replayed key', async () => {
      await add();
      const id = freshId();
      rightOf(
        await store.plants
          .create({ id, name: plantName('once') })()
          .then(plainPlant),
      );
      expect((await claimAll()).length).toBe(1);
      expect(
        (
          await store.plants
            .create({ id, name: plantName('again') })()
            .then(plainPlant)
        )._tag,
      ).toBe('Left');
      expect((await store.plants.delete(freshId())())._tag).toBe('Left');
      const claim = {
        owner: 'tok_contract',
        key: idempotencyKey(`wh-${Date.now()}-${n}`),
        request: canonicalRequest({ name: plantName('keyed') }),
      };
      const firstKeyed = rightOf(await store.plants.createOnce({ name: plantName('keyed') }, claim)());
      expect(firstKeyed.replayed).toBe(false);
      const replay = rightOf(await store.plants.createOnce({ name: plantName('keyed') }, claim)());
      expect(replay.replayed).toBe(true);
      const claimed = await claimAll();
      expect(claimed).toHaveLength(1);
      expect(JSON.parse(claimed[0]?.body ?? '').data.name).toBe('keyed');
    });

    it('emits exactly the events of the successful writes of one concurrent batch', async () => {
      await add();
      const taken = freshId();
      rightOf(
        await store.plants
          .create({ id: taken, name: plantName('taken') })()
          .then(plainPlant),
      );
      await claimAll();
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          i % 3 === 0
            ? store.plants
                .create({ id: taken, name: plantName('dup') })()
                .then(plainPlant)
            : store.plants
                .create({ name: plantName(`batch ${i}`) })()
                .then(plainPlant),
        ),
      );
      const created = outcomes.filter((o) => E.isRight(o)).map((o) => rightOf(o).id);
      expect(created).toHaveLength(20);
      const claimed = await claimAll();
      expect(claimed.map((d) => JSON.parse(d.body).data.id as number).sort((a, b) => a - b)).toEqual(
        [...created].sort((a, b) => a - b),
      );
    });

    it('leases a claim: no one else gets it until the lease ends, then another holder takes it over', async () => {
      await add();
      rightOf(
        await store.plants
          .create({ name: plantName('leased') })()
          .then(plainPlant),
      );
      const [held] = await claimAll('a', 300);
      expect(held).toBeDefined();
      expect(await claimAll('b')).toEqual([]);
      await sleep(450); // past the 300 ms lease: its end is what this test is about
      const [taken] = await claimAll('b');
      expect(taken?.id).toBe(held?.id);
      // The first holder's late record is ignored; the new holder's counts.
      rightOf(
        await store.webhooks.recordAttempts('a', [record(held as ClaimedDelivery, 'delivered', { status: 200 })])(),
      );
      const [before] = rightOf(await store.webhooks.listDeliveries({ limit: 1 })());
      expect(before?.status).toBe('pending');
      rightOf(
        await store.webhooks.recordAttempts('b', [record(taken as ClaimedDelivery, 'delivered', { status: 204 })])(),
      );
      const [after] = rightOf(await store.webhooks.listDeliveries({ limit: 1 })());
      expect(after).toMatchObject({
        id: held?.id,
        status: 'delivered',
        attempts: 1,
        lastStatus: 204,
        nextAttemptAt: null,
      });
      expect(after?.endedAt).toBeInstanceOf(Date);
    });

    it('records a retry as pending again after its delay, then a final failure; replay makes it pending with a fresh schedule', async () => {
      await add();
      rightOf(
        await store.plants
          .create({ name: plantName('flaky') })()
          .then(plainPlant),
      );
      const [first] = await claimAll();
      rightOf(
        await store.webhooks.recordAttempts('test', [
          record(first as ClaimedDelivery, 'retry', { status: 500, error: 'HTTP 500', retryInMs: 250 }),
        ])(),
      );
      expect(await claimAll()).toEqual([]);
      const [pending] = rightOf(await store.webhooks.listDeliveries({ limit: 1, status: 'pending' })());
      expect(pending).toMatchObject({ attempts: 1, lastStatus: 500, lastError: 'HTTP 500' });
      await sleep(400); // past the 250 ms retry delay: it being kept is what this test is about
      const [second] = await claimAll();
      expect(second).toMatchObject({ id: first?.id, attempts: 1 });
      rightOf(
        await store.webhooks.recordAttempts('test', [
          record(second as ClaimedDelivery, 'failed', { error: 'connect ECONNREFUSED' }),
        ])(),
      );
      const [failed] = rightOf(await store.webhooks.listDeliveries({ limit: 1, status: 'failed' })());
      expect(failed).toMatchObject({ id: first?.id, status: 'failed', attempts: 2, lastError: 'connect ECONNREFUSED' });
      expect(rightOf(await store.webhooks.backlog()()).pending).toBe(0);
      expect(rightOf(await store.webhooks.replay(first?.id ?? 0)())).toEqual({ _tag: 'Replayed' });
      expect(rightOf(await store.webhooks.replay(first?.id ?? 0)())).toEqual({ _tag: 'AlreadyPending' });
      const [again] = await claimAll();
      expect(again).toMatchObject({ id: first?.id, eventId: first?.eventId, body: first?.body, attempts: 0 });
      expect(rightOf(await store.webhooks.replay(987_654_321)())).toEqual({ _tag: 'DeliveryNotFound' });
    });

    it('disables an endpoint on 410: that delivery and its pending ones fail, and it gets no new ones until enabled', async () => {
      const gone = await add();
      const other = await add();
      rightOf(
        await store.plants
          .create({ name: plantName('one') })()
          .then(plainPlant),
      );
      rightOf(
        await store.plants
          .create({ name: plantName('two') })()
          .then(plainPlant),
      );
      const claimed = await claimAll();
      const [target] = claimed.filter((d) => d.endpointId === gone.id);
      rightOf(
        await store.webhooks.recordAttempts('test', [
          record(target as ClaimedDelivery, 'gone', { status: 410, error: 'HTTP 410' }),
        ])(),
      );
      // The other pending delivery of the endpoint, although held, is failed too.
      const ofGone = rightOf(await store.webhooks.listDeliveries({ limit: 10, endpointId: gone.id })());
      expect(ofGone.map((d) => d.status)).toEqual(['failed', 'failed']);
      const endpoints = rightOf(await store.webhooks.listEndpoints()());
      expect(endpoints.find((e) => e.id === gone.id)).toMatchObject({ enabled: false });
      expect(endpoints.find((e) => e.id === gone.id)?.disabledReason).toMatch(/410/);
      expect(rightOf(await store.webhooks.replay(target?.id ?? 0)())).toEqual({
        _tag: 'EndpointDisabled',
        endpointId: gone.id,
      });
      expect(rightOf(await store.webhooks.replayFailed(gone.id)())).toBe(0);
      rightOf(
        await store.plants
          .create({ name: plantName('three') })()
          .then(plainPlant),
      );
      expect((await claimAll()).map((d) => d.endpointId)).toEqual([other.id]);
      expect(rightOf(await store.webhooks.enableEndpoint(gone.id)())).toBe(true);
      expect(rightOf(await store.webhooks.replayFailed(gone.id)())).toBe(2);
      rightOf(
        await store.plants
          .create({ name: plantName('four') })()
          .then(plainPlant),
      );
      const after = await claimAll();
      expect(after.filter((d) => d.endpointId === gone.id)).toHaveLength(3);
      // --failed replays in event order.
      const ids = after.filter((d) => d.endpointId === gone.id).map((d) => d.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });

    it('signs with the new secret first and the previous one second after a rotation', async () => {
      const endpoint = await add(null, SECRET_A);
      expect(rightOf(await store.webhooks.rotateSecret(endpoint.id, SECRET_B)())).toBe(true);
      rightOf(
        await store.plants
          .create({ name: plantName('rotated') })()
          .then(plainPlant),
      );
      const [claimed] = await claimAll();
      expect(claimed?.secrets).toEqual([SECRET_B, SECRET_A]);
      const listed = rightOf(await store.webhooks.listEndpoints()()).find((e) => e.id === endpoint.id);
      expect(listed?.rotatedAt).toBeInstanceOf(Date);
      expect(JSON.stringify(listed)).not.toContain('whsec_');
      expect(rightOf(await store.webhooks.rotateSecret('we_unknown', SECRET_B)())).toBe(false);
    });

    it('hands released deliveries back at once, and drops every delivery of a removed endpoint', async () => {
      const endpoint = await add();
      rightOf(
        await store.plants
          .create({ name: plantName('released') })()
          .then(plainPlant),
      );
      const held = await claimAll('a');
      expect(await claimAll('b')).toEqual([]);
      rightOf(
        await store.webhooks.release(
          'a',
          held.map((d) => d.id),
        )(),
      );
      expect((await claimAll('b')).map((d) => d.id)).toEqual(held.map((d) => d.id));
      const backlog = rightOf(await store.webhooks.backlog()());
      expect(backlog.pending).toBe(1);
      expect(backlog.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
      expect(rightOf(await store.webhooks.removeEndpoint(endpoint.id)())).toBe(true);
      expect(rightOf(await store.webhooks.removeEndpoint(endpoint.id)())).toBe(false);
      expect(rightOf(await store.webhooks.listDeliveries({ limit: 10, endpointId: endpoint.id })())).toEqual([]);
      expect(rightOf(await store.webhooks.backlog()()).pending).toBe(0);
    });

    it('purges ended deliveries past the retention, never pending ones', async () => {
      await add();
      rightOf(
        await store.plants
          .create({ name: plantName('old') })()
          .then(plainPlant),
      );
      rightOf(
        await store.plants
          .create({ name: plantName('waiting') })()
          .then(plainPlant),
      );
      const [done, waiting] = await claimAll();
      rightOf(
        await store.webhooks.recordAttempts('test', [record(done as ClaimedDelivery, 'delivered', { status: 200 })])(),
      );
      rightOf(await store.webhooks.release('test', [waiting?.id ?? 0])());
      let forgotten = 0;
      for (let step = 0; step < 100; step += 1) {
        const purged = rightOf(await store.webhooks.purgeEnded(0, 500)());
        forgotten += purged.forgotten;
        if (!purged.more) break;
      }
      expect(forgotten).toBeGreaterThanOrEqual(1);
      const left = rightOf(await store.webhooks.listDeliveries({ limit: 10 })());
      expect(left.map((d) => d.id)).toEqual([waiting?.id]);
    });

    // Last: once the last id is taken, every later server-assigned create of this database is one.
    it('commits plant.created for a server-assigned create in an id gap, after the last id was taken', async () => {
      await add();
      rightOf(await store.plants.create({ id: plantId(MAX_PLANT_ID), name: plantName('the last id') })());
      const inGap = rightOf(
        await store.plants
          .create({ name: plantName('in a gap'), tag: plantTag('g') })()
          .then(plainPlant),
      );
      const created = (await claimAll()).map((d) => JSON.parse(d.body) as { type: string; data: unknown });
      expect(created.map((e) => [e.type, e.data])).toEqual([
        ['plant.created', { id: MAX_PLANT_ID, name: 'the last id' }],
        ['plant.created', { id: inGap.id, name: 'in a gap', tag: 'g' }],
      ]);
    });
  });
}
