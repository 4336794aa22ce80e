import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: testTiers(),
    // The fresh-clone walk and the image's steps each install and build a copy of the repository,
    // mostly waiting on npm and child processes: side by side, not one after the other.
    maxWorkers: 2,
    // A browser load of the 2.8 MB docs page, an install, a generator or a language's toolchain
    // beside the rest of the system tier on two cores: vitest's 5 s is far too tight.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    expect: { poll: { timeout: 30_000 } },
  },
});
