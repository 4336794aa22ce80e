import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The gallery and the clean runs each drive a reference server hard: one file at a time keeps
    // them from competing for the machine's cores with each other.
    fileParallelism: false,
    // Starting a reference server (or PostgreSQL) takes seconds on a quiet machine, and several
    // times that while turbo runs every other workspace's tests beside these.
    hookTimeout: 120_000,
    // The CLI and reproduction tests run bash, curl and the built CLI against a server.
    testTimeout: 30_000,
    projects: testTiers(),
  },
});
