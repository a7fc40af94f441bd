import type { WindowStats } from './data-windows.js';
import { compact } from './plans.js';
import { int, mb, ms, NOISY } from './report.js';
import type { TargetCheck } from './targets.js';

/**
 * What `pnpm bench:data` measured, the targets it checks, and how both are printed. The figures
 * come from the data commands' own output (parsed here) and from the bench's clocks.
 */

/** One run of a `plant-store-data` command. */
export interface CommandFigures {
  /** Wall time from spawn to exit, node's start-up included (what an operator waits). */
  readonly seconds: number;
  /** The process's peak resident set (getrusage maxrss, read at its exit), bytes. */
  readonly maxRss: number | undefined;
}

export interface BackupFigures extends CommandFigures {
  /** Size of the copy and plants in it (the command's own count, read from the checked copy). */
  readonly bytes: number;
  readonly plants: number;
  /** The create load just before the backup, during it and just after. */
  readonly before: WindowStats;
  readonly during: WindowStats;
  readonly after: WindowStats;
  /** Load errors (unexpected statuses, socket errors, timeouts) over the whole load run. */
  readonly errors: number;
  readonly connections: number;
  /** Largest size the store's WAL reached while the backup ran, bytes. */
  readonly walPeak: number | undefined;
  /**
   * Share of the server's core taken by other work (not the server) in the window before the
   * backup and during it; undefined when not pinned.
   */
  readonly otherOnServerCore: { readonly before: number | undefined; readonly during: number | undefined };
  /** Where the backup ran: on the load generator's core (`load`), or wherever the kernel put it. */
  readonly backupCore: 'load' | 'any';
}

export interface DataFigures {
  readonly plants: number;
  readonly import?: CommandFigures;
  readonly export?: CommandFigures & { readonly bytes: number };
  readonly toPostgres?: CommandFigures;
  readonly toSqlite?: CommandFigures;
  readonly backup?: BackupFigures;
}

/** `<file>: <n> plants, <bytes> bytes, integrity ok`, the backup's line on stdout. */
export const parseBackupLine = (stdout: string): { readonly plants: number; readonly bytes: number } | undefined => {
  const match = /: (\d+) plants, (\d+) bytes, integrity ok\s*$/.exec(stdout.trim());
  return match === null ? undefined : { plants: Number(match[1]), bytes: Number(match[2]) };
};

/** `imported N, already present P, conflicts C, invalid I`, the import's line on stdout. */
export const parseImportLine = (
  stdout: string,
):
  | { readonly created: number; readonly present: number; readonly conflicts: number; readonly invalid: number }
  | undefined => {
  const match = /^imported (\d+), already present (\d+), conflicts (\d+), invalid (\d+)\s*$/m.exec(stdout);
  return match === null
    ? undefined
    : { created: Number(match[1]), present: Number(match[2]), conflicts: Number(match[3]), invalid: Number(match[4]) };
};

/**
 * The rows per table of `moved A → B in X s: plants 1000000, tokens 1, …; counts and checksums
 * match (…)`, the migrate's line on stdout; undefined without the words that say it was verified.
 */
export const parseMigrateLine = (stdout: string): Readonly<Record<string, number>> | undefined => {
  const match = /^moved .* in [\d.]+ s: (.*); counts and checksums match/m.exec(stdout);
  if (match === null) return undefined;
  const counts: Record<string, number> = {};
  for (const part of (match[1] as string).split(', ')) {
    const table = /^([a-z_]+) (\d+)$/.exec(part);
    if (table === null) return undefined;
    counts[table[1] as string] = Number(table[2]);
  }
  return counts;
};

const MIB = 1024 * 1024;
const seconds = (s: number | undefined): string => (s === undefined ? '–' : `${s.toFixed(1)} s`);
const megabytes = (bytes: number | undefined): string => (bytes === undefined ? '–' : `${mb(bytes)} MB`);
const pct = (fraction: number | undefined): string => (fraction === undefined ? '–' : `${Math.round(fraction * 100)}%`);
const noisyOf = (b: BackupFigures): boolean =>
  (b.otherOnServerCore.before ?? 0) > NOISY || (b.otherOnServerCore.during ?? 0) > NOISY;
const ratioOf = (b: BackupFigures | undefined): number | undefined =>
  b === undefined || b.before.rps === 0 ? undefined : b.during.rps / b.before.rps;

type TargetName = 'ratio' | 'slowest' | 'errors' | 'toPostgres' | 'toSqlite' | 'exportRss';

const targetsOf = (f: DataFigures): Readonly<Record<TargetName, TargetCheck>> => {
  const ratio = ratioOf(f.backup);
  const check = (target: string, value: string, met: boolean | undefined, noisy = false): TargetCheck => ({
    target,
    value,
    met,
    noisy,
  });
  // As in the load bench: a window in which other work took much of the server's core measures
  // the neighbours.
  const noisy = f.backup !== undefined && noisyOf(f.backup);
  return {
    ratio: check(
      `creates/s during the backup: ≥ 0.5× just before it (${f.backup?.connections ?? 50} connections)`,
      ratio === undefined ? '–' : `${ratio.toFixed(2)}×`,
      ratio === undefined ? undefined : ratio >= 0.5,
      noisy,
    ),
    slowest: check(
      'slowest request during the backup: < 1 s',
      f.backup === undefined ? '–' : `${ms(f.backup.during.maxMs)} ms`,
      f.backup === undefined ? undefined : f.backup.during.maxMs < 1000,
      noisy,
    ),
    errors: check(
      'no load errors during the backup run',
      f.backup === undefined ? '–' : String(f.backup.errors),
      f.backup === undefined ? undefined : f.backup.errors === 0,
    ),
    toPostgres: check(
      'migrate SQLite → PostgreSQL: ≤ 60 s',
      seconds(f.toPostgres?.seconds),
      f.toPostgres === undefined ? undefined : f.toPostgres.seconds <= 60,
    ),
    toSqlite: check(
      'migrate PostgreSQL → SQLite: ≤ 60 s',
      seconds(f.toSqlite?.seconds),
      f.toSqlite === undefined ? undefined : f.toSqlite.seconds <= 60,
    ),
    exportRss: check(
      'export peak RSS: < 150 MB',
      megabytes(f.export?.maxRss),
      f.export?.maxRss === undefined ? undefined : f.export.maxRss < 150 * MIB,
    ),
  };
};

/** The targets of the data commands, checked against one run's figures (printed, never the exit code). */
export const checkDataTargets = (f: DataFigures): readonly TargetCheck[] => Object.values(targetsOf(f));

const HEADER = ['measurement', 'value', 'peak RSS', 'target', ''];
const RIGHT = new Set([1, 2]);

/** The table's rows: each figure, its command's peak RSS, and its target where it has one. */
export const dataTableCells = (f: DataFigures): string[][] => {
  const n = compact(f.plants);
  const targets = targetsOf(f);
  const status = (name: TargetName): string => {
    const met = targets[name].met;
    return met === undefined ? '–' : met ? 'met' : 'MISSED';
  };
  const b = f.backup;
  const ratio = ratioOf(b);
  return [
    [
      'import (JSON Lines, 1000 a transaction)',
      `${n} in ${seconds(f.import?.seconds)}`,
      megabytes(f.import?.maxRss),
      '',
      '',
    ],
    [
      'export (JSON Lines, to a file)',
      f.export === undefined ? '–' : `${n} in ${seconds(f.export.seconds)}, ${mb(f.export.bytes)} MB`,
      megabytes(f.export?.maxRss),
      '< 150 MB RSS',
      status('exportRss'),
    ],
    [
      'migrate SQLite → PostgreSQL',
      seconds(f.toPostgres?.seconds),
      megabytes(f.toPostgres?.maxRss),
      '≤ 60 s',
      status('toPostgres'),
    ],
    [
      'migrate PostgreSQL → SQLite',
      seconds(f.toSqlite?.seconds),
      megabytes(f.toSqlite?.maxRss),
      '≤ 60 s',
      status('toSqlite'),
    ],
    [
      'backup under load (wall, copy)',
      b === undefined ? '–' : `${seconds(b.seconds)}, ${mb(b.bytes)} MB, ${int(b.plants)} plants`,
      megabytes(b?.maxRss),
      '',
      '',
    ],
    [
      `creates/s before → during → after the backup (${b?.connections ?? 50} conn)`,
      b === undefined ? '–' : `${int(b.before.rps)} → ${int(b.during.rps)} → ${int(b.after.rps)}`,
      '',
      '',
      '',
    ],
    ['creates/s during / before', ratio === undefined ? '–' : `${ratio.toFixed(2)}×`, '', '≥ 0.5×', status('ratio')],
    [
      'slowest request during the backup (p99)',
      b === undefined ? '–' : `${ms(b.during.maxMs)} ms (${ms(b.during.p99Ms)} ms)`,
      '',
      '< 1 s',
      status('slowest'),
    ],
    ['load errors', b === undefined ? '–' : String(b.errors), '', '0', status('errors')],
    [
      "other work on the server's core, before / during",
      b === undefined ? '–' : `${pct(b.otherOnServerCore.before)} / ${pct(b.otherOnServerCore.during)}`,
      '',
      `≤ ${NOISY * 100}%`,
      b === undefined ? '–' : noisyOf(b) ? 'noisy' : 'quiet',
    ],
  ];
};

/** A Markdown table, like the load bench's (renders in the README, reads fine on a terminal). */
export const formatDataTable = (f: DataFigures): string => {
  const cells = [HEADER, ...dataTableCells(f)];
  const widths = HEADER.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    `| ${row.map((cell, i) => (RIGHT.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (RIGHT.has(i) ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(HEADER), rule, ...cells.slice(1).map(line)].join('\n');
};

/** The targets block under the table, in the load bench's words. */
export const formatDataTargets = (checks: readonly TargetCheck[]): string =>
  [
    'data command targets:',
    ...checks.map(
      (c) =>
        `  ${c.met === undefined ? 'n/a ' : c.met ? 'met ' : 'MISS'}  ${c.target}: ${c.value}` +
        (c.noisy ? `  (noisy: other work took over ${NOISY * 100}% of the server's core; rerun)` : ''),
    ),
  ].join('\n');
