/**
 * `institution-api sign-proxy` against a real browser (spec Assumptions, "Tools that sign for a
 * caller"): a page of another site, and a page of another port of this machine (the same site),
 * that make Chromium send the proxy an `<img>` GET, a no-cors POST and a no-cors GET, none of
 * which a browser asks the proxy about first. Each is answered `403` and nothing reaches the
 * service: the proxy reads the browser's `Origin` and `Sec-Fetch-Site`, whatever the method. A
 * tool that is not a browser, on the same proxy, is signed and forwarded.
 */
import { fileURLToPath } from 'node:url';
import { type BrowserPage, serveBrowserPage } from '@institution-api/test-support/browser-page';
import { launchChromium } from '@institution-api/test-support/chromium';
import {
  type ListeningProcess,
  startListeningProcess,
} from '@institution-api/test-support/listening-process';
import { startServer, type TestServer } from '@institution-api/test-support/recording-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { testKeys } from '@institution-api/test-support/test-keys';
import { waitFor } from '@institution-api/test-support/wait-for';
import { afterAll, beforeAll, expect, it } from 'vitest';

const launcher = fileURLToPath(new URL('../bin/institution-api.js', import.meta.url));

describeWith('chromium', 'sign-proxy and a page of another origin in Chromium', () => {
  let service: TestServer;
  let proxy: ListeningProcess;
  let page: BrowserPage;
  beforeAll(async () => {
    service = await startServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"signed":true}');
    });
    proxy = await startListeningProcess([launcher, 'sign-proxy', '--port', '0'], {
      ...process.env,
      INSTITUTION_API_URL: service.url,
      INSTITUTION_PUBLIC_KEY: testKeys.publicKey,
      INSTITUTION_SECRET_KEY: testKeys.secretKey,
    });
    page = await serveBrowserPage(
      fileURLToPath(new URL('./sign-proxy-browser/page.ts', import.meta.url)),
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all([proxy?.stop(), page?.close(), service?.close()]);
  });

  it.each([
    // A name of another site, which the browser resolves to this machine.
    ['another site', 'attacker.test', 'cross-site'],
    // 127.0.0.1 on another port: another origin of the same site.
    ['another port of this machine', '127.0.0.1', 'same-site'],
  ])(
    'a page of %s: its <img> GET, no-cors POST and no-cors GET are refused 403, none signed or forwarded',
    { timeout: 120_000 },
    async (_, pageHost, site) => {
      const browser = await launchChromium({
        args: ['--host-resolver-rules=MAP attacker.test 127.0.0.1'],
      });
      try {
        const tab = await browser.context.newPage();
        const logged = proxy.output().length;
        const sent = service.requests.length;
        await tab.goto(
          `http://${pageHost}:${page.port}/?proxy=${encodeURIComponent(proxy.url.replace(/\/$/, ''))}`,
        );
        await tab.waitForFunction(() => window.done === true, undefined, { timeout: 60_000 });
        // The proxy's own account: one line per request it answered (the browser may hide a
        // refused answer from the page and from its tools, as it does a JSON one to an <img>).
        const lines = await waitFor(
          () => {
            const found = proxy
              .output()
              .slice(logged)
              .split('\n')
              .filter((line) => line.includes(' /api/v1/external/users'));
            return found.length >= 3 && found;
          },
          { timeoutMs: 30_000, message: 'three requests of the page at the proxy' },
        );
        expect(
          lines.map((line) => line.replace(/^.*?: | \(not forwarded: .*\)$/g, '')).sort(),
        ).toEqual([
          'GET /api/v1/external/users/from-an-img?userId=1 -> 403',
          'GET /api/v1/external/users/from-fetch -> 403',
          'POST /api/v1/external/users -> 403',
        ]);
        for (const line of lines) expect(line).toMatch(/\(not forwarded: (Origin|Sec-Fetch-Site) /);
        expect(lines.join('\n')).toContain(`Sec-Fetch-Site "${site}"`);
        expect(service.requests.slice(sent)).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );

  it('a tool that is not a browser, on the same proxy, is signed and forwarded', async () => {
    const answer = await fetch(`${proxy.url.replace(/\/$/, '')}/api/v1/external/users/x`);
    expect(answer.status).toBe(200);
    expect(service.requests.at(-1)?.headers.authorization).toMatch(
      new RegExp(`^${testKeys.publicKey}:`),
    );
  });
});
