import { describe, expect, it } from 'vitest';
import {
  checkDataTargets,
  formatDataTable,
  formatDataTargets,
  parseBackupLine,
  parseImportLine,
  parseMigrateLine,
  type BackupFigures,
  type DataFigures,
} from './data-report.js';
import type { WindowStats } from './data-windows.js';

const MIB = 1024 * 1024;
const window = (rps: number, maxMs: number): WindowStats => ({
  seconds: 8,
  responses: rps * 8,
  rps,
  p99Ms: maxMs / 2,
  maxMs,
});
const backup = (over: Partial<BackupFigures> = {}): BackupFigures => ({
  seconds: 4.2,
  maxRss: 90 * MIB,
  bytes: 80 * MIB,
  plants: 1_150_000,
  before: window(20_000, 40),
  during: window(12_000, 300),
  after: window(19_000, 50),
  errors: 0,
  connections: 50,
  walPeak: 30 * MIB,
  otherOnServerCore: { before: 0.02, during: 0.05 },
  backupCore: 'load',
  ...over,
});
const figures = (over: Partial<DataFigures> = {}): DataFigures => ({
  plants: 1_000_000,
  import: { seconds: 24.5, maxRss: 110 * MIB },
  export: { seconds: 1.1, maxRss: 124 * MIB, bytes: 47 * MIB },
  toPostgres: { seconds: 32.7, maxRss: 140 * MIB },
  toSqlite: { seconds: 39.6, maxRss: 130 * MIB },
  backup: backup(),
  ...over,
});

describe('parseBackupLine', () => {
  it('reads the plants and bytes of the checked copy', () => {
    expect(parseBackupLine('/tmp/x/copy.db: 1150000 plants, 83886080 bytes, integrity ok\n')).toEqual({
      plants: 1_150_000,
      bytes: 83_886_080,
    });
  });

  it('gives undefined for anything else', () => {
    expect(parseBackupLine('')).toBeUndefined();
    expect(parseBackupLine('/tmp/x/copy.db: 10 plants, 4096 bytes')).toBeUndefined();
  });
});

describe('parseImportLine', () => {
  it('reads the four counts', () => {
    expect(parseImportLine('imported 1000000, already present 0, conflicts 0, invalid 0\n')).toEqual({
      created: 1_000_000,
      present: 0,
      conflicts: 0,
      invalid: 0,
    });
    expect(parseImportLine('nothing imported')).toBeUndefined();
  });
});

describe('parseMigrateLine', () => {
  it('reads the rows of every table of a verified move', () => {
    const line =
      'moved /tmp/a.db → postgres://postgres@127.0.0.1:5432/bench_1 in 32.7 s: plants 1000000, tokens 1, webhook_endpoints 0; counts and checksums match (plants sha256 0123456789abcdef…)\n';
    expect(parseMigrateLine(line)).toEqual({ plants: 1_000_000, tokens: 1, webhook_endpoints: 0 });
  });

  it('gives undefined when the line does not say the move was verified', () => {
    expect(parseMigrateLine('moved a → b in 1.0 s: plants 10\n')).toBeUndefined();
    expect(parseMigrateLine('moved a → b in 1.0 s: plants ten; counts and checksums match')).toBeUndefined();
  });
});

describe('checkDataTargets', () => {
  it('meets every target with the figures the commands were built to', () => {
    const checks = checkDataTargets(figures());
    expect(checks.map((c) => [c.met, c.value])).toEqual([
      [true, '0.60×'],
      [true, '300 ms'],
      [true, '0'],
      [true, '32.7 s'],
      [true, '39.6 s'],
      [true, '124 MB'],
    ]);
    expect(checks.some((c) => c.noisy)).toBe(false);
  });

  it('misses each target just past its bound', () => {
    const checks = checkDataTargets(
      figures({
        toPostgres: { seconds: 60.1, maxRss: undefined },
        toSqlite: { seconds: 60, maxRss: undefined },
        export: { seconds: 1, maxRss: 150 * MIB, bytes: 1 },
        backup: backup({ during: window(9_999, 1000), errors: 2 }),
      }),
    );
    expect(checks.map((c) => c.met)).toEqual([false, false, false, false, true, false]);
  });

  it('leaves a target it has no figure for undecided', () => {
    const checks = checkDataTargets({ plants: 1000 });
    expect(checks.every((c) => c.met === undefined && c.value === '–')).toBe(true);
  });

  it('marks the backup targets noisy when other work took over a quarter of the server core', () => {
    const checks = checkDataTargets(figures({ backup: backup({ otherOnServerCore: { before: 0.01, during: 0.3 } }) }));
    expect(checks.filter((c) => c.noisy).map((c) => c.target)).toEqual([
      'creates/s during the backup: ≥ 0.5× just before it (50 connections)',
      'slowest request during the backup: < 1 s',
    ]);
  });
});

describe('formatDataTable', () => {
  it('prints a Markdown table with each figure, its target and whether it was met', () => {
    const { export: _, ...noExport } = figures({ toSqlite: { seconds: 61, maxRss: 130 * MIB } });
    const lines = formatDataTable(noExport).split('\n');
    expect(lines).toHaveLength(12);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines[1]).toMatch(/^\|:-+\|-+:\|-+:\|:-+\|:-+\|$/);
    const row = (start: string): string => lines.find((l) => l.startsWith(`| ${start}`)) ?? '';
    expect(row('import')).toContain('1M in 24.5 s');
    expect(row('export')).toMatch(/–.*< 150 MB RSS \| –/);
    expect(row('migrate SQLite → PostgreSQL')).toMatch(/32\.7 s \|\s+140 MB \| ≤ 60 s\s+\| met/);
    expect(row('migrate PostgreSQL → SQLite')).toMatch(/61\.0 s .*\| MISSED/);
    expect(row('backup')).toContain('4.2 s, 80 MB, 1,150,000 plants');
    expect(row('creates/s before')).toContain('20,000 → 12,000 → 19,000');
    expect(row('slowest')).toContain('300 ms (150 ms)');
    expect(row('other work')).toMatch(/2% \/ 5% .*\| quiet/);
  });
});

describe('formatDataTargets', () => {
  it('prints one line per target, MISS for a missed one and the noise warning', () => {
    const text = formatDataTargets(
      checkDataTargets(
        figures({ backup: backup({ during: window(5_000, 1200), otherOnServerCore: { before: 0.4, during: 0 } }) }),
      ),
    );
    expect(text.split('\n')[1]).toBe(
      "  MISS  creates/s during the backup: ≥ 0.5× just before it (50 connections): 0.25×  (noisy: other work took over 25% of the server's core; rerun)",
    );
    expect(text).toContain('  met   migrate SQLite → PostgreSQL: ≤ 60 s: 32.7 s');
  });
});
