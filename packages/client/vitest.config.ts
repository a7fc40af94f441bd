import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // property tests run thousands of cases; CI shares 2 cores with every other package's tests
    testTimeout: 30_000,
  },
});
