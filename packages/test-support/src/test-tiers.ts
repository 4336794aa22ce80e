/**
 * The two tiers of every workspace's tests, as vitest projects: `fast` (what `npm test` runs:
 * pure and in-process tests) and `system` (`npm run test:system`: files named `*.system.test.*`,
 * which need a browser, another language, an npm install, PostgreSQL, another program of the
 * machine, or start a built program of this repository as a process). A workspace's `test` script runs
 * `vitest run --project fast`, its `test:system` script `vitest run --project system`; see
 * CONTRIBUTING.md for which tier a test belongs to.
 */
import { fileURLToPath } from 'node:url';
import { configDefaults, type TestProjectInlineConfiguration } from 'vitest/config';

/** The fast tier's guard against starting a process (no-process.ts). */
const noProcess = fileURLToPath(new URL('./no-process.ts', import.meta.url));

/** What names a system test: `*.system.test.ts`, `.mjs`, … */
export const systemTestPattern = '**/*.system.test.*';

/** The settings each tier adds to the workspace's own. */
export interface TierSettings {
  fast?: TestProjectInlineConfiguration['test'];
  system?: TestProjectInlineConfiguration['test'];
}

/** The `fast` and `system` projects of a workspace, each extending its root settings. */
export function testTiers(settings: TierSettings = {}): TestProjectInlineConfiguration[] {
  return [
    {
      extends: true,
      test: {
        name: 'fast',
        exclude: [...configDefaults.exclude, systemTestPattern],
        // in-process only: a test that starts a process fails, saying where it belongs
        setupFiles: [noProcess],
        ...settings.fast,
      },
    },
    {
      extends: true,
      test: { name: 'system', include: [systemTestPattern], ...settings.system },
    },
  ];
}
