/**
 * The client in a browser (README, "Browsers"), in headless Chromium, against the reference server
 * on another origin with CORS_ALLOW_ORIGINS listing the page's:
 * - from a secure context (a page on http://127.0.0.1), the header fields the README teaches pass
 *   CORS: a create with `X-Request-Id` (`201`, the id readable), `Prefer: code=503` (the forced
 *   `503`, its `Retry-After` readable), an update (`200`);
 * - from a page over plain HTTP on another name (`http://lan.test`, as a LAN address would be),
 *   no `crypto.subtle`: the call resolves with `signing-unavailable`, and nothing is sent.
 * The page is bundled by esbuild for the browser, so the signer is the Web Crypto side.
 */
import { fileURLToPath } from 'node:url';
import { type BrowserPage, serveBrowserPage } from '@institution-api/test-support/browser-page';
import { launchChromium } from '@institution-api/test-support/chromium';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { afterAll, beforeAll, expect, it } from 'vitest';

/** A name that is not localhost, resolved by Chromium to this machine: not a secure context. */
const lanName = 'lan.test';
const credential = {
  institution: 'Browser Bank',
  publicKey: 'pk_browser_test',
  secretKey: 'sk_browser_test_0123456789abcdef',
};

let pages: BrowserPage;
let port: number;
let api: RunningServer;
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;

beforeAll(async () => {
  pages = await serveBrowserPage(fileURLToPath(new URL('./browser/page.ts', import.meta.url)));
  port = pages.port;
  api = await startReferenceServer({
    credentials: [credential],
    env: { CORS_ALLOW_ORIGINS: `http://127.0.0.1:${port},http://${lanName}:${port}` },
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  await pages?.close();
});

/** Opens the page at `origin`; resolves with its results and the requests it sent to the API. */
async function visit(origin: string) {
  browser ??= await launchChromium({ args: [`--host-resolver-rules=MAP ${lanName} 127.0.0.1`] });
  const page = await browser.context.newPage();
  const toApi: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(api.url)) toApi.push(`${request.method()} ${request.url()}`);
  });
  const query = new URLSearchParams({ api: api.url, ...credential });
  await page.goto(`${origin}/?${query}`);
  await page.waitForFunction(() => window.results !== undefined, undefined, { timeout: 60_000 });
  const results = await page.evaluate(() => window.results);
  await page.close();
  return { results, toApi };
}

describeWith('chromium', 'the client in Chromium', () => {
  it('from a secure context on another origin: X-Request-Id and Prefer pass CORS, the answers’ fields are readable', {
    timeout: 120_000,
  }, async () => {
    const { results, toApi } = await visit(`http://127.0.0.1:${port}`);
    expect(results).toEqual({
      secureContext: true,
      subtle: 'object',
      created: 201,
      requestId: 'page-create-1',
      forced: { kind: 'http', message: undefined, status: 503 },
      retryAfter: '1',
      updated: 200,
    });
    // Each call once (retry: false), preflights included: no call failed and was sent again.
    expect(toApi.filter((line) => !line.startsWith('OPTIONS'))).toHaveLength(3);
  });

  it('over plain HTTP from another name than localhost: no Web Crypto, the call resolves with signing-unavailable and sends nothing', {
    timeout: 120_000,
  }, async () => {
    const { results, toApi } = await visit(`http://${lanName}:${port}`);
    expect(results).toEqual({
      secureContext: false,
      subtle: 'undefined',
      created: {
        kind: 'signing-unavailable',
        status: undefined,
        message: expect.stringMatching(
          /Web Crypto \(crypto\.subtle\) is not available[\s\S]*serve the page over HTTPS or from localhost[\s\S]*sign in your backend/,
        ),
      },
    });
    expect(toApi).toEqual([]);
  });
});
