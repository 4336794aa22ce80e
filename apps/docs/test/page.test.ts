/**
 * The built page without a browser: what the build promises about `dist/` (self-contained,
 * telemetry off, the spec beside it and linked relatively, the package exports the reference
 * server resolves), and the checks and rewrites the build relies on, on inputs made to fail them.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  CONSOLE_BUDGET_GZIP_BYTES,
  CONSOLE_MARKER,
  consoleMarkup,
} from '../scripts/lib/console-bundle.mjs';
import { hashRouterLinks } from '../scripts/lib/hash-links.mjs';
import { CDN_REWRITES, findExternalFetches, inlineCdnAssets } from '../scripts/lib/offline.mjs';
import { postmanCollection } from '../scripts/lib/postman-collection.mjs';

const dist = new URL('../dist/', import.meta.url);
const page = readFileSync(new URL('index.html', dist), 'utf8');
const require = createRequire(import.meta.url);
const bundledSpec = require.resolve('@institution-api/openapi/openapi.json');

describe('dist/index.html', () => {
  it('has nothing that would fetch from the network, and telemetry off', () => {
    expect(findExternalFetches(page)).toEqual([]);
    expect(page).toMatch(/const __redoc_options = \{[^\n]*"disableTelemetry":true/);
  });

  it('inlines Redoc (no CDN script) and carries a policy that forbids any other load', () => {
    expect(page).not.toMatch(/<script[^>]+src=/);
    expect(page).toContain('hydrate(__redoc_definition');
    expect(page).toContain(
      `content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'"`,
    );
    for (const { pattern } of CDN_REWRITES) expect(page).not.toMatch(pattern);
  });

  it(`carries the Try it console: no eval, at most ${CONSOLE_BUDGET_GZIP_BYTES} bytes gzipped`, () => {
    const script = new RegExp(`<script id="${CONSOLE_MARKER}">([\\s\\S]*?)</script>`).exec(
      page,
    )?.[1];
    const style = new RegExp(`<style id="${CONSOLE_MARKER}-style">([\\s\\S]*?)</style>`).exec(
      page,
    )?.[1];
    expect(script).toContain('Try it');
    expect(script).not.toMatch(/\bnew Function\b|\beval\(/);
    expect(style).toContain('.try-it-dialog');
    const markup = consoleMarkup(script ?? '', style ?? '');
    expect(page).toContain(markup);
    expect(gzipSync(markup).length).toBeLessThanOrEqual(CONSOLE_BUDGET_GZIP_BYTES);
  });

  it('is the bundled spec, which lies beside it and is linked relatively for download', () => {
    expect(readFileSync(new URL('openapi.json', dist), 'utf8')).toBe(
      readFileSync(bundledSpec, 'utf8'),
    );
    expect(readFileSync(new URL('openapi.yaml', dist), 'utf8')).toContain('openapi: 3.1.0');
    expect(page).toContain('<a href="openapi.yaml"');
    expect(page).toContain('<a href="openapi.json"');
  });

  it('prerenders menu links in the hash form the client router uses', () => {
    expect(page).toContain('href="#/section/assumptions" data-discover="true"');
    expect(page).not.toMatch(/href="\/[^"]*" data-discover/);
  });

  it('links the changelog and the Postman collection from its header, beside it', () => {
    expect(page).toMatch(
      /<nav class="site-header" aria-label="Site">\s*<a href="changelog\.html">Changelog<\/a>\s*<a href="institution-api\.postman_collection\.json" download>Postman collection<\/a>/,
    );
    expect(
      JSON.parse(readFileSync(new URL('institution-api.postman_collection.json', dist), 'utf8')),
    ).toEqual(postmanCollection(JSON.parse(readFileSync(bundledSpec, 'utf8'))));
    expect(readFileSync(new URL('changelog.html', dist), 'utf8')).toContain(
      '<h1>Changelog of the contract</h1>',
    );
  });

  it('is exported as @institution-api/docs/index.html, with the files beside it', () => {
    for (const file of [
      'index.html',
      'openapi.yaml',
      'openapi.json',
      'changelog.html',
      'institution-api.postman_collection.json',
    ]) {
      expect(require.resolve(`@institution-api/docs/${file}`)).toBe(
        fileURLToPath(new URL(file, dist)),
      );
    }
  });
});

describe('findExternalFetches', () => {
  const options = 'const __redoc_options = {"disableTelemetry":true};';

  it.each([
    ['a CDN script', '<script type="module" src="https://cdn.redocly.com/redoc/v3/redoc.js">'],
    ['a modulepreload', '<link rel="modulepreload" href="https://cdn.example.com/x.js">'],
    ['Google Fonts', '<link href="//fonts.googleapis.com/css?family=Roboto" rel="stylesheet">'],
    ['a CSS import', '<style>@import url("https://fonts.example.com/x.css");</style>'],
    ['an image', '<img src="https://cdn.example.com/logo.svg">'],
    ['a CDN URL in the bundle', 'src:`https://cdn.redoc.ly/redoc/logo-mini.svg`'],
  ])('reports %s', (_what, html) => {
    expect(findExternalFetches(`${html}\n${options}`).length).toBeGreaterThan(0);
  });

  it('reports telemetry left on, and a page not built by redocly', () => {
    expect(findExternalFetches('const __redoc_options = {"disableTelemetry":false};')).toEqual([
      'Redoc telemetry is on: build with REDOCLY_TELEMETRY=off',
    ]);
    expect(findExternalFetches('<p>hello</p>')).toHaveLength(1);
  });

  it('lets through links a reader clicks and JSON example values', () => {
    const html = `<a href="https://redocly.com/redoc/">by</a> {"image":"https://cdn.example.com/a.jpg"} ${options}`;
    expect(findExternalFetches(html)).toEqual([]);
  });
});

describe('inlineCdnAssets and hashRouterLinks', () => {
  it('replaces the CDN logo and icon URLs with inline data', () => {
    const bundle =
      'src:e?`https://cdn.redoc.ly/redoc/logo-mini-full.svg`:`https://cdn.redoc.ly/redoc/logo-mini.svg`,' +
      'Zo={"font-awesome":`https://cdn.redocly.com/icons/fa/7.0.0`,code:`https://cdn.redocly.com/icons/code/5.24.0`}';
    const rewritten = inlineCdnAssets(bundle);
    expect(rewritten).not.toContain('https://');
    expect(rewritten).toContain('`data:image/svg+xml,');
    expect(rewritten).toContain('code:`data:,`');
  });

  it('rewrites only prerendered router links', () => {
    const html =
      '<div id="redoc"><a href="/users" data-discover="true">Users</a><a href="/x">x</a></div>' +
      '<script type="module">const a = `<a href="/users" data-discover="true">`;</script>';
    expect(hashRouterLinks(html)).toBe(
      '<div id="redoc"><a href="#/users" data-discover="true">Users</a><a href="/x">x</a></div>' +
        '<script type="module">const a = `<a href="/users" data-discover="true">`;</script>',
    );
  });
});
