import type { BrowserContext, Locator, Page } from 'playwright-core';

/** A page whose every network request and every error the test can inspect. */
export interface WatchedPage {
  page: Page;
  /** Requests that tried to leave the page (blocked, so nothing actually left). */
  leaving: string[];
  /** Uncaught exceptions and console errors, CSP violations included. */
  errors: string[];
}

/**
 * Opens a new page that lets through only `file:` URLs (the page itself) and, when given, one
 * origin (a server the test started); every other request is blocked and recorded. Data URLs are
 * never requests, so they pass.
 */
export async function openWatchedPage(
  context: BrowserContext,
  url: string,
  allowedOrigin?: string,
): Promise<WatchedPage> {
  const page = await context.newPage();
  const leaving: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const request = route.request();
    const target = request.url();
    if (target.startsWith('file:') || (allowedOrigin && new URL(target).origin === allowedOrigin)) {
      return route.continue();
    }
    leaving.push(`${request.method()} ${target}`);
    return route.abort('blockedbyclient');
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console.error: ${message.text()}`);
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, leaving, errors };
}

/** Where an element sits relative to the viewport, to tell "scrolled to" from "somewhere". */
export function isInViewport(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const { top, bottom } = element.getBoundingClientRect();
    return bottom > 0 && top < window.innerHeight;
  });
}

/** The text of an element as rendered (hidden parts left out), as a reader sees it. */
export function shownText(locator: Locator): Promise<string> {
  return locator.innerText();
}
