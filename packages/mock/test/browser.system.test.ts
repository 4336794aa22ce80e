/**
 * The mock in a browser: the handlers behind MSW's Service Worker (`setupWorker`) in headless
 * Chromium, called by the client with its Web Crypto signer, answer as in Node: `201`, `200` with
 * the stored details, `409`, a `400` naming the field, a forced `503` with `Retry-After`, a `401`;
 * and, with `allowedOrigins`, a call from this page to another origin that does not list it fails
 * as the browser fails it (a `TypeError`), one that lists it is answered.
 * The page is bundled by esbuild for the browser, so nothing of Node can reach it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type BrowserPage, serveBrowserPage } from '@institution-api/test-support/browser-page';
import { launchChromium } from '@institution-api/test-support/chromium';
import { testWith } from '@institution-api/test-support/requirements';
import { afterAll, beforeAll, expect } from 'vitest';

const worker = fileURLToPath(import.meta.resolve('msw/mockServiceWorker.js'));

let page: BrowserPage;
let url: string;
beforeAll(async () => {
  page = await serveBrowserPage(fileURLToPath(new URL('./browser/page.ts', import.meta.url)), {
    '/mockServiceWorker.js': ['text/javascript', readFileSync(worker, 'utf8')],
  });
  url = page.url;
}, 120_000);
afterAll(() => page?.close());

testWith(
  'chromium',
  'answers in Chromium through MSW’s Service Worker as it does in Node',
  { timeout: 120_000 },
  async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      await page.goto(url);
      await page.waitForFunction(() => window.results !== undefined, undefined, {
        timeout: 60_000,
      });
      expect(await page.evaluate(() => window.results)).toEqual({
        created: 201,
        again: 200,
        storedEmail: 'ama.mensah@example.com',
        refused: 409,
        invalid: [
          {
            path: '/body/mobileNumber',
            message:
              'mobileNumber must be a Ghanaian mobile number (0XXXXXXXXX, 233XXXXXXXXX or +233XXXXXXXXX)',
          },
        ],
        forced: 503,
        retryAfter: '1',
        unsigned: 401,
        crossOriginRefused: 'TypeError',
        crossOriginAllowed: 401,
      });
    } finally {
      await browser.close();
    }
  },
);
