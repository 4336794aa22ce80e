/**
 * A docs page every reader can use, in a real browser (Debian's chromium through playwright-core),
 * served by a reference server in its sandbox mode: at 1440 and 375 px, in Redoc's light and dark
 * modes, axe (axe-core, run in the page) finds no violation in what the project adds to Redoc's
 * page (the header bar, the "Try it" controls, the console after a `201` and after a diagnosed
 * `401`, the landing table's layout); every pane of the console that scrolls is in the tab order
 * with a name; the header follows the dark mode; the landing table fits a 375 px screen with its
 * code words whole; and the page loads with no Content-Security-Policy violation while Redoc's
 * search still finds a field. Screenshots are saved in `test-results/screenshots/accessibility/`.
 *
 * In CI a missing browser fails the suite; elsewhere the suite is skipped with the reason printed.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '@institution-api/test-support/chromium';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);
const screenshots = fileURLToPath(
  new URL('../../test-results/screenshots/accessibility/', import.meta.url),
);
/** What the project adds to Redoc's page; axe judges these (Redoc's own theme is not ours). */
const additions = [
  '.site-header',
  '.try-it-open',
  '.try-it-dialog',
  '[data-component-name="Markdown/Markdown"] table',
];

/** One axe violation, as the assertion shows it. */
interface Violation {
  rule: string;
  node: string;
  why: string;
}

describeWith('chromium', 'a docs page every reader can use', () => {
  const credential: Credential = {
    institution: 'Docs accessibility test',
    publicKey: `pk_a11y_${randomBytes(6).toString('hex')}`,
    secretKey: randomBytes(24).toString('base64url'),
  };
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let server: RunningServer;

  beforeAll(async () => {
    [browser, server] = await Promise.all([
      launchChromium(),
      startReferenceServer({ credentials: [credential] }),
    ]);
    await mkdir(screenshots, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  describe.each([
    ['light', 1440],
    ['light', 375],
    ['dark', 1440],
    ['dark', 375],
  ] as const)('%s, %i px', (scheme, width) => {
    let page: Page;
    let dialog: Locator;
    const violations: string[] = [];
    const errors: string[] = [];
    const shot = (name: string) => `${screenshots}${scheme}-${width}px-${name}.png`;

    beforeAll(async () => {
      page = await browser.context.newPage();
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      // Injected by the browser's protocol, not by a <script>: the page's policy does not apply.
      await page.addInitScript({ content: axeSource });
      await page.addInitScript(() => {
        // Redoc keeps the last mode in localStorage; each case starts from the system's.
        localStorage.removeItem('redoc.colorMode');
        const seen: string[] = [];
        (window as unknown as { cspViolations: string[] }).cspViolations = seen;
        document.addEventListener('securitypolicyviolation', (event) => {
          seen.push(`${event.effectiveDirective} ${event.blockedURI}`);
        });
      });
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
        if (message.type() === 'error' && !/status of 401/.test(message.text())) {
          errors.push(message.text());
        }
      });
      page.on('pageerror', (error) => errors.push(error.message));
      // The landing text first: Redoc draws the part of the page it is asked for.
      await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
      await page.locator('.site-header').waitFor();
    });
    afterAll(async () => {
      await page?.close();
    });

    /** axe's violations inside the project's additions, as they stand now. */
    async function axeViolations(): Promise<Violation[]> {
      return page.evaluate(async (include) => {
        const present = include.filter((selector) => document.querySelector(selector));
        type AxeResult = {
          violations: { id: string; nodes: { target: string[]; failureSummary?: string }[] }[];
        };
        const { axe } = window as unknown as {
          axe: { run(context: unknown, options: unknown): Promise<AxeResult> };
        };
        const result = await axe.run(
          { include: present.map((selector) => [selector]) },
          { resultTypes: ['violations'] },
        );
        return result.violations.flatMap((violation) =>
          violation.nodes.map((node) => ({
            rule: violation.id,
            node: node.target.join(' '),
            why: node.failureSummary ?? '',
          })),
        );
      }, additions);
    }

    it('follows the mode in the header bar', async () => {
      const colors = await page.locator('.site-header').evaluate((header) => {
        const link = header.querySelector('a') as HTMLElement;
        return {
          dark: document.documentElement.classList.contains('dark'),
          background: getComputedStyle(header).backgroundColor,
          link: getComputedStyle(link).color,
        };
      });
      expect(colors.dark).toBe(scheme === 'dark');
      const background = luminance(colors.background);
      expect(scheme === 'dark' ? background < 0.05 : background > 0.9, colors.background).toBe(
        true,
      );
      expect(contrast(colors.link, colors.background)).toBeGreaterThanOrEqual(4.5);
    });

    it('shows the landing table whole, its code words on one line', async () => {
      const table = page.locator('[data-component-name="Markdown/Markdown"] table').first();
      await table.scrollIntoViewIfNeeded();
      const layout = await table.evaluate((element) => {
        const wrapper = element.parentElement as HTMLElement;
        return {
          tableRight: element.getBoundingClientRect().right,
          wrapperRight: wrapper.getBoundingClientRect().right,
          scrolls: wrapper.scrollWidth > wrapper.clientWidth + 1,
          codeLines: [...element.querySelectorAll('code')].map(
            (code) => code.getClientRects().length,
          ),
        };
      });
      expect(layout.scrolls).toBe(false);
      expect(layout.tableRight).toBeLessThanOrEqual(layout.wrapperRight + 1);
      expect(layout.codeLines.filter((lines) => lines !== 1)).toEqual([]);
      await table.screenshot({ path: shot('landing-table') });
    });

    it('has no axe violation in the page’s additions before the console opens', async () => {
      expect(await axeViolations()).toEqual([]);
      expect(await cspViolationsOf(page), 'the landing page’s load').toEqual([]);
      await page.goto(`${server.url}/docs#/users/createuser`, { waitUntil: 'load' });
      await tryIt(page).waitFor();
      expect(await axeViolations()).toEqual([]);
    });

    it('has no axe violation in the console after a 201, nor after a diagnosed 401', async () => {
      await tryIt(page).click();
      dialog = page.getByRole('dialog');
      await dialog.getByLabel('Public key').fill(credential.publicKey);
      await dialog.getByLabel('Secret key').fill(credential.secretKey);
      // A new user (201), or the one an earlier case made (200).
      await sendAndWait(dialog, /^20[01] /);
      expect(await axeViolations()).toEqual([]);
      await page.screenshot({ path: shot('console-201') });

      // The public key typed as the secret: a mistake the sandbox explains.
      await dialog.getByLabel('Secret key').fill(credential.publicKey);
      await sendAndWait(dialog, /^401 Unauthorized$/);
      expect(await dialog.locator('.try-it-diagnosis').isVisible()).toBe(true);
      expect(await axeViolations()).toEqual([]);
      await page.screenshot({ path: shot('console-401') });
    });

    it('puts every pane that scrolls in the tab order, with a name', async () => {
      const panes = await dialog.evaluate((element) =>
        [...element.querySelectorAll<HTMLElement>('*')]
          .filter((pane) => ['auto', 'scroll'].includes(getComputedStyle(pane).overflowY))
          .filter((pane) => pane.tagName !== 'TEXTAREA')
          .map((pane) => ({
            pane: pane.className,
            tabIndex: pane.tabIndex,
            name: pane.getAttribute('aria-label') ?? '',
          })),
      );
      expect(panes.length).toBeGreaterThanOrEqual(4);
      for (const pane of panes) {
        expect(pane.tabIndex, pane.pane).toBe(0);
        expect(pane.name, pane.pane).not.toBe('');
      }
    });

    it('loaded and ran with no Content-Security-Policy violation, and search still finds a field', async () => {
      await page.keyboard.press('Escape');
      // The search box is in the side menu, which the narrow layout folds away.
      if (width > 1000) {
        await page.locator('[data-testid=search-trigger]').click();
        await page.keyboard.type('ghanaCardNumber');
        const results = page.locator('[data-component-name="Search/SearchItem"]');
        await expect.poll(() => results.count()).toBeGreaterThan(0);
        await page.keyboard.press('Escape');
      }
      expect(await cspViolationsOf(page)).toEqual([]);
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);
    });
  });
});

/** The policy violations the page reported since it loaded (`securitypolicyviolation` events). */
function cspViolationsOf(page: Page): Promise<string[]> {
  return page.evaluate(
    () => (window as unknown as { cspViolations?: string[] }).cspViolations ?? ['no listener'],
  );
}

/** The create operation's "Try it" control. */
function tryIt(page: Page): Locator {
  return page.locator('[id$="/createuser"]').getByRole('button', { name: /^Try it/ });
}

/** Presses Send and waits for the answer's status. */
async function sendAndWait(dialog: Locator, status: RegExp): Promise<void> {
  const history = dialog.getByRole('region', { name: 'History' }).getByRole('listitem');
  const sent = async () => (await history.allInnerTexts()).filter((item) => item.includes('→'));
  const before = (await sent()).length;
  await dialog.getByRole('button', { name: 'Send' }).click();
  await expect.poll(async () => (await sent()).length).toBe(before + 1);
  const shown = dialog.getByRole('region', { name: 'Response' }).locator('.try-it-code-status');
  expect(await shown.innerText()).toMatch(status);
}

/** The relative luminance of a CSS `rgb()` colour (WCAG 2.2). */
function luminance(color: string): number {
  const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  const channel = (value: number) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** The contrast ratio of two CSS `rgb()` colours (WCAG 2.2). */
function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}
