// A webhook receiver: a small Koa app that accepts a delivery only if its signature verifies
// (the client's `verifyWebhook`), answers anything else 400, and drops duplicates by webhook-id.
//
// 1. Start the server allowed to deliver to a plain-http loopback URL (it refuses both by default):
//      WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOW_PRIVATE=true pnpm -C apps/server start
// 2. Register this receiver; `add` prints the endpoint's signing secret, once:
//      export PLANT_STORE_WEBHOOK_SECRET=$(WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOW_PRIVATE=true \
//        pnpm -s webhooks add --url http://127.0.0.1:4000/webhooks)
// 3. pnpm -C examples webhook-receiver          (add `-- --keep-listening` to stay up afterwards)
//
// It then proves itself: it creates a plant, waits for the signed `plant.created` event, sends
// itself that delivery with a tampered body (refused: 400) and unchanged (a duplicate: dropped),
// deletes the plant and waits for `plant.deleted`.
import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook, WebhookVerificationError, type VerifiedWebhook, type WebhookEvent } from '@plant-store/client';
import Koa from 'koa';
import { check, connect, fresh } from './support.js';

const secret = process.env['PLANT_STORE_WEBHOOK_SECRET'] ?? '';
if (!secret.startsWith('whsec_')) {
  console.error('Set PLANT_STORE_WEBHOOK_SECRET to the secret `pnpm webhooks add` printed (whsec_…).');
  process.exit(2);
}
const port = Number(process.env['WEBHOOK_RECEIVER_PORT'] || 4000);

// --- The receiver: this is the part to copy. ---------------------------------------------------

interface Delivery {
  readonly id: string;
  readonly event: WebhookEvent;
  readonly body: Buffer; // the raw bytes, kept here only for the demonstration below
  readonly headers: IncomingHttpHeaders;
}
const handled = new Map<string, Delivery>(); // in production: a unique key in your database

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method !== 'POST' || ctx.path !== '/webhooks') {
    ctx.status = 404;
    return;
  }
  // The signature covers the bytes as sent: read the raw body (no body parser before this), at
  // most 64 KiB (the server's bodies are at most 16 KiB).
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 65_536) {
      ctx.status = 413;
      return;
    }
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  let verified: VerifiedWebhook;
  try {
    verified = verifyWebhook(body, ctx.headers, secret); // during a rotation: [newSecret, oldSecret]
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.log(`rejected a delivery: ${error.reason}`);
    ctx.status = 400;
    ctx.body = { error: 400, message: `webhook rejected: ${error.reason}` };
    return;
  }
  // At least once: the same webhook-id can arrive again (a retry, a replay). Handle it once.
  if (handled.has(verified.id)) {
    console.log(`duplicate ${verified.id} dropped`);
  } else {
    handled.set(verified.id, { id: verified.id, event: verified.event, body, headers: ctx.headers });
    const { type, data } = verified.event;
    console.log(`verified ${type} ${verified.id}: plant ${data.id}${'name' in data ? ` ${data.name}` : ''}`);
  }
  ctx.status = 204; // answer fast (within 15 s); do slow work afterwards
});
const server = app.listen(port, '127.0.0.1');
await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
console.log(`receiving webhooks on http://127.0.0.1:${port}/webhooks`);

// --- The demonstration. -------------------------------------------------------------------------

/** The delivery of `type` for plant `id`, once it has arrived. */
const arrival = async (type: WebhookEvent['type'], id: number): Promise<Delivery> => {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(25)) {
    const found = [...handled.values()].find((d) => d.event.type === type && d.event.data.id === id);
    if (found !== undefined) return found;
  }
  throw new Error(
    `example failed: no ${type} event for plant ${id} within 20 s. Is this receiver registered (pnpm webhooks list), and was the server started with WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOW_PRIVATE=true?`,
  );
};

/** POSTs a delivery to this receiver again, as the server would, with `body` instead of the original. */
const resend = async (delivery: Delivery, body: Buffer): Promise<number> => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
    headers[name] = String(delivery.headers[name]);
  const response = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', headers, body });
  await response.arrayBuffer();
  return response.status;
};

const client = connect();
const plant = await client.plants.create({ name: 'Bird of paradise', tag: fresh('webhook-demo') });
console.log(`created plant ${plant.id}; waiting for its event`);
const created = await arrival('plant.created', plant.id);

const tampered = Buffer.from(created.body.toString('utf8').replace('Bird of paradise', 'Bird of prey'));
const tamperedStatus = await resend(created, tampered);
console.log(`the same delivery with a tampered body: ${tamperedStatus}`);
check(tamperedStatus === 400, 'a tampered body is refused');

const duplicateStatus = await resend(created, created.body);
console.log(`the same delivery again, untouched: ${duplicateStatus}`);
check(duplicateStatus === 204, 'a genuine duplicate is accepted (and dropped)');

await client.plants.delete(plant.id);
await arrival('plant.deleted', plant.id);

if (process.argv.includes('--keep-listening')) {
  console.log('listening on; Ctrl-C stops');
} else {
  server.closeAllConnections();
  server.close();
}
