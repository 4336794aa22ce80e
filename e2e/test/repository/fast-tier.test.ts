/**
 * The fast tier (`npm test`: every `*.test.ts` that is not `*.system.test.ts`) runs in-process
 * (CONTRIBUTING.md): every workspace takes its tiers from the harness's `testTiers`, whose fast
 * tier refuses to start a process (test-support's no-process.ts, tested there), and no test file
 * of it sleeps a fixed time (a test waits for a condition, or injects a clock).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repository } from '../workspaces.js';
import { sourceFiles, workspaceFolders } from './support/source-files.js';

const fastTests = sourceFiles().filter(
  (file) => /\.test\.[cm]?[jt]s$/.test(file.path) && !/\.system\.test\./.test(file.path),
);

describe('the fast tier', () => {
  it("is every workspace's fast project of testTiers, which refuses processes", () => {
    const tiers = readFileSync(join(repository, 'packages/test-support/src/test-tiers.ts'), 'utf8');
    expect(tiers).toMatch(/name: 'fast',[\s\S]*setupFiles: \[noProcess\]/);
    for (const folder of workspaceFolders) {
      const config = join(repository, folder, 'vitest.config.ts');
      if (!existsSync(config)) continue;
      expect(readFileSync(config, 'utf8'), folder).toMatch(/projects: testTiers\(/);
    }
  });

  it('sleeps no fixed time in a test file', () => {
    expect(fastTests.length).toBeGreaterThan(100);
    const sleepers = fastTests
      .filter((file) => /setTimeout\(\s*(resolve|r)\s*,\s*\d/.test(file.text))
      .map((file) => file.path);
    expect(sleepers).toEqual([]);
  });
});
