import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    isolate: false,
    projects: testTiers(),
  },
});
