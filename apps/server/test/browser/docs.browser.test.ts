import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../http/support.js';
import { launchChromium, runBrowserTests } from './chromium.js';

/**
 * `GET /docs` in a real browser renders every operation of the served document, with no console
 * error and no request leaving the server's origin. The screenshot goes to
 * apps/server/test-results/docs.png (not committed) for a person to look at.
 */

const screenshot = join(dirname(fileURLToPath(import.meta.url)), '../../test-results/docs.png');

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  if (!runBrowserTests) return;
  server = await startTestServer();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.runIf(runBrowserTests)('the docs page', () => {
  it('renders every operation of /openapi.json from this origin alone, without console errors', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary?: string }>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([method, op]) => ({ method: method.toUpperCase(), path, summary: op.summary ?? '' })),
    );
    expect(operations.length).toBeGreaterThan(10);

    const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
    const problems: string[] = [];
    const requested: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => requested.push(request.url()));
    page.on('requestfailed', (request) =>
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`),
    );

    const response = await page.goto(`${server.url}/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.waitForSelector('.opblock-summary', { timeout: 20_000 });

    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => ({
        method: block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '',
        path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        summary: block.querySelector('.opblock-summary-description')?.textContent?.trim() ?? '',
      })),
    );
    for (const op of operations) expect(shown, `${op.method} ${op.path}`).toContainEqual(op);
    expect(await page.textContent('.info .title')).toContain('Plant Store');

    mkdirSync(dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: true });
    await page.close();

    expect(problems).toEqual([]);
    const elsewhere = requested.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith('data:'));
    expect(elsewhere).toEqual([]);
    expect(requested).toContain(`${server.url}/openapi.json`);
  });

  it('shows the list operation with its search, sort, cursor and count parameters and headers', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('#operations-plants-listPlants', { timeout: 20_000 });
    await page.click('#operations-plants-listPlants .opblock-summary');
    await page.waitForSelector('#operations-plants-listPlants tr[data-param-name]', { timeout: 20_000 });
    const parameters = await page.$$eval('#operations-plants-listPlants tr[data-param-name]', (rows) =>
      rows.map((row) => `${row.getAttribute('data-param-in') ?? ''} ${row.getAttribute('data-param-name') ?? ''}`),
    );
    expect(parameters).toEqual(
      expect.arrayContaining([
        'query limit',
        'query after',
        'query sort',
        'query q',
        'query cursor',
        'query tag',
        'header Prefer',
      ]),
    );
    const text = (await page.textContent('#operations-plants-listPlants')) ?? '';
    for (const shown of ['X-Total-Count', 'Preference-Applied', 'count=exact', '-name']) expect(text).toContain(shown);
    await page.close();
  });
});
