import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    // the suites start servers and load them; one at a time keeps the figures honest on 2 cores
    fileParallelism: false,
  },
});
