/**
 * The console shows what it signed and why a sandbox refused it, in a real browser (Debian's
 * chromium through playwright-core) against a reference server in its sandbox mode: for each
 * request sent, the exact body bytes (their length and SHA-256), the `Authorization` value and the
 * RFC 9421 signature base, each equal to what the browser put on the wire; before sending, the
 * same for the bytes being typed; and on a sandbox's `401`, its `diagnosis` in words (the public
 * key typed as the secret: `key-misused`; a wrong secret: `no-known-mistake`), never the secret.
 *
 * In CI a missing browser fails the suite; elsewhere the suite is skipped with the reason printed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { signatureBaseFor } from '@institution-api/signing/node';
import { launchChromium } from '@institution-api/test-support/chromium';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { openWatchedPage } from '@institution-api/test-support/watched-page';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Where the screenshots go: test artifacts, git-ignored, kept after the run. */
const screenshots = fileURLToPath(
  new URL('../../test-results/screenshots/console/', import.meta.url),
);

describeWith('chromium', 'what the console signed, and why the sandbox refused it', () => {
  const credential: Credential = {
    institution: 'Docs console diagnosis test',
    publicKey: `pk_console_${randomBytes(6).toString('hex')}`,
    secretKey: randomBytes(24).toString('base64url'),
    messageSignature: 'required',
  };
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let server: RunningServer;
  let page: Page;
  let dialog: Locator;

  beforeAll(async () => {
    [browser, server] = await Promise.all([
      launchChromium(),
      startReferenceServer({ credentials: [credential] }),
    ]);
    page = (
      await openWatchedPage(browser.context, `${server.url}/docs#/users/createuser`, server.url)
    ).page;
    await page.setViewportSize({ width: 1440, height: 900 });
    await mkdir(screenshots, { recursive: true });
    await page
      .locator('[id$="/createuser"]')
      .getByRole('button', { name: /^Try it/ })
      .click();
    dialog = page.getByRole('dialog', { name: /^Try it: Create a user/ });
    await dialog.getByLabel('Public key').fill(credential.publicKey);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Presses Send; resolves to the request the browser sent and the status the console shows. */
  async function send() {
    const history = dialog.getByRole('region', { name: 'History' }).getByRole('listitem');
    const answered = async () =>
      (await history.allInnerTexts()).filter((item) => item.includes('→')).length;
    const before = await answered();
    const sent = page.waitForRequest(
      (request) => request.url().startsWith(server.url) && request.method() === 'POST',
    );
    await dialog.getByRole('button', { name: 'Send' }).click();
    const request = await sent;
    await expect.poll(answered).toBe(before + 1);
    const status = dialog.getByRole('region', { name: 'Response' }).locator('.try-it-code-status');
    return { request, status: await status.innerText() };
  }

  /** A value of a `dl` of the region `region` (Before sending, Signed and sent). */
  function listed(region: string, term: string): Promise<string> {
    return dialog
      .getByRole('region', { name: region })
      .locator(`dt:text-is("${term}") + dd`)
      .innerText();
  }

  it('shows the SHA-256 and the signature base of the bytes before sending', async () => {
    await dialog.getByLabel('Secret key').fill(credential.secretKey);
    const text = await dialog.getByLabel('Request body').inputValue();
    await expect
      .poll(() => listed('Before sending', 'SHA-256'))
      .toBe(createHash('sha256').update(text).digest('hex'));
    await expect
      .poll(() => listed('Before sending', 'Signature base'))
      .toMatch(
        /^"@method": POST\n"@path": \/api\/v1\/external\/users\n"content-digest": sha-256=:[A-Za-z0-9+/]{43}=:\n"@signature-params": \("@method" "@path" "content-digest"\);created=\d+;nonce="[0-9a-f]{32}";keyid="pk_console_[0-9a-f]{12}";alg="hmac-sha256"/,
      );
  });

  it('shows, for the request it sent, its bytes, Authorization and signature base as they went', async () => {
    const { request, status } = await send();
    expect(status).toBe('201 Created');
    const headers = await request.allHeaders();
    const bytes = request.postDataBuffer() ?? Buffer.alloc(0);
    expect(await listed('Signed and sent', 'Body')).toBe(
      `${bytes.length} bytes, SHA-256 ${createHash('sha256').update(bytes).digest('hex')}`,
    );
    expect(await listed('Signed and sent', 'Authorization')).toBe(headers.authorization);
    expect(await listed('Signed and sent', 'Signature base')).toBe(
      signatureBaseFor(
        { method: 'POST', url: request.url(), header: (name) => headers[name] },
        headers['signature-input'] ?? '',
        'sig1',
      ),
    );
  });

  it.each([
    [
      'the public key typed as the secret key',
      () => credential.publicKey,
      'key-misused',
      /The HMAC was keyed with the wrong key\. The Authorization signature is the HMAC keyed with the public key\./,
    ],
    [
      'a wrong secret key',
      () => `${credential.secretKey}-wrong`,
      'no-known-mistake',
      /The server received \d+ bytes \(SHA-256 [0-9a-f]{64}\): the very bytes this console sent\./,
    ],
  ])('on a sandbox 401 for %s, says why in words', async (_, secret, cause, words) => {
    await dialog.getByLabel('Secret key').fill(secret());
    const { status } = await send();
    expect(status).toBe('401 Unauthorized');
    const why = dialog.getByRole('region', { name: 'Response' }).locator('.try-it-diagnosis');
    expect(await why.getByRole('heading').innerText()).toBe(
      `Why: ${cause} (the sandbox’s diagnosis)`,
    );
    expect(await why.innerText()).toMatch(words);
    expect(await dialog.innerText()).not.toContain(credential.secretKey);
    await page.screenshot({
      path: `${screenshots}1440px-diagnosis-${cause}.png`,
    });
  });
});
