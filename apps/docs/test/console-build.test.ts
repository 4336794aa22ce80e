/**
 * The console's build (scripts/lib/console-spec.mjs, console-bundle.mjs, api-origins.mjs): what it
 * takes out of the spec, where its bundle goes, and the policy origins, on inputs made to fail
 * them. (Its budget, which esbuild's bundle is held to: console-build.system.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allowApiOrigins, parseApiOrigins } from '../scripts/lib/api-origins.mjs';
import { consoleMarkup, withConsole } from '../scripts/lib/console-bundle.mjs';
import { consoleSpec, responseSchemas } from '../scripts/lib/console-spec.mjs';

const document = JSON.parse(readFileSync(new URL('../dist/openapi.json', import.meta.url), 'utf8'));

describe('consoleSpec', () => {
  const spec = consoleSpec(document);

  it('takes each operation with its named examples and the schema of each status', () => {
    // The page's own host, not the spec's first server (the local sandbox, for other tools).
    expect(document.servers[0].url).toBe('http://localhost:8080');
    expect(spec.serverUrl).toBe('/');
    expect(
      spec.operations.map(({ operationId, method, path, pathParameters }) => ({
        operationId,
        method,
        path,
        pathParameters,
      })),
    ).toEqual([
      {
        operationId: 'createUser',
        method: 'POST',
        path: '/api/v1/external/users',
        pathParameters: [],
      },
      {
        operationId: 'updateUser',
        method: 'PUT',
        path: '/api/v1/external/users/{id}',
        pathParameters: ['id'],
      },
    ]);
    const [create, update] = spec.operations;
    expect(create?.examples.map(({ name, summary }) => [name, summary])).toEqual([
      ['MomoAccountUser', 'A user with a mobile money account'],
      ['BankAccountUser', 'A user with a bank account'],
      ['UserWithoutAccount', 'A user without an account'],
    ]);
    expect(create?.examples[0]?.value).toEqual(document.components.examples.MomoAccountUser.value);
    expect(create?.responses['201']).toMatchObject({
      mediaType: 'application/json',
      schema: 'UserCreated',
    });
    expect(update?.responses['200']).toMatchObject({ schema: 'UserUpdated' });
    expect(update?.responses['404']).toMatchObject({
      mediaType: 'application/problem+json',
      schema: 'Problem',
    });
    expect(responseSchemas(spec)).toEqual(['Problem', 'UserCreated', 'UserUpdated']);
  });

  it('refuses an answer whose schema is not a named component', () => {
    const inline = structuredClone(document);
    inline.paths['/api/v1/external/users'].post.responses['201'].content[
      'application/json'
    ].schema = {
      type: 'object',
    };
    expect(() => consoleSpec(inline)).toThrow(
      /^createUser 201: the console validates answers against named schemas/,
    );
  });
});

describe('bundleConsole', () => {
  it('refuses a bundle that would close its own element, and goes before </body>', () => {
    expect(() => consoleMarkup('const a = "</script>";', '')).toThrow(/would close its own/);
    expect(() => consoleMarkup('', 'a::after { content: "</style>" }')).toThrow(
      /would close its own/,
    );
    expect(withConsole('<body><p>x</p></body></html>', '<script></script>')).toBe(
      '<body><p>x</p><script></script></body></html>',
    );
  });
});

describe('DOCS_API_ORIGINS', () => {
  it('lists origins as browsers write them', () => {
    expect(parseApiOrigins(undefined)).toEqual([]);
    expect(parseApiOrigins(' ')).toEqual([]);
    expect(parseApiOrigins('https://api.example.com, http://localhost:8080')).toEqual([
      'https://api.example.com',
      'http://localhost:8080',
    ]);
  });

  it.each([
    'https://api.example.com/',
    'https://API.example.com',
    'https://api.example.com:443',
    '*',
    'ftp://x',
  ])('refuses %s', (value) => {
    expect(() => parseApiOrigins(value)).toThrow(/^DOCS_API_ORIGINS must list origins/);
  });

  it("adds them to the policy's connect-src, and only there", () => {
    const page = `<head><meta content="default-src 'none'; connect-src 'self'; base-uri 'none'"></head><body>connect-src 'self';</body>`;
    expect(allowApiOrigins(page, ['https://api.example.com'])).toBe(
      `<head><meta content="default-src 'none'; connect-src 'self' https://api.example.com; base-uri 'none'"></head><body>connect-src 'self';</body>`,
    );
    expect(allowApiOrigins(page, [])).toBe(page);
    expect(() => allowApiOrigins("<head>connect-src 'none';</head>", [])).toThrow(/has no/);
  });
});
