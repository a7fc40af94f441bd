#!/usr/bin/env node
import { createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as E from 'fp-ts/lib/Either.js';
import { openDataStore } from '../adapters/open-data-store.js';
import { openStore } from '../adapters/open-store.js';
import { Refused, runToolCli, UsageError, type ToolContext } from '../cli/run-cli.js';
import { parseStoreLocation, type StoreLocation } from '../config/store-location.js';
import { samePlant, TargetNotEmpty, type ImportOutcome, type ImportPlant } from '../ports/store-data.js';
import { exportPlants, plantLine } from './export.js';
import { importFile, type ImportReport } from './import.js';
import { migrate } from './migrate.js';
import { progressOn } from './progress.js';

const NAME = 'plant-store-data';

const HELP = `${NAME} — take a copy of the Plant Store's data, bring plants in, move a whole store

Usage:
  ${NAME} backup <file> [--force]
      Writes a consistent copy of the running SQLite store (DATABASE_URL) to <file> while the
      server keeps serving; checked with PRAGMA integrity_check before it takes the name.
      --force replaces an existing <file>. On PostgreSQL: use pg_dump (exit 2).
  ${NAME} export [--output <file>]
      Writes every plant as JSON Lines ({"id","name","tag"}, id order) from one snapshot, to stdout
      or <file>.
  ${NAME} import <file> [--skip-invalid] [--emit-events]
      Adds the plants of a JSON Lines file, keeping their ids. A line whose id is stored with the
      same name and tag is skipped; with another, it is a conflict, reported and not written.
      Nothing is written while any line is invalid, unless --skip-invalid. No webhook events
      unless --emit-events.
  ${NAME} migrate [--from <url>] --to <url>
      Copies everything a store holds (plants and versions, id state, tokens, webhook endpoints,
      deliveries and attempts, unexpired idempotency keys) into an empty store, SQLite or
      PostgreSQL, in one transaction, then checks counts and checksums. A target that holds
      anything is refused (exit 2); a failure or Ctrl-C leaves it empty. --from defaults to
      DATABASE_URL.
  ${NAME} --help

URLs as DATABASE_URL takes them: sqlite:<file>, a file path, or postgres://…. Relative paths start
in the working directory (pnpm data …: the repository root).
Environment: DATABASE_URL (default sqlite:./data/plant-store.db; pnpm data … makes it the server's
apps/server/data/plant-store.db).
Progress bars on stderr when it is a terminal; otherwise only results and errors.
Exit codes: 0 done, 1 failed, 2 usage error or refused target.
From the repository root: pnpm data <command> …
`;

const say = (line: string): void => void process.stderr.write(`${line}\n`);

/** TargetNotEmpty ends the command with exit 2 and its message; anything else goes on. */
const refusedTarget = async (run: () => Promise<number | void>): Promise<number | void> => {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof TargetNotEmpty)) throw error;
    say(`${NAME}: ${error.message}`);
    return 2;
  }
};

const noPositionals = (command: string, positionals: readonly string[]): void => {
  if (positionals.length > 0) throw new UsageError(`${command} takes no arguments, got ${positionals.join(' ')}`);
};

const oneFile = (command: string, positionals: readonly string[]): string => {
  const [file, ...rest] = positionals;
  if (file === undefined || rest.length > 0) throw new UsageError(`${command} takes one <file>`);
  return file;
};

const backup = async ({ args, config }: ToolContext): Promise<number | void> => {
  const { values, positionals } = parseArgs({ args, options: { force: { type: 'boolean' } }, allowPositionals: true });
  const file = oneFile('backup', positionals);
  if (config.storeLocation.kind === 'postgres') {
    say(`${NAME}: backup copies a SQLite store; for PostgreSQL use pg_dump (see docs/guides/backups.md)`);
    return 2;
  }
  const store = await openDataStore(config.storeLocation, false);
  try {
    const copy = store.backup;
    if (copy === undefined) throw new Refused('this store cannot take an online backup');
    const progress = progressOn(process.stderr, 'bytes');
    // The bar starts once the source's size is known, and runs on from there.
    let shownTotal: number | undefined;
    return await refusedTarget(async () => {
      try {
        const done = await copy(resolve(file), {
          overwrite: values.force === true,
          onProgress: (written, total) => {
            if (total !== shownTotal) progress.start('copying', (shownTotal = total));
            progress.update(written);
          },
        });
        progress.stop();
        process.stdout.write(`${done.file}: ${done.plants} plants, ${done.bytes} bytes, integrity ok\n`);
      } finally {
        progress.stop();
      }
    });
  } finally {
    await store.close();
  }
};

const exportCommand = async ({ args, config }: ToolContext): Promise<void> => {
  const { values, positionals } = parseArgs({ args, options: { output: { type: 'string' } }, allowPositionals: true });
  noPositionals('export', positionals);
  const store = await openDataStore(config.storeLocation, false);
  try {
    const progress = progressOn(process.stderr);
    if (values.output === undefined) {
      await exportPlants(store, process.stdout, progress);
      return;
    }
    // Written beside, renamed when whole: the name never holds half an export.
    const target = resolve(values.output);
    const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
    const out = createWriteStream(partial);
    try {
      const n = await exportPlants(store, out, progress);
      out.end();
      await once(out, 'close');
      renameSync(partial, target);
      say(`${n} plants written to ${target}`);
    } finally {
      out.destroy();
      rmSync(partial, { force: true });
    }
  } finally {
    await store.close();
  }
};

const importCommand = async ({ args, config, logger }: ToolContext): Promise<number> => {
  const { values, positionals } = parseArgs({
    args,
    options: { 'skip-invalid': { type: 'boolean' }, 'emit-events': { type: 'boolean' } },
    allowPositionals: true,
  });
  const file = resolve(oneFile('import', positionals));
  // Read twice (every line is checked before any is written): a pipe would be empty the second time.
  const kind = statSync(file, { throwIfNoEntry: false });
  if (kind !== undefined && !kind.isFile())
    throw new UsageError(
      `import reads <file> twice, so it must be a regular file; ${file} is not (copy the input to a file first)`,
    );
  const report: ImportReport = {
    invalid: (line, problems) => say(`line ${line}: ${problems.join('; ')}`),
    conflict: (line, plant, stored) =>
      say(`line ${line}: id ${plant.id} is stored as ${plantLine(stored).trim()}; not imported`),
  };
  const progress = progressOn(process.stderr);
  const run = async (write: (plants: readonly ImportPlant[]) => Promise<readonly ImportOutcome[]>) => {
    const summary = await importFile(file, { skipInvalid: values['skip-invalid'] === true }, write, report, progress);
    if (!summary.written) {
      say(`${NAME}: ${summary.skipped} invalid line(s); nothing imported (--skip-invalid imports the valid ones)`);
      return 1;
    }
    process.stdout.write(
      `imported ${summary.created}, already present ${summary.present}, conflicts ${summary.conflicts}, invalid ${summary.skipped}\n`,
    );
    // Skipped invalid lines count as failures too: a script sees that not every line went in.
    return summary.conflicts > 0 || summary.skipped > 0 ? 1 : 0;
  };
  if (values['emit-events'] === true) {
    // Through the server's own create, which writes each plant's event with it.
    const store = await openStore(config.storeLocation, {
      synchronous: config.sqliteSynchronous,
      syncOffEventLoop: false,
      logger,
      ...(config.postgres.directUrl === undefined ? {} : { directUrl: config.postgres.directUrl }),
    });
    try {
      return await run((plants) => Promise.all(plants.map((plant) => createWithEvent(store, plant))));
    } finally {
      await store.close();
    }
  }
  const store = await openDataStore(config.storeLocation, true);
  try {
    return await run((plants) => store.importPlants(plants));
  } finally {
    await store.close();
  }
};

/** One plant created through the store's create (its event written with it), or what holds its id. */
const createWithEvent = async (
  store: Awaited<ReturnType<typeof openStore>>,
  plant: ImportPlant,
): Promise<ImportOutcome> => {
  const created = await store.plants.create(plant)();
  if (E.isRight(created)) return 'created';
  if (created.left._tag !== 'IdTaken') throw new Error(`could not create plant ${plant.id}`, { cause: created.left });
  const found = await store.plants.get(plant.id)();
  if (E.isLeft(found)) throw new Error(`could not read plant ${plant.id}`, { cause: found.left });
  const { plant: stored, version } = found.right;
  return samePlant(stored, plant) ? 'present' : { conflict: { plant: stored, version } };
};

const location = (option: string, url: string): StoreLocation => {
  const parsed = parseStoreLocation(url);
  if (parsed === undefined) throw new UsageError(`${option}: not a store URL: ${url}`);
  return parsed;
};

const migrateCommand = async ({ args, config }: ToolContext): Promise<number | void> => {
  const { values, positionals } = parseArgs({
    args,
    options: { from: { type: 'string' }, to: { type: 'string' } },
    allowPositionals: true,
  });
  noPositionals('migrate', positionals);
  if (values.to === undefined) throw new UsageError('migrate needs --to <url>');
  // Without --from: the store the server uses (DATABASE_URL).
  const from = values.from === undefined ? config.storeLocation : location('--from', values.from);
  const to = location('--to', values.to);
  const source = await openDataStore(from, false);
  try {
    const target = await openDataStore(to, true);
    try {
      if (source.where === target.where) throw new UsageError('--from and --to name the same store');
      return await refusedTarget(async () => {
        const started = Date.now();
        const report = await migrate(source, target, progressOn(process.stderr));
        const rows = report.tables.map((t) => `${t.table} ${t.rows}`).join(', ');
        const plants = report.tables.find((t) => t.table === 'plants');
        process.stdout.write(
          `moved ${source.where} → ${target.where} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${rows}; ` +
            `counts and checksums match (plants sha256 ${plants?.sha256.slice(0, 16) ?? '-'}…)\n`,
        );
      });
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
};

await runToolCli({
  name: NAME,
  help: HELP,
  commands: { backup, export: exportCommand, import: importCommand, migrate: migrateCommand },
});
