import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // type-level tests (*.test-d.ts) run through tsc: an unused @ts-expect-error fails them
    typecheck: { enabled: true, tsconfig: './tsconfig.json' },
    // The pack-and-install, runtime and sign-proxy files wait on npm, child processes and servers:
    // two at a time (on 2 cores vitest's default is one).
    maxWorkers: 2,
  },
});
