import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paths } from './support/paths.js';
import { runNode, tempDir } from './support/processes.js';

// The data commands draw a progress bar only when stderr is a terminal. `script` (util-linux)
// runs the command on a pseudo-terminal, as an operator's shell would.

const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript && process.env['CI'] === 'true')
  throw new Error('`script` (util-linux) is needed for the progress test');
if (!hasScript) console.log('skipping the progress-bar test: no `script` command (util-linux) on this machine');

describe.runIf(hasScript)('plant-store-data progress', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let databaseUrl = '';
  beforeAll(async () => {
    dir = await tempDir('e2e-progress');
    databaseUrl = `sqlite:${dir.path}/store.db`;
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ id: i + 1, name: `Plant ${i + 1}` }));
    writeFileSync(`${dir.path}/plants.jsonl`, lines.join('\n') + '\n');
    const imported = await runNode(paths.dataCli, ['import', `${dir.path}/plants.jsonl`], {
      DATABASE_URL: databaseUrl,
    });
    expect(imported.stdout).toBe('imported 20000, already present 0, conflicts 0, invalid 0\n');
  });
  afterAll(() => dir?.remove());

  it('draws done / total, rate and ETA on a terminal', () => {
    const command = `${process.execPath} ${paths.dataCli} export --output ${dir.path}/out.jsonl`;
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/exporting +\[.*\] 100% \| 20,000 \/ 20,000 \| [\d,]+\/s \| ETA \d+s/);
    expect(run.stdout).toContain(`20000 plants written to ${dir.path}/out.jsonl`);
  });

  it('draws the backup as MiB copied of the store size, from its first frame to 100%', () => {
    const command = `${process.execPath} ${paths.dataCli} backup ${dir.path}/copy.db`;
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    const totals = [...run.stdout.matchAll(/copying +\[.*?\] \d+% \| [\d.]+ MiB \/ ([\d.]+) MiB/g)].map((m) => m[1]);
    expect(totals.length).toBeGreaterThan(0);
    expect(new Set(totals).size).toBe(1);
    expect(Number(totals[0])).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/copying +\[.*\] 100% \|/);
    expect(run.stdout).toContain(`${dir.path}/copy.db: 20000 plants`);
  });

  it('prints only the result when stderr is not a terminal', async () => {
    const run = await runNode(paths.dataCli, ['export', '--output', `${dir.path}/out2.jsonl`], {
      DATABASE_URL: databaseUrl,
    });
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: `20000 plants written to ${dir.path}/out2.jsonl\n` });
  });
});
