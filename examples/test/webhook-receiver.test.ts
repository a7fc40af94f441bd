/**
 * The webhook receiver example as its header tells a reader to run it: the receiver registered
 * with the server's webhooks CLI (`add --url http://127.0.0.1:<port>/webhooks`, which prints the
 * secret) and a server allowed to deliver to a plain-http loopback URL; the example verifies the
 * real deliveries, refuses a tampered body and drops a duplicate.
 */
import { freePort } from '@plant-store/testkit';
import { describe, expect, it } from 'vitest';
import { paths, plantsIn, run, runExample, useServer } from './support.js';

const ALLOW_LOOPBACK = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

describe('the webhook receiver example', () => {
  let port = 0;
  let secret = '';
  const live = useServer('sqlite', ALLOW_LOOPBACK, async (databaseUrl) => {
    port = await freePort();
    const added = await run(
      process.execPath,
      [paths.webhooksCli, 'add', '--url', `http://127.0.0.1:${port}/webhooks`],
      { DATABASE_URL: databaseUrl, ...ALLOW_LOOPBACK },
    );
    expect(added.code, added.stderr).toBe(0);
    secret = added.stdout.trim();
  });

  it('verifies the signed events of its plant, refuses a tampered body with 400 and drops a duplicate', async () => {
    const out = await runExample(live.server, 'webhook-receiver.js', {
      PLANT_STORE_WEBHOOK_SECRET: secret,
      WEBHOOK_RECEIVER_PORT: String(port),
    });
    expect(out).toContain(`receiving webhooks on http://127.0.0.1:${port}/webhooks`);
    const [, id, plant] = /^verified plant\.created (msg_\w+): plant (\d+) Bird of paradise$/m.exec(out) ?? [];
    expect(id).toBeDefined();
    expect(out).toMatch(/^rejected a delivery: NoMatchingSignature$/m);
    expect(out).toMatch(/^the same delivery with a tampered body: 400$/m);
    expect(out).toContain(`duplicate ${id} dropped`);
    expect(out).toMatch(/^the same delivery again, untouched: 204$/m);
    expect(out).toMatch(new RegExp(`^verified plant\\.deleted msg_\\w+: plant ${plant}$`, 'm'));
    expect(await plantsIn(live.server)).toEqual([]);
  });

  it('refuses to start without the secret `webhooks add` printed', async () => {
    const result = await run(process.execPath, ['dist/webhook-receiver.js'], {
      PLANT_STORE_WEBHOOK_SECRET: '',
      PLANT_STORE_URL: live.server.url,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Set PLANT_STORE_WEBHOOK_SECRET');
  });
});
