import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from '@plant-store/testkit';
import * as E from 'fp-ts/lib/Either.js';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { registerEndpoint } from '../../src/webhooks/endpoints.js';
import { parseRetrySchedule } from '../../src/webhooks/retry-schedule.js';
import { WebhookSender } from '../../src/webhooks/webhook-sender.js';
import type { AddressPolicy } from '../../src/webhooks/address-policy.js';
import type { EventType } from '../../src/ports/webhook-store.js';
import { createMetrics, type Metrics } from '../../src/ops/metrics.js';
import { parseScrape, runMetricsTests, sampleSum } from '../support/prometheus.js';
import { bearer, request, startTestServer, testStoreKind, type TestServer } from './support.js';

// Events out of the store through a listening server, the real dispatcher and sender, and real
// receivers on loopback (both stores: the `postgres` project runs this file again).

interface Received {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/** A receiver on 127.0.0.1 that answers each POST with what `answer` says. */
const startReceiver = async (
  answer: (n: number, res: http.ServerResponse) => void = (_n, res) => res.writeHead(204).end(),
) => {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      answer(received.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    port,
    url: `http://127.0.0.1:${port}/hooks/plants?token=receiver-side`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

const json = (token: string) => ({ ...bearer(token), 'content-type': 'application/json' });

const LOOPBACK: AddressPolicy = { allowHttp: true, allowPrivate: true };
const FAST = parseRetrySchedule('100ms,100ms,100ms') ?? [];

/** The statuses of every delivery in the store, sorted. */
const deliveryStatuses = async (server: TestServer): Promise<string[]> => {
  const listed = await server.store.webhooks.listDeliveries({ limit: 100 })();
  if (E.isLeft(listed)) throw new Error(`listing deliveries failed: ${JSON.stringify(listed.left)}`);
  return listed.right.map((d) => d.status).sort();
};

/** Until no delivery in the store is pending: each has been delivered or has failed for good. */
const untilOutboxSettled = async (server: TestServer): Promise<void> => {
  await until('no pending delivery', async () => !(await deliveryStatuses(server)).includes('pending'));
};

describe('webhooks', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A server, a dispatcher beside it (as main.ts starts them), and what to register with. */
  const start = async (
    options: { schedule?: readonly number[]; policy?: AddressPolicy; timeoutMs?: number; metrics?: Metrics } = {},
  ) => {
    const { metrics } = options;
    const server: TestServer = await startTestServer(metrics === undefined ? {} : { metrics });
    metrics?.watchOutbox(async () => E.getOrElseW(() => undefined)(await server.store.webhooks.backlog()()));
    cleanups.push(() => server.close());
    const policy = options.policy ?? LOOPBACK;
    const sender = new WebhookSender({ timeoutMs: options.timeoutMs ?? 2000, policy });
    const dispatcher = new WebhookDispatcher({
      store: server.store.webhooks,
      sender,
      holder: `test-${process.pid}`,
      schedule: options.schedule ?? FAST,
      timeoutMs: options.timeoutMs ?? 2000,
      userAgent: 'plant-store-webhooks/test',
      pollMs: 50,
      ...(metrics === undefined
        ? {}
        : { onAttempt: (kind: 'delivered' | 'retry' | 'failed') => metrics.webhookAttempt(kind) }),
    });
    dispatcher.start();
    cleanups.push(async () => {
      await dispatcher.stop(1000);
      sender.close();
    });
    const subscribe = async (url: string, events: readonly EventType[] | null = null) => {
      const registered = await registerEndpoint(server.store.webhooks, { url, events }, policy);
      if (E.isLeft(registered)) throw new Error(`could not register ${url}: ${JSON.stringify(registered.left)}`);
      return registered.right;
    };
    const create = async (name: string) => {
      const reply = await request(server, '/plants', {
        method: 'POST',
        headers: json(server.tokens.all),
        body: JSON.stringify({ name }),
      });
      expect(reply.status).toBe(201);
      // The 201's body holds the name and tag; the id is in Location.
      return { id: Number(String(reply.headers.location).split('/').pop()), name };
    };
    return { server, subscribe, create, dispatcher };
  };

  it('delivers plant.created and plant.deleted, signed so that the standardwebhooks package verifies them', async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const { server, subscribe, create } = await start();
    const { secret } = await subscribe(receiver.url);
    const plant = await create('Monstera');
    const deleted = await request(server, `/plants/${plant.id}`, {
      method: 'DELETE',
      headers: bearer(server.tokens.all),
    });
    expect(deleted.status).toBe(204);
    await until('two deliveries', () => receiver.received.length >= 2);
    const verifier = new Webhook(secret);
    const events = receiver.received.map((r) => {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toBe('plant-store-webhooks/test');
      expect(r.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9]{1,64}$/);
      return verifier.verify(r.body, {
        'webhook-id': String(r.headers['webhook-id']),
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      }) as { type: string; data: unknown };
    });
    expect(events.map((e) => e.type).sort()).toEqual(['plant.created', 'plant.deleted']);
    expect(events.find((e) => e.type === 'plant.created')?.data).toEqual({ id: plant.id, name: 'Monstera' });
    expect(events.find((e) => e.type === 'plant.deleted')?.data).toEqual({ id: plant.id });
    // A tampered body does not verify.
    const first = receiver.received[0] as Received;
    expect(() =>
      verifier.verify(first.body.replace('Monstera', 'Monsterb').replace(`"id":${plant.id}`, `"id":${plant.id}`), {
        'webhook-id': String(first.headers['webhook-id']),
        'webhook-timestamp': String(first.headers['webhook-timestamp']),
        'webhook-signature': String(first.headers['webhook-signature']),
      }),
    ).toThrow();
    await until('both delivered', async () => {
      const listed = await server.store.webhooks.listDeliveries({ limit: 10 })();
      return E.isRight(listed) && listed.right.every((d) => d.status === 'delivered');
    });
  });

  it('delivers plant.updated with the plant after the change, only when a patch changed something', async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const { server, subscribe, create } = await start();
    await subscribe(receiver.url, ['plant.updated']);
    const plant = await create('Pothos');
    const patch = (body: unknown, headers: Record<string, string> = {}) =>
      request(server, `/plants/${plant.id}`, {
        method: 'PATCH',
        headers: { ...bearer(server.tokens.all), 'content-type': 'application/merge-patch+json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await patch({ name: 'Pothos' })).status).toBe(200); // no change: no event
    expect((await patch({})).status).toBe(200);
    expect((await patch({ tag: 'hanging' }, { 'if-match': '"zzz"' })).status).toBe(412); // refused: no event
    expect((await patch({ tag: 'hanging' })).status).toBe(200);
    expect((await patch({ name: 'Golden pothos', tag: null })).status).toBe(200);
    // Every event is written with its change, before the answer: once the outbox holds nothing
    // pending, a wrongly written third event has been delivered too.
    await untilOutboxSettled(server);
    expect(await deliveryStatuses(server)).toEqual(['delivered', 'delivered']);
    const events = receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: unknown });
    expect(events.map((e) => e.type)).toEqual(['plant.updated', 'plant.updated']);
    expect(events.map((e) => e.data)).toEqual(
      expect.arrayContaining([
        { id: plant.id, name: 'Pothos', tag: 'hanging' },
        { id: plant.id, name: 'Golden pothos' },
      ]),
    );
  });

  it('sends nothing for a 409, a 404 or an idempotent replay', async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const { server, subscribe } = await start();
    await subscribe(receiver.url);
    const headers = { ...json(server.tokens.all), 'idempotency-key': 'webhook-replay-1' };
    expect(
      (await request(server, '/plants', { method: 'POST', headers, body: JSON.stringify({ id: 77, name: 'once' }) }))
        .status,
    ).toBe(201);
    expect(
      (await request(server, '/plants', { method: 'POST', headers, body: JSON.stringify({ id: 77, name: 'once' }) }))
        .headers['idempotent-replayed'],
    ).toBe('true');
    expect(
      (
        await request(server, '/plants', {
          method: 'POST',
          headers: json(server.tokens.all),
          body: JSON.stringify({ id: 77, name: 'twice' }),
        })
      ).status,
    ).toBe(409);
    expect((await request(server, '/plants/78', { method: 'DELETE', headers: bearer(server.tokens.all) })).status).toBe(
      404,
    );
    await untilOutboxSettled(server);
    expect(await deliveryStatuses(server)).toEqual(['delivered']);
    expect(receiver.received).toHaveLength(1);
  });

  it('delivers once a receiver that was down comes up', async () => {
    // A port with nothing listening: take one, then close it.
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();
    const { server, subscribe, create } = await start({
      schedule: parseRetrySchedule('200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms') ?? [],
    });
    await subscribe(`http://127.0.0.1:${port}/hook`);
    await create('patient');
    await until('a failed attempt', async () => {
      const listed = await server.store.webhooks.listDeliveries({ limit: 1 })();
      return E.isRight(listed) && (listed.right[0]?.attempts ?? 0) >= 1;
    });
    const received: string[] = [];
    const up = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(String(req.headers['webhook-id']));
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => up.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => up.close(() => resolve())));
    await until('the delivery', () => received.length >= 1);
    await until('delivered', async () => {
      const listed = await server.store.webhooks.listDeliveries({ limit: 1 })();
      return E.isRight(listed) && listed.right[0]?.status === 'delivered';
    });
  });

  it('retries 500s on the schedule, then fails the delivery for good; a replay delivers it with the same id and body', async () => {
    let healthy = false;
    const receiver = await startReceiver((_n, res) => res.writeHead(healthy ? 200 : 500).end());
    cleanups.push(receiver.close);
    const { server, subscribe, create } = await start();
    await subscribe(receiver.url);
    await create('unlucky');
    await until('failed', async () => {
      const listed = await server.store.webhooks.listDeliveries({ limit: 1 })();
      return E.isRight(listed) && listed.right[0]?.status === 'failed';
    });
    // 1 + 3 retries of the schedule.
    expect(receiver.received).toHaveLength(4);
    const gaps = receiver.received.slice(1).map((r, i) => r.at - (receiver.received[i] as Received).at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(75);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    const [failed] = E.getOrElseW(() => [])(await server.store.webhooks.listDeliveries({ limit: 1 })());
    expect(failed).toMatchObject({ status: 'failed', attempts: 4, lastStatus: 500, lastError: 'HTTP 500' });
    healthy = true;
    expect(await server.store.webhooks.replay(failed?.id ?? 0)()).toEqual(E.right({ _tag: 'Replayed' }));
    await until('the replay delivered', () => receiver.received.length >= 5);
    expect(receiver.received[4]?.headers['webhook-id']).toBe(receiver.received[0]?.headers['webhook-id']);
    expect(receiver.received[4]?.body).toBe(receiver.received[0]?.body);
  });

  it('disables an endpoint that answers 410, failing its pending deliveries', async () => {
    const receiver = await startReceiver((_n, res) => res.writeHead(410).end());
    cleanups.push(receiver.close);
    const { server, subscribe, create } = await start({ schedule: parseRetrySchedule('1h') ?? [] });
    const { endpoint } = await subscribe(receiver.url);
    await create('gone one');
    await until('disabled', async () => {
      const listed = await server.store.webhooks.listEndpoints()();
      return E.isRight(listed) && listed.right.some((e) => e.id === endpoint.id && !e.enabled);
    });
    await create('gone two');
    // The second event would have been written with its plant, before the answer: the outbox
    // shows it had there been one, whether or not it was attempted yet.
    expect(await deliveryStatuses(server)).toEqual(['failed']);
    expect(receiver.received).toHaveLength(1);
  });

  it('hands back what a claim still in progress took when the dispatcher stops, so the next instance takes it at once', async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const server: TestServer = await startTestServer();
    cleanups.push(() => server.close());
    const registered = await registerEndpoint(server.store.webhooks, { url: receiver.url, events: null }, LOOPBACK);
    expect(E.isRight(registered)).toBe(true);
    const created = await request(server, '/plants', {
      method: 'POST',
      headers: json(server.tokens.all),
      body: JSON.stringify({ name: 'Held' }),
    });
    expect(created.status).toBe(201);
    // The store's own claim, answered only once the dispatcher has been asked to stop.
    const real = server.store.webhooks;
    let claimedSome!: () => void;
    const claimed = new Promise<void>((resolve) => (claimedSome = resolve));
    let answer!: () => void;
    const answerClaim = new Promise<void>((resolve) => (answer = resolve));
    const sender = new WebhookSender({ timeoutMs: 2000, policy: LOOPBACK });
    cleanups.push(() => sender.close());
    const dispatcher = new WebhookDispatcher({
      store: {
        ...real,
        claimDue: (holder, limit, leaseMs) => async () => {
          const outcome = await real.claimDue(holder, limit, leaseMs)();
          if (E.isRight(outcome) && outcome.right.length > 0) {
            claimedSome();
            await answerClaim;
          }
          return outcome;
        },
      },
      sender,
      holder: 'stopping',
      schedule: FAST,
      timeoutMs: 2000,
      userAgent: 'plant-store-webhooks/test',
      pollMs: 50,
    });
    dispatcher.start();
    await claimed;
    const stopped = dispatcher.stop(1000);
    answer();
    await stopped;
    expect(receiver.received).toHaveLength(0);
    // Handed back due now: another holder takes it at once, not after the first hold's lease.
    const next = await real.claimDue('next', 10, 30_000)();
    expect(E.isRight(next) ? next.right.map((d) => d.body) : next).toEqual([expect.stringContaining('"name":"Held"')]);
  });

  it('treats a redirect as a failed attempt and never follows it', async () => {
    const target = await startReceiver();
    cleanups.push(target.close);
    const receiver = await startReceiver((_n, res) => res.writeHead(307, { location: target.url }).end());
    cleanups.push(receiver.close);
    const { server, subscribe, create } = await start({ schedule: parseRetrySchedule('1h') ?? [] });
    await subscribe(receiver.url);
    await create('redirected');
    await until('an attempt', async () => {
      const listed = await server.store.webhooks.listDeliveries({ limit: 1 })();
      return E.isRight(listed) && (listed.right[0]?.attempts ?? 0) === 1;
    });
    const [delivery] = E.getOrElseW(() => [])(await server.store.webhooks.listDeliveries({ limit: 1 })());
    expect(delivery).toMatchObject({ status: 'pending', lastStatus: 307 });
    expect(target.received).toHaveLength(0);
  });

  it('refuses a private address without WEBHOOK_ALLOW_PRIVATE, at registration and at delivery', async () => {
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const strict: AddressPolicy = { allowHttp: true, allowPrivate: false };
    const { server, create } = await start({ policy: strict, schedule: parseRetrySchedule('1h') ?? [] });
    const refused = await registerEndpoint(server.store.webhooks, { url: receiver.url, events: null }, strict);
    expect(E.isLeft(refused) && refused.left._tag === 'UrlRefused' && refused.left.reason).toMatch(
      /127\.0\.0\.1.*(loopback|not a public)/,
    );
    // Registered while it was allowed (another policy, or the address moved since): refused at delivery.
    const allowed = await registerEndpoint(server.store.webhooks, { url: receiver.url, events: null }, LOOPBACK);
    expect(E.isRight(allowed)).toBe(true);
    await create('private');
    await until('a refused attempt', async () => {
      const listed = await server.store.webhooks.listDeliveries({ limit: 1 })();
      return E.isRight(listed) && (listed.right[0]?.attempts ?? 0) === 1;
    });
    expect(receiver.received).toHaveLength(0);
    // The error names the address, never the path or query of the URL.
    const [delivery] = E.getOrElseW(() => [])(await server.store.webhooks.listDeliveries({ limit: 1 })());
    expect(delivery?.lastError).toMatch(/127\.0\.0\.1/);
    expect(delivery?.lastError).not.toContain('receiver-side');
  });

  it.runIf(runMetricsTests)(
    'counts attempts by outcome and reports the outbox backlog, never a secret or URL',
    async () => {
      let failures = 2;
      const receiver = await startReceiver((_n, res) => res.writeHead(failures-- > 0 ? 503 : 200).end());
      cleanups.push(receiver.close);
      const metrics = createMetrics({ store: testStoreKind, processMetrics: false });
      const { subscribe, create } = await start({ metrics, schedule: parseRetrySchedule('300ms,300ms') ?? [] });
      const { secret } = await subscribe(receiver.url);
      await create('counted');
      // While the first attempts fail, the delivery is in the backlog.
      await until('a retry', () => receiver.received.length >= 1);
      const during = parseScrape(await metrics.registry.metrics());
      expect(sampleSum(during, 'plant_store_webhook_outbox_pending')).toBe(1);
      expect(sampleSum(during, 'plant_store_webhook_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
      await until('delivered', () => receiver.received.length >= 3);
      // The receiver has it; the dispatcher records the attempt after the answer.
      await until(
        'the delivered attempt recorded and the outbox empty',
        async () => {
          const families = parseScrape(await metrics.registry.metrics());
          return (
            sampleSum(families, 'plant_store_webhook_attempts_total', { outcome: 'delivered' }) >= 1 &&
            sampleSum(families, 'plant_store_webhook_outbox_pending') === 0
          );
        },
        10_000,
        { everyMs: 100 },
      );
      const text = await metrics.registry.metrics();
      const after = parseScrape(text);
      expect(sampleSum(after, 'plant_store_webhook_attempts_total', { outcome: 'retry' })).toBe(2);
      expect(sampleSum(after, 'plant_store_webhook_attempts_total', { outcome: 'delivered' })).toBe(1);
      expect(sampleSum(after, 'plant_store_webhook_attempts_total', { outcome: 'failed' })).toBe(0);
      expect(sampleSum(after, 'plant_store_webhook_outbox_pending')).toBe(0);
      for (const never of [secret, secret.slice('whsec_'.length), 'receiver-side', String(receiver.port)])
        expect(text).not.toContain(never);
    },
  );
});
