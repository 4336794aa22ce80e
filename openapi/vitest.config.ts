import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A worker's files share its module cache (nothing here mocks a module or stubs a global).
    isolate: false,
    projects: testTiers(),
  },
});
