import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real processes: a reference server per language, tsc, curl, and a browser.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A browser settles in its own time (Redoc renders lazily, then scrolls): polls wait for a
    // state rather than sleeping, and on a busy 2-core machine a second is too short for that.
    expect: { poll: { timeout: 10_000 } },
  },
});
