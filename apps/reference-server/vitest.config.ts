import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The crash, durability and first-start tests start child processes, and the PostgreSQL suite
    // starts a server of its own, so the defaults are too tight.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
