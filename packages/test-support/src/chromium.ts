import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; `.ci/run` installs it), or CHROMIUM_PATH. */
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Whether the browser is there; in CI its absence is a failure, elsewhere a visible skip. */
export const hasChromium = existsSync(chromiumPath);

/**
 * Launches the system chromium headless with a fresh profile, and with the browser's own
 * background traffic (component updates, sync, safe-browsing lists) switched off, so any request
 * the test sees comes from the page.
 */
export async function launchChromium(): Promise<{
  context: BrowserContext;
  close: () => Promise<void>;
}> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'docs-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  // The page is one 2.8 MB file of inline script; while the whole suite runs on a 2-core machine
  // a load has taken more than playwright's default 30 s, so waits are bounded by the tests'
  // own timeouts rather than by that default.
  context.setDefaultNavigationTimeout(150_000);
  context.setDefaultTimeout(90_000);
  return {
    context,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
