import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver, type WebhookReceiver } from '../src/webhook-receiver.js';

let receiver: WebhookReceiver;
let base: string;

beforeAll(async () => {
  receiver = createWebhookReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  receiver.server.closeAllConnections();
  await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
});

const deliver = (id: string) =>
  fetch(`${base}/hook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': id },
    body: JSON.stringify({
      type: 'plant.created',
      timestamp: '2026-11-24T00:00:00.000Z',
      data: { id: 1, name: 'Monstera' },
    }),
  });

describe('createWebhookReceiver', () => {
  it('answers every POST 204 and counts requests and distinct webhook-ids', async () => {
    const answers = await Promise.all([deliver('msg_a'), deliver('msg_b'), deliver('msg_a')]);
    expect(answers.map((r) => r.status)).toEqual([204, 204, 204]);
    expect(receiver.stats()).toEqual({ requests: 3, uniqueIds: 2 });
    const stats = await fetch(`${base}/stats`);
    expect(stats.status).toBe(200);
    expect(await stats.json()).toEqual({ requests: 3, uniqueIds: 2 });
  });

  it('answers GET /readyz 200 and other GETs 404, without counting them', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/hook`)).status).toBe(404);
    expect(receiver.stats().requests).toBe(3);
  });
});

describe('webhook-receiver-main', () => {
  // The process entry from the build (turbo builds before testing).
  const entry = fileURLToPath(new URL('../dist/webhook-receiver-main.js', import.meta.url));

  it('stops by itself after its lifetime', async () => {
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`pnpm build\` in apps/bench first`);
    const started = Date.now();
    const child = spawn(process.execPath, [entry], {
      env: { ...process.env, PORT: '0', RECEIVER_LIFETIME_SECONDS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(/^webhook receiver listening on \d+/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
