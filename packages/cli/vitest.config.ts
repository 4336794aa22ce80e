import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Many files start a reference server, the CLI or npm: seconds each when every workspace's
    // suite shares the machine, which vitest's 5 s does not allow for.
    testTimeout: 30_000,
    // Two files at a time (vitest's default is one on two cores): the import's rate-limit test
    // waits out the service's minute, idle, and the other files need not wait behind it.
    maxWorkers: 2,
    projects: testTiers(),
  },
});
