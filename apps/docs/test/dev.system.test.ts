/**
 * `npm run docs:dev` on a copy of the spec: it serves the page with the live-reload script, and
 * an edit of the spec reaches the page (new build announced, new content served, the open page in
 * chromium reloads itself); a broken edit keeps the last good page and reports the failure; a fix
 * recovers. The copy keeps the test away from the real `openapi/`, which others edit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '@institution-api/test-support/chromium';
import { testWith } from '@institution-api/test-support/requirements';
import { openWatchedPage } from '@institution-api/test-support/watched-page';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELOAD_PATH } from '../scripts/lib/dev-server.mjs';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const devScript = fileURLToPath(new URL('../scripts/dev.mjs', import.meta.url));
const updateFile = join('openapi', 'paths', 'api_v1_external_users_{id}.yaml');

// Every rebuild is a run of Redocly's build-docs: tens of seconds when every suite shares the machine.
describe('docs:dev', { timeout: 180_000 }, () => {
  let root: string;
  let dev: ChildProcess;
  let url: string;
  let events: EventReader;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'docs-dev-test-'));
    await cp(join(repoRoot, 'redocly.yaml'), join(root, 'redocly.yaml'));
    await cp(join(repoRoot, '.redocly.lint-ignore.yaml'), join(root, '.redocly.lint-ignore.yaml'));
    await cp(join(repoRoot, 'openapi'), join(root, 'openapi'), {
      recursive: true,
      filter: (source) => !/[\\/](dist|node_modules|test)$/.test(source),
    });
    dev = spawn(process.execPath, [devScript, '--port', '0', '--root', root], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk;
        const served = /serving (http:\/\/localhost:\d+\/)/.exec(output);
        if (served?.[1]) resolve(served[1]);
      };
      dev.stdout?.on('data', onData);
      dev.stderr?.on('data', onData);
      dev.once('exit', (code) => reject(new Error(`docs:dev exited (${code}):\n${output}`)));
    });
    events = await readEvents(new URL(RELOAD_PATH, url));
  });

  afterAll(async () => {
    events?.close();
    if (dev && dev.exitCode === null) {
      await new Promise((resolve) => {
        dev.once('exit', resolve);
        dev.kill('SIGTERM');
      });
    }
    if (root) await rm(root, { recursive: true, force: true });
  });

  const edit = async (from: string, to: string) => {
    const file = join(root, updateFile);
    const text = await readFile(file, 'utf8');
    expect(text).toContain(from);
    await writeFile(file, text.replace(from, to));
  };

  it('serves the built page with the live-reload script, and the spec beside it', async () => {
    expect(await events.next()).toEqual({ event: 'build', data: '1' });
    const html = await (await fetch(url)).text();
    expect(html).toContain('Update a user');
    expect(html).toContain(RELOAD_PATH);
    expect(html).toContain("connect-src 'self'");
    expect((await fetch(new URL('openapi.yaml', url))).status).toBe(200);
    expect((await fetch(new URL('openapi.json', url))).status).toBe(200);
  });

  it('serves what the header links, made on request: the changelog, the Postman collection', async () => {
    const text = async (file: string) => {
      const answer = await fetch(new URL(file, url));
      return answer.status === 200 ? answer.text() : '';
    };
    await expect
      .poll(() => text('changelog.html'), { timeout: 30_000 })
      .toContain('<h1>Changelog of the contract</h1>');
    expect(await text('institution-api.postman_collection.json')).toContain('"item": [');
  });

  it('rebuilds on an edit of the spec and serves the new page', async () => {
    await edit('summary: Update a user\n', 'summary: Update a user (edited)\n');
    expect(await events.next()).toEqual({ event: 'build', data: '2' });
    expect(await (await fetch(url)).text()).toContain('Update a user (edited)');
  });

  it('keeps the last good page when an edit breaks the spec, and recovers', async () => {
    await edit('summary: Update a user (edited)\n', 'summary: [unclosed\n');
    const failed = await events.next();
    expect(failed.event).toBe('failed');
    expect(await (await fetch(url)).text()).toContain('Update a user (edited)');

    await edit('summary: [unclosed\n', 'summary: Update a user (fixed)\n');
    expect(await events.next()).toEqual({ event: 'build', data: '3' });
    expect(await (await fetch(url)).text()).toContain('Update a user (fixed)');
  });

  // A rebuild is a run of Redocly's build-docs: tens of seconds when the machine runs every suite.
  testWith(
    'chromium',
    'reloads the open page by itself after a rebuild',
    { timeout: 180_000 },
    async () => {
      const browser = await launchChromium();
      try {
        const origin = new URL(url).origin;
        const watched = await openWatchedPage(browser.context, `${url}#/users/updateuser`, origin);
        const { page } = watched;
        await expect.poll(() => page.getByText('Update a user (fixed)').count()).toBeGreaterThan(0);
        await edit('summary: Update a user (fixed)\n', 'summary: Update a user (live)\n');
        await expect
          .poll(() => page.getByText('Update a user (live)').count(), { timeout: 120_000 })
          .toBeGreaterThan(0);
        expect(page.url()).toBe(`${url}#/users/updateuser`);
        expect(watched.leaving).toEqual([]);
        expect(watched.errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );
});

interface EventReader {
  next: () => Promise<{ event: string; data: string }>;
  close: () => void;
}

/** A minimal Server-Sent Events reader over fetch: one event at a time, in order. */
async function readEvents(url: URL): Promise<EventReader> {
  const abort = new AbortController();
  const response = await fetch(url, { signal: abort.signal });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) throw new Error('no event stream');
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const field = (name: string) =>
            block
              .split('\n')
              .find((line) => line.startsWith(`${name}: `))
              ?.slice(name.length + 2) ?? '';
          return { event: field('event'), data: field('data') };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the event stream ended');
        buffer += value;
      }
    },
    close: () => abort.abort(),
  };
}
