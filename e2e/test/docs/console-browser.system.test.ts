/**
 * The "Try it" console in a real browser (Debian's chromium through playwright-core), on the page
 * a fresh reference server serves at /docs, with that server's keys (which require message
 * signatures, so every request is signed both ways): create from the console
 * (201, "valid"), again (200), update with the prefilled id (200), a wrong secret (401), the curl
 * snippet copied from the page and run with bash (and the TypeScript one compiled and run), the
 * history without secrets, keyboard only (Tab, Enter, Escape), no request beyond the page's
 * origin and no error logged. Also: the page over plain http on a non-local host (no Web Crypto)
 * and the page opened from a file. Screenshots at 1440 and 800 px are saved in
 * `test-results/screenshots/console/` (git-ignored) for a person to look at.
 *
 * In CI a missing browser fails the suite; elsewhere it is skipped, the reason in its name.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  formatAuthorization,
  signSync,
  verifyMessageSignatureSync,
} from '@institution-api/signing/node';
import { launchChromium } from '@institution-api/test-support/chromium';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { run } from '@institution-api/test-support/run-program';
import { createSampleProject } from '@institution-api/test-support/sample-project';
import { pathWithOnly, which } from '@institution-api/test-support/shell-tools';
import {
  isInViewport,
  openWatchedPage,
  type WatchedPage,
} from '@institution-api/test-support/watched-page';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportedFile } from '../workspaces.js';
import { compileAndRun } from './support/typescript-sample.js';

const pageFile = exportedFile('@institution-api/docs/index.html');
/** Where the screenshots go: test artifacts, git-ignored, kept after the run. */
const screenshots = fileURLToPath(
  new URL('../../test-results/screenshots/console/', import.meta.url),
);
const createSummary = /^Try it: Create a user, or add an existing user to the institution$/;
const updateSummary = /^Try it: Update a user$/;

describeWith('chromium', 'the Try it console in chromium', () => {
  const credential: Credential = {
    institution: 'Docs console test',
    publicKey: `pk_console_${randomBytes(6).toString('hex')}`,
    secretKey: randomBytes(24).toString('base64url'),
  };
  // The key requires message signatures: the console, the curl and the TypeScript snippets
  // must each sign both ways, or the server answers 401.
  const requiringMessageSignatures = { ...credential, messageSignature: 'required' as const };
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let server: RunningServer;
  let watched: WatchedPage;
  let page: Page;
  let createdId = '';

  beforeAll(async () => {
    [browser, server] = await Promise.all([
      launchChromium(),
      startReferenceServer({ credentials: [requiringMessageSignatures] }),
    ]);
    context = browser.context;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await mkdir(screenshots, { recursive: true });
    watched = await openWatchedPage(context, `${server.url}/docs#/users/createuser`, server.url);
    page = watched.page;
    await page.setViewportSize({ width: 1440, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('gives each operation a "Try it" control that opens its console over the page, in place', async () => {
    const tryIt = tryItOf(page, 'createUser');
    await expect.poll(() => tryIt.isVisible()).toBe(true);
    await page.screenshot({ path: `${screenshots}1440px-try-it-control.png` });
    const scrolled = await page.evaluate(() => window.scrollY);

    await tryIt.click();
    const dialog = page.getByRole('dialog', { name: createSummary });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    expect(page.url()).toBe(`${server.url}/docs#/users/createuser`);
    // Same origin by default: the reference server serves the page.
    expect(await dialog.getByLabel('Base URL').inputValue()).toBe(server.url);
    // The spec's first named example, exactly as the client would serialize it.
    expect(JSON.parse(await dialog.getByLabel('Request body').inputValue())).toMatchObject({
      accountType: 'MOMO',
    });
  });

  it('shows the exact bytes, their signature and the Authorization header as the reader types', async () => {
    const dialog = page.getByRole('dialog', { name: createSummary });
    await dialog.getByLabel('Public key').fill(credential.publicKey);
    await dialog.getByLabel('Secret key').fill(credential.secretKey);
    const body = dialog.getByLabel('Request body');

    const expectPreviewOf = async (text: string) => {
      const signature = signSync(text, credential.secretKey);
      await expect.poll(() => previewOf(dialog, 'Signature')).toBe(signature);
      expect(await previewOf(dialog, 'Header')).toBe(
        `Authorization: ${formatAuthorization(credential.publicKey, signature)}`,
      );
      expect(await previewOf(dialog, 'Bytes')).toMatch(
        new RegExp(`^${Buffer.byteLength(text)} bytes: the Request body exactly`),
      );
    };
    const example = await body.inputValue();
    await expectPreviewOf(example);
    // The message signature's fields, for the URL the console sends to.
    expect(await previewOf(dialog, 'Message signature')).toMatch(
      /^Content-Digest: sha-256=:[A-Za-z0-9+/]{43}=:\nSignature-Input: sig1=\("@method" "@path" "content-digest"\);created=\d+;nonce="[0-9a-f]{32}";keyid="pk_console_[0-9a-f]{12}";alg="hmac-sha256"\nSignature: sig1=:[A-Za-z0-9+/]{43}=:/,
    );
    await body.press('Control+End');
    await body.pressSequentially(' é');
    await expectPreviewOf(`${example} é`);
    expect(await previewOf(dialog, 'Bytes')).toMatch(/with no final newline/);

    // The picker puts an example back, byte for byte.
    await dialog.getByLabel('Example').selectOption({ index: 0 });
    expect(await body.inputValue()).toBe(example);
    await expectPreviewOf(example);
  });

  it('creates from the console: 201 and "valid", then 200 and "valid" when sent again', async () => {
    const dialog = page.getByRole('dialog', { name: createSummary });
    const createUrl = `${server.url}/api/v1/external/users`;
    const sent = page.waitForRequest((request) => request.url() === createUrl);
    const created = await sendFrom(dialog);
    // What the browser sent: both signatures, the message signature valid for this very request.
    const request = await sent;
    const headers = await request.allHeaders();
    const bytes = request.postDataBuffer() ?? Buffer.alloc(0);
    expect(headers.authorization).toBe(
      formatAuthorization(credential.publicKey, signSync(bytes, credential.secretKey)),
    );
    const verdict = verifyMessageSignatureSync(
      { method: 'POST', url: request.url(), header: (name) => headers[name], body: bytes },
      { keyId: credential.publicKey, secretKey: credential.secretKey },
    );
    expect(verdict).toMatchObject({ status: 'valid' });
    expect(created.status).toBe('201 Created');
    expect(created.verdict).toBe("valid against UserCreated, the spec's schema for 201");
    expect(created.headers).toMatch(/^content-type: application\/json/m);
    const body = JSON.parse(created.body) as { id: string; account: { account_type: string } };
    expect(body.account.account_type).toBe('MOMO');
    createdId = body.id;
    await page.screenshot({ path: `${screenshots}1440px-create-201.png` });

    // Sent again: signed anew (a nonce is accepted once), so not refused as a replay.
    const again = await sendFrom(dialog);
    expect(again.status).toBe('200 OK');
    expect(again.verdict).toBe("valid against UserCreated, the spec's schema for 200");
    expect(JSON.parse(again.body).id).toBe(createdId);
  });

  it('updates with the id prefilled from the create: 200 and "valid"', async () => {
    await page.keyboard.press('Escape');
    await page.goto(`${server.url}/docs#/users/updateuser`);
    await tryItOf(page, 'updateUser').click();
    const dialog = page.getByRole('dialog', { name: updateSummary });
    expect(await dialog.getByLabel('User id').inputValue()).toBe(createdId);
    // The keys typed in the create console are the tab's, not the operation's.
    expect(await dialog.getByLabel('Public key').inputValue()).toBe(credential.publicKey);
    expect(await previewOf(dialog, 'Request')).toBe(
      `PUT ${server.url}/api/v1/external/users/${createdId}`,
    );

    const updated = await sendFrom(dialog);
    expect(updated.status).toBe('200 OK');
    expect(updated.verdict).toBe("valid against UserUpdated, the spec's schema for 200");
    expect(JSON.parse(updated.body)).toMatchObject({
      id: createdId,
      account: { accountType: 'MOMO' },
    });
  });

  it('shows a wrong secret answered 401, the problem valid against the spec', async () => {
    const dialog = page.getByRole('dialog', { name: updateSummary });
    await dialog.getByLabel('Secret key').fill(`${credential.secretKey}-wrong`);
    const refused = await sendFrom(dialog);
    expect(refused.status).toBe('401 Unauthorized');
    expect(refused.verdict).toBe("valid against Problem, the spec's schema for 401");
    expect(JSON.parse(refused.body)).toMatchObject({ status: 401, title: 'Unauthorized' });
    await dialog.getByLabel('Secret key').fill(credential.secretKey);
  });

  it('gives a curl snippet that, copied from the page and run with bash, curl and openssl, answers 200 or 201', async () => {
    const project = await createSampleProject();
    try {
      const tools = await pathWithOnly(join(project.dir, 'bin'), [
        'curl',
        'openssl',
        'awk',
        'date',
      ]);
      const env = {
        INSTITUTION_API_URL: server.url,
        INSTITUTION_PUBLIC_KEY: credential.publicKey,
        INSTITUTION_SECRET_KEY: credential.secretKey,
        USER_ID: createdId,
        PATH: tools,
        HOME: project.dir,
      };
      const runCopied = async (dialog: Locator) => {
        const snippet = await copySnippet(page, dialog, 'curl');
        expect(snippet).not.toContain(credential.secretKey);
        expect(snippet).toContain('$INSTITUTION_SECRET_KEY');
        return run(which('bash'), ['-c', snippet], { cwd: project.dir, env });
      };

      const update = page.getByRole('dialog', { name: updateSummary });
      const updated = await runCopied(update);
      expect(updated.stdout, updated.stderr).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(updated.stdout).toContain(`"id":"${createdId}"`);

      // Create with another example: a new user, 201.
      await page.keyboard.press('Escape');
      await page.goto(`${server.url}/docs#/users/createuser`);
      await tryItOf(page, 'createUser').click();
      const create = page.getByRole('dialog', { name: createSummary });
      await create.getByLabel('Example').selectOption({ label: 'A user with a bank account' });
      const created = await runCopied(create);
      expect(created.stdout, created.stderr).toMatch(/^HTTP\/1\.1 201 Created/);

      // The TypeScript snippet of the same request, compiled against the client and run.
      const typeScript = await copySnippet(page, create, 'TypeScript');
      expect(typeScript).toContain('these same');
      expect(typeScript).not.toContain(credential.secretKey);
      const { compiled, ran } = await compileAndRun(
        { name: 'console', source: typeScript },
        project.dir,
        env,
      );
      expect(compiled.code, compiled.stdout).toBe(0);
      expect(ran?.stdout.trim(), ran?.stderr).toMatch(/^200 [0-9a-f-]{36}$/);
    } finally {
      await project.remove();
    }
  });

  it('lists the requests of this tab without a secret, and keeps the keys only when asked', async () => {
    const dialog = page.getByRole('dialog', { name: createSummary });
    const history = dialog.getByRole('region', { name: 'History' });
    const items = await history.getByRole('listitem').allInnerTexts();
    expect(items).toHaveLength(4);
    expect(items[0]).toMatch(
      /PUT .*\/api\/v1\/external\/users\/.* → 401 Unauthorized, valid, \d+ ms/,
    );
    expect(items.at(-1)).toMatch(/POST .*\/api\/v1\/external\/users → 201 Created, valid/);
    const stored = () => page.evaluate(() => JSON.stringify({ ...sessionStorage }));
    const local = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    for (const text of [items.join('\n'), await stored(), local]) {
      expect(text).not.toContain(credential.secretKey);
      expect(text, 'a signature').not.toMatch(/[0-9a-f]{64}/);
    }
    expect(local).not.toContain(credential.publicKey);

    const remember = dialog.getByRole('checkbox', { name: /^Remember the keys in this tab/ });
    await remember.check();
    expect(await stored()).toContain(credential.secretKey);
    await remember.uncheck();
    expect(await stored()).not.toContain(credential.secretKey);
    expect(page.url()).not.toContain(credential.secretKey);
  });

  it('saves screenshots of the console at 1440 and 800 px, the answer in view after Send', async () => {
    const dialog = page.getByRole('dialog', { name: createSummary });
    for (const width of [1440, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await dialog.evaluate((element) => element.scrollTo(0, 0));
      await page.screenshot({ path: `${screenshots}${width}px-console.png` });
      // At 800 px the answer comes below the form: Send scrolls it into view.
      await sendFrom(dialog);
      const status = dialog
        .getByRole('region', { name: 'Response' })
        .locator('.try-it-code-status');
      await expect.poll(() => isInViewport(status)).toBe(true);
      await page.screenshot({ path: `${screenshots}${width}px-console-after-send.png` });
      for (const section of ['Response', 'Snippets', 'History']) {
        await dialog
          .getByRole('region', { name: section })
          .evaluate((element) => element.scrollIntoView({ block: 'start' }));
        await page.screenshot({
          path: `${screenshots}${width}px-console-${section.toLowerCase()}.png`,
        });
      }
    }
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 800, height: 900 });
    await tryItOf(page, 'createUser').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${screenshots}800px-try-it-control.png` });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('works with the keyboard alone: Tab to the fields, Enter to open and send, Escape to close', async () => {
    // A new tab: nothing typed yet, nothing remembered.
    const keyboard = await openWatchedPage(
      context,
      `${server.url}/docs#/users/createuser`,
      server.url,
    );
    const tab = keyboard.page;
    try {
      const tryIt = tryItOf(tab, 'createUser');
      await tryIt.focus();
      await tab.keyboard.press('Shift+Tab');
      await tab.keyboard.press('Tab');
      expect(await isFocused(tryIt)).toBe(true);

      await tab.keyboard.press('Enter');
      const dialog = tab.getByRole('dialog', { name: createSummary });
      await expect.poll(() => dialog.isVisible()).toBe(true);
      // The base URL is filled in: the first empty field has the focus.
      expect(await isFocused(dialog.getByLabel('Public key'))).toBe(true);
      await tab.keyboard.type(credential.publicKey);
      await tab.keyboard.press('Tab');
      expect(await isFocused(dialog.getByLabel('Secret key'))).toBe(true);
      await tab.keyboard.type(credential.secretKey);
      for (const next of [
        dialog.getByRole('checkbox', { name: /^Remember the keys/ }),
        dialog.getByLabel('Example'),
        dialog.getByLabel('Request body'),
      ]) {
        await tab.keyboard.press('Tab');
        expect(await isFocused(next), String(next)).toBe(true);
      }
      await tab.keyboard.press('Tab');
      expect(await isFocused(dialog.getByRole('button', { name: 'Send' }))).toBe(true);
      await tab.keyboard.press('Enter');
      await expect.poll(() => statusOf(dialog)).toBe('200 OK');

      await tab.keyboard.press('Escape');
      await expect.poll(() => dialog.isVisible()).toBe(false);
      expect(await isFocused(tryIt)).toBe(true);
      expect(keyboard.leaving).toEqual([]);
      expect(keyboard.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('sent no request beyond its own origin and logged no error', () => {
    expect(watched.leaving).toEqual([]);
    // Chromium logs every answer >= 400 to fetch as an error; the wrong secret's 401 was asked for.
    const refused =
      'console.error: Failed to load resource: the server responded with a status of 401 (Unauthorized)';
    expect(watched.errors.filter((error) => error !== refused)).toEqual([]);
  });

  it('says why it cannot sign outside a secure context, and still gives the snippets', async () => {
    // The same page over plain http on a host that is not this machine: no Web Crypto there.
    const html = await (await fetch(`${server.url}/docs`)).text();
    const insecure = await context.newPage();
    const leaving: string[] = [];
    try {
      await insecure.route('**/*', (route) => {
        if (route.request().url() === 'http://docs.example.test/docs') {
          return route.fulfill({ body: html, contentType: 'text/html' });
        }
        leaving.push(route.request().url());
        return route.abort('blockedbyclient');
      });
      await insecure.goto('http://docs.example.test/docs#/users/createuser');
      expect(await insecure.evaluate(() => window.isSecureContext)).toBe(false);
      await tryItOf(insecure, 'createUser').click();
      const dialog = insecure.getByRole('dialog', { name: createSummary });
      expect(await dialog.getByRole('alert').innerText()).toMatch(
        /^This page \(http:\/\/docs\.example\.test\) is not a secure context, so the browser withholds Web Crypto/,
      );
      expect(await dialog.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      expect(await previewOf(dialog, 'Signature')).toMatch(
        /^unavailable: this page is not a secure context/,
      );
      expect(await dialog.getByRole('region', { name: 'curl snippet' }).innerText()).toContain(
        'openssl dgst -sha256',
      );
      await dialog.getByRole('button', { name: 'Copy the curl snippet' }).click();
      await expect
        .poll(() =>
          dialog.getByRole('region', { name: 'curl snippet' }).getByRole('status').innerText(),
        )
        .toBe('Copied.');
      await insecure.screenshot({ path: `${screenshots}1440px-not-a-secure-context.png` });
      expect(leaving).toEqual([]);
    } finally {
      await insecure.close();
    }
  });

  it('says a page opened from a file can call no server, and sends nothing', async () => {
    const file = await openWatchedPage(
      context,
      `${pathToFileURL(pageFile).href}#/users/createuser`,
    );
    try {
      await tryItOf(file.page, 'createUser').click();
      const dialog = file.page.getByRole('dialog', { name: createSummary });
      expect(await dialog.getByLabel('Base URL').inputValue()).toBe('');
      expect(await dialog.getByText(/^This page was opened from a file/).isVisible()).toBe(true);
      expect(await dialog.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      expect(file.leaving).toEqual([]);
      expect(file.errors).toEqual([]);
    } finally {
      await file.page.close();
    }
  });
});

/** An operation's "Try it" control (its accessible name starts with "Try it"). */
function tryItOf(page: Page, operationId: string): Locator {
  return page
    .locator(`[id$="/${operationId.toLowerCase()}"]`)
    .getByRole('button', { name: /^Try it/ });
}

/** A value of the "Before sending" list (Request, Bytes, Signature, Header). */
async function previewOf(dialog: Locator, term: string): Promise<string> {
  const list = dialog.getByRole('region', { name: 'Before sending' });
  return list.locator(`dt:text-is("${term}") + dd`).innerText();
}

function statusOf(dialog: Locator): Promise<string> {
  return dialog
    .getByRole('region', { name: 'Response' })
    .locator('.try-it-code-status')
    .innerText()
    .catch(() => '');
}

/** Presses Send and waits for the answer; resolves to what the Response section shows. */
async function sendFrom(
  dialog: Locator,
): Promise<{ status: string; verdict: string; headers: string; body: string }> {
  const history = dialog.getByRole('region', { name: 'History' }).getByRole('listitem');
  const before = (await history.allInnerTexts()).filter((item) => item.includes('→')).length;
  await dialog.getByRole('button', { name: 'Send' }).click();
  await expect
    .poll(async () => (await history.allInnerTexts()).filter((item) => item.includes('→')).length)
    .toBe(before + 1);
  const response = dialog.getByRole('region', { name: 'Response' });
  const blocks = response.locator('pre');
  return {
    status: await statusOf(dialog),
    verdict: await response.locator('.try-it-verdict').innerText(),
    headers: await blocks.nth(0).innerText(),
    body: await blocks.nth(1).innerText(),
  };
}

/** Presses a snippet's copy button and resolves to what the clipboard then holds. */
async function copySnippet(page: Page, dialog: Locator, language: string): Promise<string> {
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await dialog.getByRole('button', { name: `Copy the ${language} snippet` }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).not.toBe('');
  return page.evaluate(() => navigator.clipboard.readText());
}

function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === document.activeElement);
}
