import { defineConfig } from 'vitest/config';

// Browser tests: Debian's Chromium via playwright-core (see test/e2e/helpers/browser.ts).
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/temp-root.ts'],
    // One browser at a time: the machine is small and Chromium is heavy.
    fileParallelism: false,
  },
});
