import { createUsersClient, type UserInput } from '@institution-api/client';
import { createMockHandlers } from '@institution-api/mock';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';

const baseUrl = 'https://api.example.test';
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

// The service, in memory: both operations, signatures checked, requests validated.
const mock = createMockHandlers({ baseUrl, institutions: [lender, savings] });
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen());
afterEach(() => mock.reset()); // every test starts with no users
afterAll(() => server.close());

const retry = { retries: 2, baseDelayMs: 10, maxDelayMs: 1000 };
const asLender = createUsersClient({ baseUrl, ...lender, retry });
const asSavings = createUsersClient({ baseUrl, ...savings, retry });

const ama = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
} satisfies UserInput;

test('create 201, again 200 with the stored details, another institution without the number 409', async () => {
  const created = await asLender.createUser(ama);
  expect(created.response?.status).toBe(201);

  const again = await asLender.createUser({ ...ama, email: 'ama@example.org' });
  expect(again.response?.status).toBe(200);
  expect(again.data?.user.email).toBe('ama.mensah@example.com');

  const refused = await asSavings.createUser({ ...ama, mobileNumber: '0201234567' });
  expect(refused.error).toMatchObject({ kind: 'http', status: 409 });
});

test('a forced 503 is retried, then reported', async () => {
  let attempts = 0;
  server.events.on('request:start', () => {
    attempts++;
  });
  const { error, response } = await asLender.createUser(ama, {
    headers: { Prefer: 'code=503' }, // Prism's convention: answer the documented 503
  });
  expect(error).toMatchObject({ kind: 'http', status: 503 });
  expect(response?.headers.get('Retry-After')).toBe('1');
  expect(attempts).toBe(3); // the first attempt and two retries
  server.events.removeAllListeners();
});
