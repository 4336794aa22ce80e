import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`; `.ci/run` installs it), or CHROMIUM_PATH. */
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Why the browser cannot be launched here, or undefined when it can; a suite that needs it says
 * so with `describeWith('chromium', …)` (requirements.ts).
 */
export function chromiumUnavailableReason(): string | undefined {
  return existsSync(chromiumPath)
    ? undefined
    : `no browser at ${chromiumPath}: apt-get install chromium (or set CHROMIUM_PATH)`;
}

/** Options of {@link launchChromium}. */
export interface ChromiumOptions {
  /** More command-line switches, e.g. `--host-resolver-rules=MAP lan.test 127.0.0.1`. */
  args?: string[];
}

/**
 * Launches the system chromium headless with a fresh profile, and with the browser's own
 * background traffic (component updates, sync, safe-browsing lists) switched off, so any request
 * the test sees comes from the page: the one launcher of every browser test.
 */
export async function launchChromium(options: ChromiumOptions = {}): Promise<{
  context: BrowserContext;
  close: () => Promise<void>;
}> {
  const unavailable = chromiumUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  // Imported here: a suite that only asks whether a browser is there does not load playwright.
  const { chromium } = await import('playwright-core');
  const userDataDir = await mkdtemp(join(tmpdir(), 'chromium-'));
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
      ...(options.args ?? []),
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
