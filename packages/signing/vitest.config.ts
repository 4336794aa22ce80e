import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A worker's files share its module cache (nothing here mocks a module; the spies are
    // restored), so each file does not import the package afresh.
    isolate: false,
  },
});
