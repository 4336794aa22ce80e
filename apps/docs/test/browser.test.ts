/**
 * The built page in a real browser (Debian's chromium through playwright-core): opened from
 * disk with every non-file request blocked and recorded, it must hydrate, navigate, show both
 * operations with both response shapes, the security scheme and the assumptions, and find a field
 * by search, while no request leaves and nothing is logged as an error. Served by the reference
 * server at /docs, it must work the same and its download links must reach the spec.
 *
 * In CI a missing browser fails the suite; elsewhere the suite is skipped with the reason printed.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, hasChromium, launchChromium } from './support/chromium.js';
import { type RunningServer, startReferenceServer } from './support/reference-server.js';
import {
  isInViewport,
  openWatchedPage,
  shownText,
  type WatchedPage,
} from './support/watched-page.js';

const pageFile = fileURLToPath(new URL('../dist/index.html', import.meta.url));
const spec = JSON.parse(
  readFileSync(new URL('../dist/openapi.json', import.meta.url), 'utf8'),
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
  const component = example?.$ref?.replace('#/components/examples/', '') ?? name ?? '';
  const id = spec.components.examples[component]?.value.id;
  if (!id) throw new Error(`no named ${status} example on ${operation.summary}`);
  return id;
}

if (!hasChromium) {
  const reason = `no browser at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI) {
    it('has a browser to test the docs page in', () => {
      throw new Error(reason);
    });
  } else {
    console.warn(`browser.test.ts skipped: ${reason}`);
  }
}

describe.skipIf(!hasChromium)('the docs page in chromium', () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;

  beforeAll(async () => {
    browser = await launchChromium();
    context = browser.context;
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
      await expect.poll(() => shownText(create)).toContain('npx institution-api sign user.json');
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

      const folder = await mkdtemp(join(tmpdir(), 'docs-browser-test-'));
      const screenshot = join(folder, 'search-ghanaCardNumber.png');
      await page.screenshot({ path: screenshot });
      console.log(`screenshot: ${screenshot}`);
      await page.keyboard.press('Escape');
    });

    it('sent no request off the page and logged no error', async () => {
      const folder = await mkdtemp(join(tmpdir(), 'docs-browser-test-'));
      await page.goto(`${pathToFileURL(pageFile).href}#/users/createuser`);
      await page.reload();
      await showResponse(responsePanel(page, 0), '201', exampleId(createUser, '201'));
      const screenshot = join(folder, 'create-user.png');
      await page.screenshot({ path: screenshot });
      console.log(`screenshot: ${screenshot}`);

      expect(watched.leaving).toEqual([]);
      expect(watched.errors).toEqual([]);
    });
  });

  describe('served by the reference server at /docs', () => {
    let server: RunningServer;
    let watched: WatchedPage;

    beforeAll(async () => {
      server = await startReferenceServer([
        {
          institution: 'Docs browser test',
          publicKey: `pk_docs_${randomBytes(6).toString('hex')}`,
          secretKey: randomBytes(24).toString('base64url'),
        },
      ]);
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
        new Set([`${server.url}/openapi.yaml`, `${server.url}/openapi.json`]),
      );
      for (const link of new Set(links)) {
        const answer = await fetch(link);
        expect(answer.status, link).toBe(200);
        expect(await answer.text()).toContain('3.1.0');
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
