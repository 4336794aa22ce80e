import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A worker's files share its module cache (nothing here mocks a module; the spies are
    // restored), so each file does not import the package afresh.
    isolate: false,
    // The vector runners wait on javac, go, python3 and php: two files at a time (on 2 cores
    // vitest's default is one).
    maxWorkers: 2,
  },
});
