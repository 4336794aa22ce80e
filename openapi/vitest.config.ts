import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A worker's files share its module cache (nothing here mocks a module or stubs a global).
    isolate: false,
    // The contract diff, the release check and the journeys wait on Redocly, Changesets and a
    // reference server in processes of their own: two files at a time (on 2 cores vitest's
    // default is one).
    maxWorkers: 2,
  },
});
