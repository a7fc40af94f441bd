import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The other Node lines (`pnpm test:lines` sets PLANT_STORE_TEST_SCOPE=lines; docs/reference/runtime.md
 * § CI on each line): what depends on the runtime runs there, what does not runs on the image's line
 * only. The mirror's model test runs the first sequences of the same fixed seed, which meet the
 * change stream, the client and the CLI on the line, and leaves the depth of the search to the
 * image's line; the plant's travel runs its first 2 batches of the same fixed seed, which meet
 * every path on the line. A MODEL_RUNS or PLANT_STORE_TRAVEL_RUNS set in the environment wins.
 */
const linesScope = process.env['PLANT_STORE_TEST_SCOPE'] === 'lines';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      ...(linesScope
        ? [
            // tsc over the packed declarations: TypeScript, not Node (package-install runs them on the line).
            'test/package-types.e2e.test.ts',
            // Links and paths of the documentation.
            'test/repository-docs.test.ts',
          ]
        : []),
    ],
    env: linesScope
      ? {
          MODEL_RUNS: process.env['MODEL_RUNS'] ?? '5',
          PLANT_STORE_TRAVEL_RUNS: process.env['PLANT_STORE_TRAVEL_RUNS'] ?? '2',
        }
      : {},
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
