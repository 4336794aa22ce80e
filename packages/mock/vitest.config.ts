import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // type-level tests (*.test-d.ts) run through tsc: an unused @ts-expect-error fails them
    typecheck: { enabled: true, tsconfig: './tsconfig.json' },
    // The conformance runs and the differential run drive servers hard: one file at a time.
    fileParallelism: false,
    hookTimeout: 120_000,
  },
});
