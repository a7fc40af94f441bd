import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createPlantStoreClient,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
} from '@plant-store/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode } from './support/processes.js';
import { useLiveServer } from './support/store.js';
import { until } from '@plant-store/testkit';

// The path docs/reference/webhooks.md walks through: a running server, `plant-store-webhooks add --url …`, and a receiver that
// verifies what arrives with the standardwebhooks package and with the client's verifyWebhook.

const ALLOW_LOOPBACK = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
const live = useLiveServer({ ...ALLOW_LOOPBACK, WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms' });
const webhooksCli = (args: readonly string[], env: Record<string, string> = ALLOW_LOOPBACK) =>
  runNode(paths.webhooksCli, args, { DATABASE_URL: live.databaseUrl, ...env });

interface Delivery {
  readonly body: string;
  readonly headers: Record<string, string>;
}

describe('webhooks from a running server to a receiver', () => {
  const received: Delivery[] = [];
  let receiver: http.Server;
  let url = '';
  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        received.push({ body: Buffer.concat(chunks).toString('utf8'), headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/plant-events`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('refuses a loopback URL unless WEBHOOK_ALLOW_PRIVATE=true, and http unless WEBHOOK_ALLOW_HTTP=true', async () => {
    const privateRefused = await webhooksCli(['add', '--url', url], { WEBHOOK_ALLOW_HTTP: 'true' });
    expect(privateRefused).toMatchObject({ code: 1, stdout: '' });
    expect(privateRefused.stderr).toMatch(/127\.0\.0\.1 is not a public address/);
    const httpRefused = await webhooksCli(['add', '--url', url], { WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(httpRefused).toMatchObject({ code: 1, stdout: '' });
    expect(httpRefused.stderr).toMatch(/https/);
    const credentials = await webhooksCli(['add', '--url', 'https://user:pass@hooks.example/x']);
    expect(credentials.code).toBe(1);
    expect(credentials.stderr).toContain('must not carry credentials');
    expect(credentials.stderr).not.toContain('user:pass');
    expect(JSON.parse((await webhooksCli(['list', '--json'])).stdout)).toEqual([]);
  });

  it('delivers signed events to an endpoint the CLI added to the running server, and signs with both secrets after a rotation', async () => {
    const added = await webhooksCli(['add', '--url', url]);
    expect(added.code).toBe(0);
    // The secret alone on stdout, the details on stderr.
    expect(added.stdout).toMatch(/^whsec_[A-Za-z0-9+/]{43}=\n$/);
    const secret = added.stdout.trim();
    const [endpoint] = JSON.parse((await webhooksCli(['list', '--json'])).stdout) as {
      id: string;
      url: string;
      status: string;
      events: null;
    }[];
    expect(endpoint).toMatchObject({ url, status: 'enabled', events: null });
    expect(added.stderr).toContain(endpoint?.id);

    const client = createPlantStoreClient({ baseUrl: live.server.url, token: live.token });
    const plant = await client.plants.create({ name: 'Calathea', tag: 'shade' });
    await client.plants.delete(plant.id);
    await until('two deliveries', () => received.length >= 2);

    const theirs = new Webhook(secret);
    const events = received.map(({ body, headers }) => {
      theirs.verify(body, headers);
      return verifyWebhook(body, headers, secret).event;
    });
    expect(events.map((e: WebhookEvent) => e.type).sort()).toEqual(['plant.created', 'plant.deleted']);
    expect(events.find((e) => e.type === 'plant.created')?.data).toEqual({
      id: plant.id,
      name: 'Calathea',
      tag: 'shade',
    });
    expect(received[0]?.headers['user-agent']).toMatch(/^plant-store-webhooks\/\d+\.\d+\.\d+/);

    // A tampered body is refused by both.
    const { body, headers } = received[0] as Delivery;
    const tampered = body.replace('Calathea', 'Calatheb');
    expect(() => theirs.verify(tampered, headers)).toThrow();
    expect(() => verifyWebhook(tampered, headers, secret)).toThrow(WebhookVerificationError);

    const deliveries = JSON.parse((await webhooksCli(['deliveries', '--json'])).stdout) as {
      status: string;
      eventId: string;
    }[];
    expect(deliveries.map((d) => d.status)).toEqual(['delivered', 'delivered']);
    expect(deliveries.map((d) => d.eventId).sort()).toEqual(received.map((r) => r.headers['webhook-id']).sort());

    const rotated = await webhooksCli(['rotate-secret', endpoint?.id ?? '']);
    expect(rotated.code).toBe(0);
    const newSecret = rotated.stdout.trim();
    expect(newSecret).not.toBe(secret);
    await client.plants.create({ name: 'After rotation' });
    await until('the third delivery', () => received.length >= 3);
    const third = received[2] as Delivery;
    expect(third.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verifyWebhook(third.body, third.headers, newSecret).event.type).toBe('plant.created');
    expect(verifyWebhook(third.body, third.headers, secret).event.type).toBe('plant.created');
    new Webhook(newSecret).verify(third.body, third.headers);

    // Replay: the same webhook-id and body again.
    const replayed = await webhooksCli([
      'replay',
      String(JSON.parse((await webhooksCli(['deliveries', '--json', '--limit', '1'])).stdout)[0].id),
    ]);
    expect(replayed.code).toBe(0);
    await until('the replay', () => received.length >= 4);
    expect(received[3]?.headers['webhook-id']).toBe(third.headers['webhook-id']);
    expect(received[3]?.body).toBe(third.body);

    expect(await webhooksCli(['remove', endpoint?.id ?? ''])).toMatchObject({ code: 0 });
    expect((await webhooksCli(['remove', endpoint?.id ?? ''])).code).toBe(1);
  });

  it('rejects bad usage with exit code 2', async () => {
    expect((await webhooksCli(['add'])).code).toBe(2);
    expect((await webhooksCli(['add', '--url', url, '--event', 'plant.exploded'])).code).toBe(2);
    expect((await webhooksCli(['deliveries', '--status', 'lost'])).code).toBe(2);
    expect((await webhooksCli(['replay', 'abc'])).code).toBe(2);
    expect((await webhooksCli(['frobnicate'])).code).toBe(2);
    const help = await webhooksCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('rotate-secret');
  });
});
