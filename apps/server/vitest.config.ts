import { postgresAvailable, pgTestUrl } from '@plant-store/testkit';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Two projects (every server test on both stores):
 *
 * - `sqlite`: every test, the HTTP suites over a throwaway SQLite file each.
 * - `postgres`: the store-agnostic HTTP suites again, over a fresh PostgreSQL schema each
 *   (test/http/support.ts reads PLANT_STORE_TEST_STORE). Run one with `vitest run --project postgres`.
 *
 * The skip-or-fail rule, for the whole `postgres` project: when no PostgreSQL answers at
 * PG_TEST_URL, outside CI the project is left out and one line says so; with CI=true it stays in
 * and its set-up file fails each of its test files with the reason.
 */
const reachable = await postgresAvailable();
const inCi = process.env['CI'] === 'true';
const runPostgres = reachable || inCi;
// Vitest evaluates this file more than once per run; the notice is printed once per process.
const noticed = Symbol.for('plant-store.server.postgres-skip-notice');
if (!runPostgres && !(noticed in globalThis)) {
  Object.defineProperty(globalThis, noticed, { value: true });
  // pgTestUrl without its password, as testkit prints it.
  const where = pgTestUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  console.log(
    `PostgreSQL HTTP tests skipped: no PostgreSQL reachable at ${where} (set PG_TEST_URL; CI=true fails instead)`,
  );
}

/**
 * The other Node lines (`pnpm test:lines` sets PLANT_STORE_TEST_SCOPE=lines; docs/reference/runtime.md
 * § CI on each line): what depends on the runtime runs there, what does not runs on the image's line
 * only. Files that exercise nothing of Node are left out; the model and property suites run the
 * first cases of the same fixed seed, which meet every route, driver and stream of the line, and
 * leave the depth of the search to the image's line. A run count set in the environment wins.
 */
const linesScope = process.env['PLANT_STORE_TEST_SCOPE'] === 'lines';
const imageLineOnly = linesScope
  ? [
      // The types openapi-typescript makes of the document, checked by tsc: TypeScript, not Node.
      'test/conformance/generated-client.test.ts',
      // A static page rendered by Chromium; the server's HTTP on the line is met by every other suite.
      'test/browser/docs.browser.test.ts',
      // The configuration reference and .env.example against what the code reads.
      'test/configuration-docs.test.ts',
    ]
  : [];
const lineRuns: Record<string, string> = linesScope
  ? Object.fromEntries(
      Object.entries({ MODEL_RUNS: '10', SEARCH_MODEL_RUNS: '8', PLANT_STORE_CONFORMANCE_RUNS: '200' }).map(
        ([name, runs]) => [name, process.env[name] ?? runs],
      ),
    )
  : {};

const sqlite: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'sqlite',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...imageLineOnly],
    // Set explicitly, so a PLANT_STORE_TEST_STORE left in the shell cannot turn this run into a second PostgreSQL one.
    env: { ...lineRuns, PLANT_STORE_TEST_STORE: 'sqlite' },
  },
};

const postgres: TestProjectInlineConfiguration = {
  extends: true,
  test: {
    name: 'postgres',
    include: ['test/http/*.test.ts', 'test/conformance/*.test.ts'],
    exclude: [
      // Runs dist/main.js as a child process over SQLite files (durability across kill -9 of a
      // SQLite file, the first-run token written into a new file): SQLite by design. apps/e2e
      // and test/http/postgres.test.ts run the server over PostgreSQL.
      'test/http/process.test.ts',
      // Already PostgreSQL only (two instances over one schema), run in `sqlite` through
      // testkit's describePostgres; a second run would add nothing.
      'test/http/postgres.test.ts',
      // Likewise: two instances sharing one rate budget in PostgreSQL (and in Redis).
      'test/http/rate-limit-shared.test.ts',
      // Likewise: one store built on SQLite and on PostgreSQL, their answers compared.
      'test/http/search-stores.test.ts',
      // Compiles a program against the types generated from the document: nothing of the store.
      'test/conformance/generated-client.test.ts',
      ...imageLineOnly,
    ],
    env: { ...lineRuns, PLANT_STORE_TEST_STORE: 'postgres' },
    setupFiles: ['test/http/postgres-setup.ts'],
  },
};

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: runPostgres ? [sqlite, postgres] : [sqlite],
  },
});
