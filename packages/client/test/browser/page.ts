/**
 * The page of the browser test: the client with its Web Crypto signer, in Chromium, calling the
 * reference server on another origin (CORS) with the header fields the README teaches: a call's
 * `X-Request-Id`, the sandbox's `Prefer`. Where it runs (`?api=`, the test's key pair) comes in
 * its query; what it found goes to `window.results`. A test key only: a real secret key never
 * ships to a page (README, "Browsers").
 */
import { createUsersClient } from '../../src/index.js';

declare global {
  interface Window {
    results?: unknown;
  }
}

const query = new URLSearchParams(location.search);
const users = createUsersClient({
  baseUrl: query.get('api') ?? '',
  publicKey: query.get('publicKey') ?? '',
  secretKey: query.get('secretKey') ?? '',
  retry: false,
});
const kofi = {
  email: 'kofi.boateng@example.com',
  firstName: 'Kofi',
  lastName: 'Boateng',
  mobileNumber: '0241239876',
  ghanaCardNumber: 'GHA-987654321-0',
  monthlyIncome: 1200,
};

/** What a failed call says, as the page's code would read it. */
function failure(error: { kind: string; message?: string; status?: number }) {
  return { kind: error.kind, message: error.message, status: error.status };
}

async function run() {
  const found: Record<string, unknown> = {
    secureContext: isSecureContext,
    subtle: typeof globalThis.crypto?.subtle,
  };
  const created = await users.createUser(kofi, { headers: { 'X-Request-Id': 'page-create-1' } });
  if (created.error) return { ...found, created: failure(created.error) };
  found.created = created.response.status;
  found.requestId = created.response.headers.get('X-Request-Id');
  const forced = await users.createUser(kofi, { headers: { Prefer: 'code=503' } });
  found.forced = forced.error ? failure(forced.error) : forced.response.status;
  found.retryAfter = forced.response?.headers.get('Retry-After');
  const updated = await users.updateUser(created.data.user.id, { ...kofi, monthlyIncome: 1500 });
  found.updated = updated.error ? failure(updated.error) : updated.response.status;
  return found;
}

run().then(
  (results) => {
    window.results = results;
  },
  (error: unknown) => {
    window.results = { thrown: String(error) };
  },
);
