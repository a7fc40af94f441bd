import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../http/support.js';
import { launchChromium, runBrowserTests } from './chromium.js';

/**
 * CORS in a real browser: a page served from a second loopback origin calls the API with `fetch`
 * and a bearer token. It works only when CORS_ORIGINS names the page's origin.
 */

interface Outcome {
  readonly ok: boolean;
  readonly status?: number;
  readonly body?: unknown;
  readonly requestId?: string | null;
  readonly location?: string | null;
  readonly error?: string;
}

let page: http.Server;
let pageOrigin: string;
let allowing: TestServer;
let other: TestServer;
let browser: Browser;

beforeAll(async () => {
  if (!runBrowserTests) return;
  page = http.createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>page</title>'),
  );
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  allowing = await startTestServer({ corsOrigins: [pageOrigin] });
  other = await startTestServer({ corsOrigins: ['http://127.0.0.1:1'] });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await allowing?.close();
  await other?.close();
  page?.close();
});

/** Runs `fetch` in a page of the second origin and reports what the page's script could see. */
const fetchFromPage = async (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<Outcome> => {
  const tab = await browser.newPage();
  try {
    await tab.goto(pageOrigin);
    return await tab.evaluate(
      async ({ url, init }): Promise<Outcome> => {
        try {
          const response = await fetch(url, init);
          const text = await response.text();
          return {
            ok: true,
            status: response.status,
            body: text === '' ? null : (JSON.parse(text) as unknown),
            requestId: response.headers.get('X-Request-Id'),
            location: response.headers.get('Location'),
          };
        } catch (error) {
          return { ok: false, error: String(error) };
        }
      },
      { url, init },
    );
  } finally {
    await tab.close();
  }
};

describe.runIf(runBrowserTests)('a cross-origin fetch from a browser page', () => {
  it('reads a list and creates a plant (preflighted) when CORS_ORIGINS names the page origin', async () => {
    const listed = await fetchFromPage(`${allowing.url}/plants`, {
      method: 'GET',
      headers: { Authorization: `Bearer ${allowing.tokens.all}` },
    });
    expect(listed).toMatchObject({ ok: true, status: 200, body: [] });
    expect(listed.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const created = await fetchFromPage(`${allowing.url}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${allowing.tokens.all}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'from the browser' }),
    });
    expect(created).toMatchObject({ ok: true, status: 201, body: { name: 'from the browser' }, location: '/plants/1' });
  });

  it('fails in the browser when the page origin is not allowed, and the plant is not created', async () => {
    const listed = await fetchFromPage(`${other.url}/plants`, {
      method: 'GET',
      headers: { Authorization: `Bearer ${other.tokens.all}` },
    });
    expect(listed).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
    const created = await fetchFromPage(`${other.url}/plants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${other.tokens.all}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'never' }),
    });
    expect(created).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
    const stored = await fetch(`${other.url}/plants`, { headers: { authorization: `Bearer ${other.tokens.all}` } });
    expect(await stored.json()).toEqual([]);
  });
});
