import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Two projects, each running its files one at a time, side by side (README § Running it):
 *
 * - `timed`: the rounds that hold the server to a bound of time — an answer within the acquire
 *   timeout, `/readyz` within 2 s, writes resumed within 10 s, a shutdown within 8 s, timing
 *   medians, a rate against the same client unloaded — or that measure the machine (the soak,
 *   strace, the WAL under load). One at a time keeps the figures honest on 2 cores.
 * - `untimed`: the rounds whose checks are counts and contents — what a kill -9 kept, what a
 *   history allows, what a hostile request got — with no bound of time but a generous wait for
 *   a process. They run beside the timed ones, so the suite takes about as long as its timed
 *   half instead of both halves one after the other.
 *
 * A new file joins `timed` unless none of its checks is a duration; the list of untimed files is
 * the one kept here.
 */
const untimed = [
  'test/across-instances.test.ts',
  'test/batch-crash.test.ts',
  'test/changes-across-instances.test.ts',
  'test/crash-durability.test.ts',
  'test/hostile-input.test.ts',
  'test/idempotent-retry.test.ts',
  'test/linearizability.test.ts',
  'test/postgres-tls.test.ts',
  'test/registers.test.ts',
  'test/webhooks-crash.test.ts',
];

const project = (name: string, files: { include: string[]; exclude: string[] }): TestProjectInlineConfiguration => ({
  extends: true,
  test: { name, ...files, fileParallelism: false },
});

export default defineConfig({
  test: {
    testTimeout: 300_000,
    hookTimeout: 120_000,
    // One worker for each project: a timed file and an untimed one at a time, never two timed ones.
    maxWorkers: 2,
    projects: [
      project('timed', { include: ['test/**/*.test.ts'], exclude: untimed }),
      project('untimed', { include: untimed, exclude: [] }),
    ],
  },
});
