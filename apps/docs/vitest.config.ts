import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Real processes: a reference server per language, tsc, curl, and a browser, run beside the
    // rest of the suite on a 2-core machine (CI once saw a page load take over 30 s).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // A browser settles in its own time (Redoc renders lazily, then scrolls): polls wait for a
    // state rather than sleeping, and on a busy 2-core machine ten seconds were too short.
    expect: { poll: { timeout: 30_000 } },
    projects: testTiers(),
  },
});
