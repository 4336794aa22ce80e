/**
 * `allowedOrigins`: the handlers refuse a page's cross-origin call as the browser refuses it
 * against the service (a network error), where MSW alone would answer it. Requests carry the
 * page's `Origin` as a browser sends it; in a browser, where MSW's Service Worker drops it, the
 * page's own origin stands in (`location`, stubbed here; `test/browser.system.test.ts` runs the real one).
 */
import { createMockHandlers, documentedAnswer } from '@institution-api/mock';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { INSTITUTIONS } from '../support/institutions.js';

const institutions = [...INSTITUTIONS];
const strict = createMockHandlers({
  baseUrl: 'https://api.example.test/sandbox',
  institutions,
  allowedOrigins: ['https://app.example.com'],
});
const open = createMockHandlers({ baseUrl: 'https://open.example.test', institutions });
const server = setupServer(
  strict.override('updateUser', () =>
    documentedAnswer('updateUser', 404, {
      type: 'urn:institution-api:problem:not-found',
      title: 'Not found',
      status: 404,
    }),
  ),
  ...strict.handlers,
  ...open.handlers,
);
beforeAll(() => server.listen());
afterEach(() => vi.unstubAllGlobals());
afterAll(() => server.close());

/** What the page gets: the status, or `network error` when fetch rejects as CORS makes it. */
async function call(url: string, origin?: string): Promise<number | 'network error'> {
  try {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
      body: '{}',
    });
    return answer.status;
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return 'network error';
  }
}

const users = 'https://api.example.test/sandbox/api/v1/external/users';

describe('createMockHandlers({ allowedOrigins })', () => {
  it.each([
    // [Origin of the page, what it gets]: unsigned, the service's one 401 when answered
    ['https://app.example.com', 401],
    ['https://api.example.test', 401], // the base URL's own origin: not cross-origin
    ['https://evil.example', 'network error'],
    ['http://app.example.com', 'network error'], // another scheme is another origin
    ['https://app.example.com:8443', 'network error'],
    ['null', 'network error'], // a sandboxed frame, a file:// page
    [undefined, 401], // no page at all (Node): CORS does not apply
  ] as const)('a page of %s gets %s', async (origin, want) => {
    expect(await call(users, origin)).toBe(want);
  });

  it('in a browser, reads the page from location (the Service Worker drops Origin)', async () => {
    vi.stubGlobal('location', { origin: 'https://evil.example' });
    expect(await call(users)).toBe('network error');
    vi.stubGlobal('location', { origin: 'https://app.example.com' });
    expect(await call(users)).toBe(401);
  });

  it('refuses through an override too', async () => {
    const update = `${users}/3fa85f64-5717-4562-b3fc-2c963f66afa6`;
    const put = (origin: string) =>
      fetch(update, { method: 'PUT', headers: { origin }, body: '{}' }).then(
        (answer) => answer.status,
        () => 'network error',
      );
    expect(await put('https://app.example.com')).toBe(404);
    expect(await put('https://evil.example')).toBe('network error');
  });

  it('without it, answers any page, as MSW does', async () => {
    expect(
      await call('https://open.example.test/api/v1/external/users', 'https://evil.example'),
    ).toBe(401);
  });

  it.each([
    ['https://app.example.com/', 'allowedOrigins[0]'],
    ['app.example.com', 'allowedOrigins[0]'],
    ['ftp://app.example.com', 'allowedOrigins[0]'],
  ])('refuses %s, naming %s', (origin, name) => {
    expect(() =>
      createMockHandlers({ baseUrl: 'https://x.test', institutions, allowedOrigins: [origin] }),
    ).toThrow(new RegExp(`^${name.replace(/[[\]]/g, '\\$&')} must be an http or https origin`));
  });
});
