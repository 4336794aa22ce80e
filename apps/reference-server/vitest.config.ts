import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file opens its own in-memory PGlite (about a second to start) and the crash test starts
    // the built server twice, so the defaults are too tight.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
