/**
 * The built page in a real browser (Debian's chromium through playwright-core): opened from
 * disk with every non-file request blocked and recorded, it must hydrate, navigate, show both
 * operations with both response shapes, the security scheme and the assumptions, and find a field
 * by search, while no request leaves and nothing is logged as an error. Served by the reference
 * server at /docs, it must work the same and its download links must reach the spec.
 *
 * At 1440 and 800 px wide (three-panel and stacked layouts) it must show the landing table, the
 * signing guide, the Servers panel and every code sample whole: no code word split, no code block
 * clipped, no sample line under the copy button. Screenshots of each are saved in
 * `test-results/screenshots/` (git-ignored) for a person to look at.
 *
 * In CI a missing browser fails the suite; elsewhere it is skipped, the reason in its name.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { pathToFileURL, fileURLToPath as toPath } from 'node:url';
import { componentName } from '@institution-api/runtime/spec';
import { launchChromium } from '@institution-api/test-support/chromium';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import {
  isInViewport,
  openWatchedPage,
  shownText,
  type WatchedPage,
} from '@institution-api/test-support/watched-page';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedFile } from '../workspaces.js';

const pageFile = exportedFile('@institution-api/docs/index.html');
/** Where the screenshots go: test artifacts, git-ignored, kept after the run. */
/** The contract's version in the last release: the changelog lists its changes. */
const releasedContract: string = JSON.parse(
  readFileSync(new URL('../../../released/versions.json', import.meta.url), 'utf8'),
)['@institution-api/types'];
const screenshots = toPath(new URL('../../test-results/screenshots/', import.meta.url));
const spec = JSON.parse(
  readFileSync(exportedFile('@institution-api/docs/openapi.json'), 'utf8'),
) as BundledSpec;

interface BundledSpec {
  paths: Record<string, Record<string, Operation>>;
  components: { examples: Record<string, { value: { id: string } }> };
}
interface Operation {
  summary: string;
  responses: Record<
    string,
    { content?: Record<string, { examples?: Record<string, { $ref?: string }> }> }
  >;
}

const createUser = spec.paths['/api/v1/external/users']?.post as Operation;
const updateUser = spec.paths['/api/v1/external/users/{id}']?.put as Operation;

/** The id in the named example the spec gives for a status, to recognize it on the page. */
function exampleId(operation: Operation, status: string): string {
  const examples = operation.responses[status]?.content?.['application/json']?.examples ?? {};
  const [name, example] = Object.entries(examples)[0] ?? [];
  const component = componentName(example, 'examples') ?? name ?? '';
  const id = spec.components.examples[component]?.value.id;
  if (!id) throw new Error(`no named ${status} example on ${operation.summary}`);
  return id;
}

describeWith('chromium', 'the docs page in chromium', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;

  beforeAll(async () => {
    browser = await launchChromium();
    context = browser.context;
    await mkdir(screenshots, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe('opened as a file, offline', () => {
    let watched: WatchedPage;
    let page: Page;

    beforeAll(async () => {
      watched = await openWatchedPage(context, pathToFileURL(pageFile).href);
      page = watched.page;
    });

    it('hydrates: the side menu navigates (hash route) and scrolls to the operation', async () => {
      await sideMenuLink(page, /^Users/).click();
      await expect.poll(() => page.url()).toMatch(/#\/users$/);
      await sideMenuLink(page, /^Update a user/).click();
      await expect.poll(() => page.url()).toMatch(/#\/users\/updateuser$/);
      await expect.poll(() => isInViewport(heading(page, updateUser.summary))).toBe(true);
    });

    it('shows both operations', async () => {
      for (const { summary } of [createUser, updateUser]) {
        const title = heading(page, summary);
        await title.scrollIntoViewIfNeeded();
        expect(await title.isVisible(), summary).toBe(true);
      }
    });

    it("shows create's 201 and 200 examples in the create shape, and update's 200 in the update shape", async () => {
      const [createPanel, updatePanel] = [responsePanel(page, 0), responsePanel(page, 1)];

      const created = await showResponse(createPanel, '201', exampleId(createUser, '201'));
      expect(created).toContain('"account_type"');
      expect(created).toContain('"userImage"');

      const added = await showResponse(createPanel, '200', exampleId(createUser, '200'));
      expect(added).toContain('"account_type"');

      const updated = await showResponse(updatePanel, '200', exampleId(updateUser, '200'));
      expect(updated).toContain('"accountType"');
      expect(updated).toContain('"image"');
      expect(updated).not.toContain('"account_type"');
      expect(updated).not.toContain('"userImage"');
    });

    it('shows the curl and TypeScript code samples of both operations', async () => {
      const samplesOf = (path: string) =>
        page.locator('.panel-request-samples').filter({ hasText: path }).first();
      const switchLanguage = async (panel: Locator, from: string, to: string) => {
        await panel.getByRole('button', { name: from, exact: true }).click();
        await page.getByRole('menuitem', { name: to, exact: true }).click();
      };

      await page.goto(`${pathToFileURL(pageFile).href}#/users/createuser`);
      const create = samplesOf('/api/v1/external/users');
      await expect.poll(() => shownText(create)).toContain('openssl dgst -sha256');
      await switchLanguage(create, 'curl', 'TypeScript');
      await expect.poll(() => shownText(create)).toContain('await users.createUser({');

      // The chosen language holds across operations.
      await page.goto(`${pathToFileURL(pageFile).href}#/users/updateuser`);
      const update = samplesOf('/api/v1/external/users/{id}');
      await expect.poll(() => shownText(update)).toContain('await users.updateUser(userId, {');
      await switchLanguage(update, 'TypeScript', 'curl');
      await expect
        .poll(() => shownText(update))
        .toContain('curl -i -X PUT --data-binary @user.json');
    });

    it("links the signing guide to each operation's samples", async () => {
      for (const [route, path] of [
        ['#/users/createuser', '/api/v1/external/users'],
        ['#/users/updateuser', '/api/v1/external/users/{id}'],
      ] as const) {
        await page.goto(`${pathToFileURL(pageFile).href}#/section/signing-requests`);
        const link = page.locator(`[data-component-name="Markdown/Markdown"] a[href="${route}"]`);
        await link.first().scrollIntoViewIfNeeded();
        await link.first().click();
        await expect.poll(() => page.url()).toMatch(new RegExp(`${route}$`));
        const panel = page.locator('.panel-request-samples').filter({ hasText: path }).first();
        await expect.poll(() => isInViewport(panel)).toBe(true);
      }
    });

    it('shows the security scheme and the Assumptions section', async () => {
      const security = page.getByText('InstitutionSignature', { exact: true }).first();
      await security.scrollIntoViewIfNeeded();
      expect(await security.isVisible()).toBe(true);

      await sideMenuLink(page, /^Assumptions/).click();
      await expect.poll(() => page.url()).toMatch(/#\/section\/assumptions$/);
      await expect.poll(() => isInViewport(heading(page, 'Assumptions'))).toBe(true);
      expect(await page.getByText('Existing users', { exact: true }).first().isVisible()).toBe(
        true,
      );
    });

    it('finds ghanaCardNumber with the search box', async () => {
      await page.locator('[data-testid=search-trigger]').click();
      await page.keyboard.type('ghanaCardNumber');
      const results = page.locator('[data-component-name="Search/SearchItem"]');
      await expect.poll(() => results.count()).toBeGreaterThan(0);
      expect(await shownText(results.first())).toContain('ghanaCardNumber');

      await page.screenshot({ path: `${screenshots}search-ghanaCardNumber.png` });
      await page.keyboard.press('Escape');
    });

    it('links each operation to the journeys that take it, rendered as Arazzo workflows', async () => {
      await page.goto(`${pathToFileURL(pageFile).href}#/users/updateuser`);
      const link = page.locator(
        '[data-component-name="Markdown/Markdown"] a[href="#/section/journeys/updating-details"]',
      );
      await link.first().scrollIntoViewIfNeeded();
      await link.first().click();
      await expect.poll(() => page.url()).toMatch(/#\/section\/journeys\/updating-details$/);
      await expect.poll(() => isInViewport(heading(page, 'Updating details'))).toBe(true);
      const workflow = page.getByText('update-details.arazzo.yaml').first();
      expect(await workflow.isVisible()).toBe(true);
    });

    it('sent no request off the page and logged no error', async () => {
      await page.goto(`${pathToFileURL(pageFile).href}#/users/createuser`);
      await page.reload();
      await showResponse(responsePanel(page, 0), '201', exampleId(createUser, '201'));
      await page.screenshot({ path: `${screenshots}create-user.png` });

      expect(watched.leaving).toEqual([]);
      expect(watched.errors).toEqual([]);
    });
  });

  describe.each([1440, 800])('at %i px wide', (width) => {
    let watched: WatchedPage;
    let page: Page;
    const shot = (name: string) => `${screenshots}${width}px-${name}.png`;

    beforeAll(async () => {
      watched = await openWatchedPage(context, pathToFileURL(pageFile).href);
      page = watched.page;
      await page.setViewportSize({ width, height: 900 });
    });
    afterAll(async () => {
      await page?.close();
    });

    it('keeps the code words of the landing table whole', async () => {
      const table = page.locator('[data-component-name="Markdown/Markdown"] table').first();
      await table.scrollIntoViewIfNeeded();
      await page.screenshot({ path: shot('landing') });
      await table.screenshot({ path: shot('landing-table') });

      const words = await table
        .locator('code')
        .evaluateAll((codes) =>
          codes.map((code) => ({ text: code.textContent, lines: code.getClientRects().length })),
        );
      expect(words.map(({ text }) => text)).toEqual(
        expect.arrayContaining(['documents', 'monthlyIncome', 'userImage', 'account_number']),
      );
      expect(words.filter(({ lines }) => lines !== 1)).toEqual([]);
    });

    it('shows the signing guide whole: no code block clipped, the signature on one line', async () => {
      const title = heading(page, 'Signing requests');
      await title.scrollIntoViewIfNeeded();
      await page.evaluate(() => window.scrollBy(0, -16));
      await page.screenshot({ path: shot('signing') });
      const signature = page
        .locator('[data-component-name="Markdown/Markdown"] :is(code, pre)')
        .filter({ hasText: /^\s*[0-9a-f]{64}\s*$/ });
      await signature.first().evaluate((element) => element.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: shot('signing-example') });

      expect(await signature.count()).toBeGreaterThan(0);
      expect((await linesOfEach(signature)).filter(({ boxes }) => boxes !== 1)).toEqual([]);
      // Every code block of the landing text (quick start, signing guide) shows its whole width.
      const blocks = page.locator('[data-component-name="Markdown/Markdown"] pre');
      expect(await blocks.count()).toBeGreaterThan(4);
      expect(await hiddenWidths(blocks)).toEqual([]);
    });

    it('shows the Servers text as plain text, without Markdown backticks', async () => {
      const servers = page
        .locator('[data-component-name="Panel/Panel"]')
        .filter({
          has: page.locator('[data-component-name="Panel/PanelHeaderTitle"]', {
            hasText: /^Servers$/,
          }),
        })
        .first();
      await servers.scrollIntoViewIfNeeded();
      await servers.screenshot({ path: shot('servers') });
      const text = await shownText(servers);
      expect(text).toContain('http://localhost:8080');
      expect(text).not.toContain('`');
    });

    it.each([
      ['createUser', '#/users/createuser', '/api/v1/external/users'],
      ['updateUser', '#/users/updateuser', '/api/v1/external/users/{id}'],
    ])('shows the whole code sample of %s in every language', async (operationId, route, path) => {
      await page.goto(`${pathToFileURL(pageFile).href}${route}`);
      const panel = page.locator('.panel-request-samples').filter({ hasText: path }).first();
      for (const [lang, { firstLine: first, shows }] of Object.entries(sampleLanguages)) {
        await chooseLanguage(page, panel, lang);
        const code = panel.locator('[data-component-name="CodeBlock/CodeBlockContainer"]');
        await expect.poll(() => shownText(code)).toContain(shows);
        await panel.scrollIntoViewIfNeeded();
        await panel.screenshot({ path: shot(`${operationId}-${lang}`) });

        // The first line (the reader's instructions) is not under the copy button, and nothing
        // hides past the right edge.
        const firstLine = code.locator('.line').first();
        expect(await shownText(firstLine)).toMatch(first);
        expect(await isUncovered(firstLine)).toBe(true);
        expect(await hiddenWidths(code)).toEqual([]);
        // The samples other than TypeScript's (whose import may wrap at 800 px) are written to
        // fit: no line wraps, so each break a reader sees is a real one.
        if (lang !== 'TypeScript') {
          const lines = await linesOfEach(code.locator('.line'));
          expect(lines.length).toBeGreaterThan(10);
          // a blank line has no line box at all
          expect(lines.filter(({ boxes }) => boxes > 1)).toEqual([]);
        }
        // The curl sample's last line (what the answer will be) shows without scrolling.
        if (lang === 'curl') {
          expect(await code.evaluate((pre) => pre.scrollHeight - pre.clientHeight)).toBeLessThan(2);
        }
      }
    });

    it('sent no request off the page and logged no error', () => {
      expect(watched.leaving).toEqual([]);
      expect(watched.errors).toEqual([]);
    });
  });

  describe('served by the reference server at /docs', () => {
    let server: RunningServer;
    let watched: WatchedPage;

    beforeAll(async () => {
      server = await startReferenceServer({
        credentials: [
          {
            institution: 'Docs browser test',
            publicKey: `pk_docs_${randomBytes(6).toString('hex')}`,
            secretKey: randomBytes(24).toString('base64url'),
          },
        ],
      });
      watched = await openWatchedPage(context, `${server.url}/docs`, server.url);
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('navigates with hash routes that stay on /docs', async () => {
      const { page } = watched;
      await sideMenuLink(page, /^Users/).click();
      await expect.poll(() => page.url()).toBe(`${server.url}/docs#/users`);
    });

    it('links the spec downloads relative to the page, to files the server serves', async () => {
      const links = await watched.page
        .locator('a[download]')
        .evaluateAll((anchors) => anchors.map((anchor) => (anchor as HTMLAnchorElement).href));
      expect(new Set(links)).toEqual(
        new Set([
          `${server.url}/openapi.yaml`,
          `${server.url}/openapi.json`,
          `${server.url}/institution-api.postman_collection.json`,
        ]),
      );
      for (const link of new Set(links)) {
        const answer = await fetch(link);
        expect(answer.status, link).toBe(200);
        expect(await answer.text()).toMatch(
          link.endsWith('postman_collection.json') ? /"item": \[/ : /3\.1\.0/,
        );
      }
    });

    it('links the changelog from its header: the contract’s changes in words, served beside it', async () => {
      const changelog = await context.newPage();
      try {
        await changelog.goto(`${server.url}/docs`, { waitUntil: 'load' });
        await changelog
          .getByRole('navigation', { name: 'Site' })
          .getByRole('link', { name: 'Changelog' })
          .click();
        await expect.poll(() => changelog.url()).toBe(`${server.url}/changelog.html`);
        await expect
          .poll(() => changelog.getByRole('heading', { level: 1 }).innerText())
          .toBe('Changelog of the contract');
        // The last release (released/versions.json), its changes in words: 1.1.0 added the server.
        const release = changelog.locator(`section[id="v${releasedContract}"]`);
        expect(await release.innerText()).toMatch(
          /COMPATIBLE\s+Server http:\/\/localhost:8080: added\./,
        );
        await expect
          .poll(() =>
            changelog.locator('#unreleased').getByRole('heading', { level: 2 }).innerText(),
          )
          .toMatch(/^Not released yet/);
        await mkdir(screenshots, { recursive: true });
        await changelog.screenshot({ path: `${screenshots}changelog.png`, fullPage: true });
        // Back to the reference: the server's root leads to /docs.
        await changelog.getByRole('link', { name: 'API reference' }).click();
        await expect.poll(() => changelog.url()).toBe(`${server.url}/docs`);
      } finally {
        await changelog.close();
      }
    });

    it('sent no request beyond its own server and logged no error', () => {
      expect(watched.leaving).toEqual([]);
      expect(watched.errors).toEqual([]);
    });
  });
});

function sideMenuLink(page: Page, text: RegExp): Locator {
  return page.locator('[data-component-name="Menu/Menu"] a', { hasText: text }).first();
}

/** An operation's or section's heading, by its exact text (deep-link anchors add no text). */
function heading(page: Page, text: string): Locator {
  return page
    .locator('h1, h2')
    .filter({ hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) })
    .first();
}

function rightPanels(page: Page): Locator {
  return page.locator('[data-testid=right-panel] [data-component-name="Panel/Panel"]');
}

/** The n-th "Response" samples panel (0: create, 1: update, in document order). */
function responsePanel(page: Page, index: number): Locator {
  return rightPanels(page)
    .filter({
      has: page.locator('[data-component-name="Panel/PanelHeaderTitle"]', { hasText: 'Response' }),
    })
    .nth(index);
}

/**
 * Selects a status in a response panel and returns the JSON it then shows, once it shows the
 * named example with this id (the spec's example for that status).
 */
async function showResponse(panel: Locator, status: string, exampleId: string): Promise<string> {
  await panel.scrollIntoViewIfNeeded();
  await panel.getByRole('button', { name: status, exact: true }).click();
  const json = panel.locator('[data-testid=json-viewer]');
  await expect.poll(() => shownText(json)).toContain(exampleId);
  return shownText(json);
}

/**
 * The languages of the request samples panel, in its order, each with its sample's first line
 * (the reader's instructions, or the import) and a text only its samples show.
 */
const sampleLanguages: Record<string, { firstLine: RegExp; shows: string }> = {
  curl: { firstLine: /^# Needs bash/, shows: 'curl -i' },
  TypeScript: { firstLine: /^import/, shows: 'await' },
  Python: { firstLine: /^# Needs Python 3/, shows: 'urllib.request.Request(' },
  PHP: { firstLine: /^<\?php/, shows: 'hash_hmac(' },
  Go: { firstLine: /^\/\/ Needs Go 1\.19/, shows: 'hmac.New(sha256.New' },
  Java: { firstLine: /^\/\/ Needs Java 17/, shows: 'Mac.getInstance("HmacSHA256")' },
};

/** Picks a language in a request samples panel, whichever one it shows now. */
async function chooseLanguage(page: Page, panel: Locator, lang: string): Promise<void> {
  const names = [...Object.keys(sampleLanguages), 'Payload'].join('|');
  const menu = panel.getByRole('button', { name: new RegExp(`^(${names})$`) }).first();
  if ((await menu.innerText()).trim() === lang) return;
  await menu.click();
  await page.getByRole('menuitem', { name: lang, exact: true }).click();
  await expect.poll(async () => (await menu.innerText()).trim()).toBe(lang);
}

/** On how many lines each element's text is laid out (distinct line boxes of its text). */
function linesOfEach(locator: Locator): Promise<{ text: string; boxes: number }[]> {
  // One round trip for every element: a code sample has dozens of lines.
  return locator.evaluateAll((elements) =>
    elements.map((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const tops = [...range.getClientRects()]
        .filter((rect) => rect.width > 0)
        .map((rect) => Math.round(rect.top));
      return { text: element.textContent ?? '', boxes: new Set(tops).size };
    }),
  );
}

/** The elements that hide part of their content behind a horizontal scroll, with how much. */
function hiddenWidths(locator: Locator): Promise<string[]> {
  return locator.evaluateAll((elements) =>
    elements
      .filter((element) => element.scrollWidth > element.clientWidth + 1)
      .map(
        (element) =>
          `${element.scrollWidth - element.clientWidth}px hidden of: ${element.textContent?.slice(0, 60)}`,
      ),
  );
}

/**
 * Whether the first and last characters of an element's text are what the browser shows at
 * their places (not covered by another element, such as a copy button, nor scrolled away).
 */
async function isUncovered(locator: Locator): Promise<boolean> {
  await locator.scrollIntoViewIfNeeded();
  return locator.evaluate((element) => {
    const texts: Text[] = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) texts.push(walker.currentNode as Text);
    const first = texts.find((text) => text.length > 0);
    const last = texts.findLast((text) => text.length > 0);
    if (!first || !last) return false;
    return [
      [first, 0],
      [last, last.length - 1],
    ].every(([node, offset]) => {
      const range = document.createRange();
      range.setStart(node as Text, offset as number);
      range.setEnd(node as Text, (offset as number) + 1);
      const { left, top, width, height } = range.getBoundingClientRect();
      const shown = document.elementFromPoint(left + width / 2, top + height / 2);
      return shown !== null && element.contains(shown);
    });
  });
}
