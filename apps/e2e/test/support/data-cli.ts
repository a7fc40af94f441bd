import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import Database from 'better-sqlite3';
import { paths } from './paths.js';
import { runNode, type RunResult } from './processes.js';

/** Runs `plant-store-data …` to completion with `env` (DATABASE_URL above all). */
export const dataCli = (args: readonly string[], env: Record<string, string> = {}): Promise<RunResult> =>
  runNode(paths.dataCli, args, env, 120_000);

export interface RunningCommand {
  readonly pid: number;
  /** Sends `signal` to this process only. */
  kill(signal: NodeJS.Signals): void;
  /** Settles when it has exited, with its output and how it ended. */
  readonly done: Promise<RunResult & { readonly signal: NodeJS.Signals | null }>;
}

/** Starts `plant-store-data …` and hands it back while it runs, to be signalled mid-way. */
export const startDataCli = (args: readonly string[], env: Record<string, string>): RunningCommand => {
  const child = spawn(process.execPath, [paths.dataCli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A hung command fails its test instead of hanging the run.
    timeout: 120_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
  }));
  if (child.pid === undefined) throw new Error('plant-store-data did not start');
  return { pid: child.pid, kill: (signal) => void child.kill(signal), done };
};

export interface PlantLine {
  readonly id: number;
  readonly name: string;
  readonly tag?: string;
}

/**
 * The plant the seeded stores hold at `id`: every third without a tag, some names with quotes, a
 * backslash and characters beyond ASCII, so a line's bytes depend on JSON escaping and UTF-8.
 */
export const seededPlant = (id: number): PlantLine => {
  const name = id % 10 === 7 ? `Ficus "${id}" \\ Grüne Pflanze 🌿` : `Plant ${id}`;
  return id % 3 === 0 ? { id, name } : { id, name, tag: `shelf-${id % 11}` };
};

/** `plants` as the data commands write them: one JSON object per line, members id, name, tag. */
export const jsonLines = (plants: Iterable<PlantLine>): string => {
  let text = '';
  for (const plant of plants) text += `${JSON.stringify(plant)}\n`;
  return text;
};

/** Writes plants `from`…`to` (seededPlant) to `file` as JSON Lines, in id order. */
export const writeSeedFile = async (file: string, from: number, to: number): Promise<void> => {
  const out = createWriteStream(file);
  const batch = 10_000;
  for (let start = from; start <= to; start += batch) {
    const ids = Array.from({ length: Math.min(batch, to - start + 1) }, (_, i) => start + i);
    if (!out.write(jsonLines(ids.map(seededPlant)))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
};

/**
 * Runs `query` on the SQLite file at `file`, then closes it. Opened for writing, though only read:
 * a file left by a killed process may need its WAL recovered first, which read-only cannot do.
 */
export const readSqlite = <A>(file: string, query: (db: Database.Database) => A): A => {
  const db = new Database(file, { fileMustExist: true });
  try {
    return query(db);
  } finally {
    db.close();
  }
};

/** How many plants the SQLite file at `file` holds. */
export const sqlitePlantCount = (file: string): number =>
  readSqlite(file, (db) => Number(db.prepare('SELECT count(*) FROM plants').pluck().get()));
