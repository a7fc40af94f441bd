import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, '..');
const vitestBin = join(packageRoot, 'node_modules', 'vitest', 'vitest.mjs');

/** Runs the fixture in a child vitest, PostgreSQL "configured" at a port where nothing listens. */
const runFixture = (ci: boolean): Promise<{ code: number; output: string }> =>
  new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PG_TEST_URL: 'postgres://postgres@127.0.0.1:1/test',
      NO_COLOR: '1',
    };
    delete env['VITEST'];
    delete env['VITEST_POOL_ID'];
    delete env['VITEST_WORKER_ID'];
    if (ci) env['CI'] = 'true';
    else delete env['CI'];
    execFile(
      process.execPath,
      [vitestBin, 'run', '--config', join(here, 'fixtures', 'vitest.config.ts')],
      { cwd: packageRoot, env, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });

describe('describePostgres without a reachable PostgreSQL, and skipOrFail', () => {
  it('skips the block outside CI, saying so in one line', async () => {
    const { code, output } = await runFixture(false);
    expect(code).toBe(0);
    expect(
      output.match(/PostgreSQL tests skipped: no PostgreSQL reachable at postgres:\/\/postgres@127\.0\.0\.1:1\/test/g),
    ).toHaveLength(1);
    expect(output).toMatch(/fixture skipped: no frobnicator installed \(CI=true fails instead\)/);
    expect(output).toMatch(/1 passed/);
    expect(output).toMatch(/2 skipped/);
  });

  it('fails the run with CI=true instead of skipping', async () => {
    const { code, output } = await runFixture(true);
    expect(code).not.toBe(0);
    expect(output).toMatch(/needs PostgreSQL \(CI=true, so this fails instead of skipping\)/);
    expect(output).toMatch(/no PostgreSQL reachable at postgres:\/\/postgres@127\.0\.0\.1:1\/test/);
    expect(output).toMatch(/fixture: no frobnicator installed \(CI=true, so this fails instead of skipping\)/);
    expect(output).toMatch(/2 failed/);
    expect(output).not.toMatch(/(PostgreSQL tests|fixture) skipped:/);
  });
});
