import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // type-level tests (*.test-d.ts) run through tsc: an unused @ts-expect-error fails them
    typecheck: { enabled: true, tsconfig: './tsconfig.json' },
    // Many files start a reference server, a CLI or npm: seconds each when every workspace's
    // suite shares the machine, which vitest's 5 s does not allow for.
    testTimeout: 30_000,
  },
});
