/**
 * The docs for agents as an agent reads them: the reference server answers `/llms.txt`, the
 * index the docs build writes, and every page it links (resolved against `/llms.txt`, as a
 * reader of llmstxt.org's layout does): `200`, the Markdown pages as `text/markdown` and the
 * index as `text/plain` (UTF-8), compressed like every published file, the bytes the build wrote.
 */
import { readFileSync } from 'node:fs';
import {
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedFile } from '../workspaces.js';

const index = readFileSync(exportedFile('@institution-api/docs/llms.txt'), 'utf8');
/** The links of its lists: `- [name](url): note`. */
const links = [...index.matchAll(/^- \[[^\]]+\]\(([^)]+)\): /gm)].map(([, url]) => url ?? '');

let server: RunningServer;
beforeAll(async () => {
  server = await startReferenceServer({
    credentials: [
      {
        institution: 'Docs for agents',
        publicKey: 'pk_agent_pages',
        secretKey: 'sk_agent_pages_0123456789',
      },
    ],
  });
});
afterAll(() => server?.stop());

describe('the reference server serves the docs for agents', () => {
  it('answers /llms.txt: 200, text/plain in UTF-8, compressed, the file the build wrote', async () => {
    const answer = await fetch(new URL('/llms.txt', server.url), {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(answer.headers.get('content-encoding')).toBe('gzip');
    expect(await answer.text()).toBe(index);
  });

  it('links pages of its own (the operations, signing) and the spec', () => {
    expect(links.filter((url) => url.endsWith('.md')).length).toBeGreaterThanOrEqual(3);
    expect(links).toContain('openapi.yaml');
  });

  it.each(links)('answers %s, linked from /llms.txt: 200', async (url) => {
    const answer = await fetch(new URL(url, new URL('/llms.txt', server.url)), {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(answer.status).toBe(200);
    const text = await answer.text();
    if (!url.endsWith('.md')) return;
    expect(answer.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(answer.headers.get('content-encoding')).toBe('gzip');
    expect(text).toBe(readFileSync(exportedFile(`@institution-api/docs/${url}`), 'utf8'));
  });
});
