import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // type-level tests (*.test-d.ts) run through tsc: an unused @ts-expect-error fails them
    typecheck: { enabled: true, tsconfig: './tsconfig.json' },
    projects: testTiers(),
  },
});
