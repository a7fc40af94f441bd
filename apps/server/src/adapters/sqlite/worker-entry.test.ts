import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { workerEntry } from './worker-entry.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-worker-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): URL => pathToFileURL(join(dir, name));

describe('workerEntry', () => {
  it('picks the compiled file when it is there, else the .ts beside it, else names the compiled one', () => {
    writeFileSync(join(dir, 'built-worker-main.js'), '');
    writeFileSync(join(dir, 'built-worker-main.ts'), '');
    writeFileSync(join(dir, 'source-worker-main.ts'), '');
    expect(workerEntry(at('built-worker-main.js')).href).toBe(at('built-worker-main.js').href);
    expect(workerEntry(at('source-worker-main.js')).href).toBe(at('source-worker-main.ts').href);
    expect(workerEntry(at('missing-worker-main.js')).href).toBe(at('missing-worker-main.js').href);
  });

  // Each entry decodes its worker data: a thread started with data it does not know stops at
  // once, naming the field, instead of running on a wrong value.
  it.each([
    [{ file: 'x.db', intervalMs: '100', truncateAboveBytes: 1, synchronous: 'FULL' }, /intervalMs/],
    [{ file: 'x.db', intervalMs: 100, truncateAboveBytes: 1, synchronous: 'OFF' }, /synchronous/],
  ])('the checkpoint thread fails on worker data %j', async (workerData, field) => {
    const worker = new Worker(workerEntry(new URL('./checkpoint-worker-main.js', import.meta.url)), { workerData });
    const [error] = (await once(worker, 'error')) as [Error];
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/^the checkpoint worker data: /);
    expect(error.message).toMatch(field);
  });

  it('the backup thread answers an error for worker data without the copy', async () => {
    const worker = new Worker(workerEntry(new URL('./backup-worker-main.js', import.meta.url)), {
      workerData: { source: 'x.db', busyTimeoutMs: 5000 },
    });
    const [answer] = (await once(worker, 'message')) as [unknown];
    expect(answer).toMatchObject({
      type: 'error',
      message: expect.stringMatching(/^the backup worker data: copy/) as string,
    });
  });
});
