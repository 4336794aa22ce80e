import { testTiers } from '@institution-api/test-support/test-tiers';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // type-level tests (*.test-d.ts) run through tsc: an unused @ts-expect-error fails them
    typecheck: { enabled: true, tsconfig: './tsconfig.json' },
    // The conformance runs and the differential run drive servers hard: one file at a time.
    fileParallelism: false,
    hookTimeout: 120_000,
    // A mock's first request loads Ajv and compiles the spec's schemas (about 1 s, several under
    // load): the first test of a file pays it.
    testTimeout: 30_000,
    projects: testTiers({ system: { typecheck: { enabled: false } } }),
  },
});
