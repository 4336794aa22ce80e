/**
 * The page of the browser test: the README's Quick start, in a browser, through MSW's Service
 * Worker (`setupWorker`) and the client with its Web Crypto signer. Its findings go to
 * `window.results`.
 */
import { createUsersClient } from '@institution-api/client';
import { createMockHandlers } from '@institution-api/mock';
import { setupWorker } from 'msw/browser';

const baseUrl = `${location.origin}/sandbox`;
const lender = {
  institution: 'Lender',
  publicKey: 'lender-key',
  secretKey: 'lender-secret-0123456789',
};
const savings = {
  institution: 'Savings',
  publicKey: 'savings-key',
  secretKey: 'savings-secret-0123456789',
};
const ama = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
};

/** What a page gets from `url`: the status, or the error's name when fetch rejects. */
function statusOf(url: string): Promise<number | string> {
  return fetch(url, { method: 'POST', body: '{}' }).then(
    (answer) => answer.status,
    (error: Error) => error.name,
  );
}

async function run() {
  const mock = createMockHandlers({ baseUrl, institutions: [lender, savings] });
  // Another origin, whose service lets no page call it (no CORS_ALLOW_ORIGINS), and one that lets
  // this page call it.
  const refusing = createMockHandlers({
    baseUrl: 'http://refusing.example.test',
    institutions: [lender],
    allowedOrigins: [],
  });
  const allowing = createMockHandlers({
    baseUrl: 'http://allowing.example.test',
    institutions: [lender],
    allowedOrigins: [location.origin],
  });
  const worker = setupWorker(...mock.handlers, ...refusing.handlers, ...allowing.handlers);
  await worker.start({ quiet: true, serviceWorker: { url: '/mockServiceWorker.js' } });
  const asLender = createUsersClient({ baseUrl, ...lender, retry: false });
  const asSavings = createUsersClient({ baseUrl, ...savings, retry: false });
  const created = await asLender.createUser(ama);
  const again = await asLender.createUser({ ...ama, email: 'ama@example.org' });
  const refused = await asSavings.createUser({ ...ama, mobileNumber: '0201234567' });
  const invalid = await asLender.createUser({ ...ama, mobileNumber: '12345' });
  const forced = await asLender.createUser(ama, { headers: { Prefer: 'code=503' } });
  const unsigned = await fetch(`${baseUrl}/api/v1/external/users`, { method: 'POST', body: '{}' });
  const crossOriginRefused = await statusOf('http://refusing.example.test/api/v1/external/users');
  const crossOriginAllowed = await statusOf('http://allowing.example.test/api/v1/external/users');
  return {
    created: created.response?.status,
    again: again.response?.status,
    storedEmail: again.data?.user.email,
    refused: refused.response?.status,
    invalid: invalid.error?.kind === 'http' ? invalid.error.errors : undefined,
    forced: forced.response?.status,
    retryAfter: forced.response?.headers.get('Retry-After'),
    unsigned: unsigned.status,
    crossOriginRefused,
    crossOriginAllowed,
  };
}

declare global {
  interface Window {
    results?: unknown;
  }
}
run().then(
  (results) => {
    window.results = results;
  },
  (error: unknown) => {
    window.results = { error: String(error) };
  },
);
