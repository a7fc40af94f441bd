import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createPlant, request, startTestServer, type TestServer } from '../http/support.js';
import { launchChromium, runBrowserTests } from './chromium.js';

/**
 * The change feed in a real browser: the example page (examples/browser/changes.html), served
 * from a second loopback origin named in CORS_ORIGINS, reads the stream with `fetch` and a bearer
 * token, and shows a plant created through the API within 1 s; given a tag, only the changes of
 * that tag, a plant that leaves it as plant.left.
 */

const examplePage = readFileSync(new URL('../../../../examples/browser/changes.html', import.meta.url), 'utf8');

let page: http.Server;
let pageOrigin: string;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  if (!runBrowserTests) return;
  page = http.createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(examplePage),
  );
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  server = await startTestServer({ corsOrigins: [pageOrigin], changes: { heartbeatMs: 1000 } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  page?.close();
});

describe.runIf(runBrowserTests)('the change feed in Chromium', () => {
  it('shows a plant created through the API within 1 s, then its delete', async () => {
    const tab = await browser.newPage();
    try {
      await tab.goto(`${pageOrigin}/changes.html`);
      await tab.fill('input[name=base]', server.url);
      await tab.fill('input[name=token]', server.tokens.read);
      await tab.click('button');
      // Page functions as text: this file is compiled without the DOM's types.
      await tab.waitForFunction(`document.getElementById('status').textContent === 'following'`, undefined, {
        timeout: 5000,
      });
      const name = `browser fern ${Date.now()}`;
      const created = await createPlant(server, { name, tag: 'shade' });
      expect(created.status).toBe(201);
      const id = Number(/\/plants\/(\d+)$/.exec(String(created.headers['location']))?.[1]);
      const committed = Date.now();
      const line = await tab.waitForFunction(
        `[...document.querySelectorAll('#changes li')].map((li) => li.textContent).find((text) => text.includes(${JSON.stringify(` plant.created ${id} ${name} shade`)}))`,
        undefined,
        { timeout: 1000, polling: 10 },
      );
      const shownAfter = Date.now() - committed;
      expect(await line.jsonValue()).toMatch(new RegExp(`^\\d+ plant\\.created ${id} ${name} shade$`));
      expect(shownAfter).toBeLessThan(1000);
      const removed = await request(server, `/plants/${id}`, { method: 'DELETE', headers: bearer(server.tokens.all) });
      expect(removed.status).toBe(204);
      await tab.waitForFunction(
        `[...document.querySelectorAll('#changes li')].some((li) => li.textContent.endsWith(${JSON.stringify(` plant.deleted ${id}`)}))`,
        undefined,
        { timeout: 1000, polling: 10 },
      );
    } finally {
      await tab.close();
    }
  });

  it('given a tag, shows only the changes of that tag, and plant.left for a plant that leaves it', async () => {
    const tab = await browser.newPage();
    try {
      await tab.goto(`${pageOrigin}/changes.html`);
      await tab.fill('input[name=base]', server.url);
      await tab.fill('input[name=token]', server.tokens.read);
      await tab.fill('input[name=tag]', 'browser tag');
      await tab.click('button');
      await tab.waitForFunction(`document.getElementById('status').textContent === 'following'`, undefined, {
        timeout: 5000,
      });
      const other = await createPlant(server, { name: 'elsewhere', tag: 'other' });
      const created = await createPlant(server, { name: 'tagged', tag: 'browser tag' });
      const id = Number(/\/plants\/(\d+)$/.exec(String(created.headers['location']))?.[1]);
      const moved = await request(server, `/plants/${id}`, {
        method: 'PATCH',
        headers: { ...bearer(server.tokens.all), 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ tag: 'other' }),
      });
      expect([other.status, moved.status]).toEqual([201, 200]);
      await tab.waitForFunction(
        `[...document.querySelectorAll('#changes li')].some((li) => li.textContent.endsWith(${JSON.stringify(` plant.left ${id}`)}))`,
        undefined,
        { timeout: 2000, polling: 10 },
      );
      // A change of another tag, then quiet: within a heartbeat (1 s here) and a tick the stream
      // sends a bookmark, which shows nothing and does not break the page's stream.
      expect((await createPlant(server, { name: 'elsewhere too', tag: 'other' })).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      // The newest first: the plant that left, its create; nothing of the other tag.
      const lines = await tab.evaluate(`[...document.querySelectorAll('#changes li')].map((li) => li.textContent)`);
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^\\d+ plant\\.left ${id}$`)),
        expect.stringMatching(new RegExp(`^\\d+ plant\\.created ${id} tagged browser tag$`)),
      ]);
      expect(await tab.evaluate(`document.getElementById('status').textContent`)).toBe('following');
    } finally {
      await tab.close();
    }
  });
});
