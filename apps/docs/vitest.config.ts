import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real processes: a reference server per language, tsc, curl, and a browser.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
