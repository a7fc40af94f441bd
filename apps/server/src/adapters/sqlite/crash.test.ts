import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PlantId } from '@plant-store/domain';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { openSqliteStore } from './open.js';

/*
 * The store in a child process, as the server runs it: real fsyncs, a real SIGKILL. The child
 * runs this package's TypeScript through a tiny module loader (TypeScript's transpileModule)
 * written into a temp folder, so the test needs no build step.
 */

const dir = mkdtempSync(join(tmpdir(), 'plant-store-crash-'));
const storeModule = new URL('./open.ts', import.meta.url).href;
const typescript = createRequire(import.meta.url).resolve('typescript');

const loader = `
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
const ts = createRequire(import.meta.url)(${JSON.stringify(typescript)});
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const url = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
    if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const fileName = fileURLToPath(url);
  const { outputText } = ts.transpileModule(await readFile(fileName, 'utf8'), {
    fileName,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
`;

const child = `
const { openSqliteStore } = await import(process.env.STORE_MODULE);
const store = await openSqliteStore({ file: process.env.DB_FILE });
const say = (line) => process.stdout.write(line + '\\n');
if (process.env.MODE === 'idle') {
  const created = await store.plants.create({ name: 'left open' })();
  say(created._tag);
  // No close(): the process must still end by itself (the checkpoint worker is unref'd).
} else if (process.env.MODE === 'open') {
  await store.close();
  say('opened');
} else if (process.env.MODE === 'close') {
  const created = await store.plants.create({ name: 'closed' })();
  await store.close();
  // Nothing else keeps this process alive: close() itself must, until it has finished.
  say(created._tag + ' closed');
} else {
  let next = 1;
  for (;;) {
    const wave = Array.from({ length: 50 }, () => next++);
    const doomed = wave.filter((id) => id % 5 === 0);
    await Promise.all(wave.map((id) => store.plants.create({ id, name: 'plant ' + id })().then((r) => r._tag === 'Right' && say('created ' + id))));
    await Promise.all(doomed.map((id) => store.plants.delete(id)().then((r) => r._tag === 'Right' && say('deleted ' + id))));
  }
}
`;

const children: ChildProcess[] = [];
const start = (mode: 'idle' | 'open' | 'close' | 'write', file: string): ChildProcess => {
  const proc = spawn(process.execPath, ['--import', join(dir, 'register.mjs'), join(dir, 'child.mjs')], {
    env: { ...process.env, STORE_MODULE: storeModule, DB_FILE: file, MODE: mode },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(proc);
  return proc;
};
const exited = (proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve({ code: proc.exitCode, signal: proc.signalCode });
    else proc.once('exit', (code, signal) => resolve({ code, signal }));
  });

beforeAll(() => {
  writeFileSync(join(dir, 'loader.mjs'), loader);
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister('./loader.mjs', import.meta.url);\n`,
  );
  writeFileSync(join(dir, 'child.mjs'), child);
});
afterEach(() => {
  for (const proc of children.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite store in a real process', () => {
  it('lets the process end by itself while the store is still open', async () => {
    const proc = start('idle', join(dir, 'idle', 'plants.db'));
    const lines: string[] = [];
    proc.stdout?.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    expect(await exited(proc)).toEqual({ code: 0, signal: null });
    expect(lines.join('')).toBe('Right\n');
  });

  it('migrates a new file exactly once when several processes open it at the same time', async () => {
    const file = join(dir, 'race', 'plants.db');
    const procs = Array.from({ length: 4 }, () => start('open', file));
    expect(await Promise.all(procs.map(exited))).toEqual(Array(4).fill({ code: 0, signal: null }));
    const store = await openSqliteStore({ file });
    await store.close();
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual(
        SQLITE_MIGRATIONS.map((m) => m.version),
      );
      expect(db.prepare('SELECT count(*) FROM plant_ids').pluck().get()).toBe(1);
    } finally {
      db.close();
    }
  });

  it('finishes close() before the process ends', async () => {
    const file = join(dir, 'close', 'plants.db');
    const proc = start('close', file);
    const lines: string[] = [];
    proc.stdout?.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    expect(await exited(proc)).toEqual({ code: 0, signal: null });
    expect(lines.join('')).toBe('Right closed\n');
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('keeps every acknowledged create and delete after SIGKILL', async () => {
    const file = join(dir, 'killed', 'plants.db');
    const proc = start('write', file);
    const created = new Set<number>();
    const deleted = new Set<number>();
    await new Promise<void>((resolve, reject) => {
      proc.once('exit', (code) => reject(new Error(`the writer exited early (code ${code})`)));
      const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
      lines.on('line', (line) => {
        const [what, id] = line.split(' ');
        (what === 'created' ? created : deleted).add(Number(id));
        // Well into the run, with writes in flight: kill without warning.
        if (created.size >= 2000 && deleted.size >= 200) {
          proc.kill('SIGKILL');
          resolve();
        }
      });
    });
    expect((await exited(proc)).signal).toBe('SIGKILL');

    const store = await openSqliteStore({ file });
    try {
      // An acknowledged create is there unless a delete of it may have committed (every fifth
      // id is deleted; a delete whose acknowledgement the kill cut off may or may not be kept).
      for (const id of created) {
        if (id % 5 === 0) continue;
        expect(await store.plants.get(id as PlantId)()).toEqual({
          _tag: 'Right',
          right: { plant: { id, name: `plant ${id}` }, version: expect.any(Number), changeSeq: expect.any(Number) },
        });
      }
      for (const id of deleted) {
        expect(await store.plants.get(id as PlantId)()).toEqual({
          _tag: 'Left',
          left: { _tag: 'PlantNotFound', id, changeSeq: expect.any(Number) },
        });
      }
    } finally {
      await store.close();
    }
  }, 120_000);
});
