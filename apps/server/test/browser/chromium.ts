/**
 * Headless Chromium for the browser tests: Debian's `chromium` package, driven by playwright-core
 * (its own browser download cannot work on machines without internet). `.ci/run` installs the
 * package when it is missing; elsewhere, without it, the browser tests are skipped with one line
 * saying so — except under CI=true, where they fail.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(chromiumPath);
export const runBrowserTests = chromiumAvailable || process.env['CI'] === 'true';

const noticed = Symbol.for('plant-store.server.chromium-skip-notice');
if (!runBrowserTests && !(noticed in globalThis)) {
  Object.defineProperty(globalThis, noticed, { value: true });
  console.log(
    `browser tests skipped: no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH; CI=true fails instead)`,
  );
}

/** A fresh headless Chromium with the flags this closed network needs (no background traffic). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
