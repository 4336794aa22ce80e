import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The fresh-clone walk (setup.test.mjs) and the image's steps (deploy.test.mjs) each install
    // and build a copy of the repository, mostly waiting on npm and child processes: side by side,
    // not one after the other (on 2 cores vitest's default is a single worker).
    maxWorkers: 2,
    // Each test talks to processes started from the copies (npm start, the image's server) while
    // the other workspaces' suites load both cores: vitest's 5 s is not enough.
    testTimeout: 60_000,
  },
});
