import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One PostgreSQL for the system tier's run: each file that needs one takes a database of its
    // own in it (test-support's startPostgresDatabase); the fault tests, which stop it, start
    // their own.
    projects: testTiers({
      system: { globalSetup: ['@institution-api/test-support/postgres-global-setup'] },
    }),
    // A worker's files share its module cache (no file here mocks a module or stubs a global), so
    // each file no longer imports the app and its validators afresh: that was a third of this
    // workspace's CPU time.
    isolate: false,
    // The crash, durability and first-start tests start child processes, and the PostgreSQL suite
    // starts a server of its own, so the defaults are too tight; and beside the rest of the suite
    // on a 2-core machine a test that starts four processes has taken over 30 s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
