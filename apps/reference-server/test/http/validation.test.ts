import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { errorsOf, newUser, schemaErrors, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const path = '/api/v1/external/users';
const create = (body: unknown) => server.send('POST', path, { body });

/** Creates with `body`, expects a 400 validation problem, returns its errors. */
async function rejected(body: unknown) {
  const answer = await create(body);
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({
    type: 'urn:institution-api:problem:validation-error',
    title: 'Request validation failed',
    status: 400,
    detail: 'The request does not match the contract; see errors.',
    instance: path,
  });
  expect(schemaErrors('Problem', answer.body)).toEqual([]);
  return errorsOf(answer);
}

const without = (body: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)));

describe('the account rules of UserInput, one clear error each (no oneOf noise)', () => {
  test('rule 1: accountType given → accountNumber and accountName are required', async () => {
    expect(await rejected(newUser({ accountType: 'MOMO', network: 'MTN' }))).toEqual([
      {
        path: '/body/accountNumber',
        message: 'accountNumber is required when accountType is given',
      },
      { path: '/body/accountName', message: 'accountName is required when accountType is given' },
    ]);
    expect(
      await rejected(
        newUser({ accountType: 'BANK', accountNumber: null, accountName: 'K', bankName: 'GCB' }),
      ),
    ).toEqual([
      {
        path: '/body/accountNumber',
        message: 'accountNumber is required when accountType is given',
      },
    ]);
  });

  test('rule 1, read the other way: account details without accountType', async () => {
    expect(await rejected(newUser({ accountNumber: '0241234567', accountName: 'K' }))).toEqual([
      {
        path: '/body/accountType',
        message: 'accountType is required when account details are given',
      },
    ]);
    expect(await rejected(newUser({ accountType: null, network: 'MTN' }))).toEqual([
      {
        path: '/body/accountType',
        message: 'accountType is required when account details are given',
      },
    ]);
  });

  test('rule 2: accountType MOMO → network is required (absent or null)', async () => {
    const momo = { accountType: 'MOMO', accountNumber: '0241234567', accountName: 'Kofi Asante' };
    for (const network of [undefined, null]) {
      expect(await rejected(newUser({ ...momo, network }))).toEqual([
        { path: '/body/network', message: 'network is required when accountType is MOMO' },
      ]);
    }
  });

  test('rule 3: accountType BANK → bankName is required', async () => {
    const bank = {
      accountType: 'BANK',
      accountNumber: '1021130012345',
      accountName: 'Kofi Asante',
    };
    expect(await rejected(newUser(bank))).toEqual([
      { path: '/body/bankName', message: 'bankName is required when accountType is BANK' },
    ]);
  });

  test('rule 4: the always-required fields', async () => {
    const body = newUser() as unknown as Record<string, unknown>;
    for (const field of [
      'email',
      'firstName',
      'lastName',
      'mobileNumber',
      'ghanaCardNumber',
      'monthlyIncome',
    ]) {
      expect(await rejected(without(body, field))).toEqual([
        { path: `/body/${field}`, message: `${field} is required` },
      ]);
    }
  });

  test('the example of the spec: two broken rules, two errors', async () => {
    const body = newUser({
      mobileNumber: '0123',
      accountType: 'MOMO',
      accountNumber: '0241234567',
      accountName: 'Ama Mensah',
    });
    expect(await rejected(body)).toEqual([
      { path: '/body/network', message: 'network is required when accountType is MOMO' },
      {
        path: '/body/mobileNumber',
        message:
          'mobileNumber must be a Ghanaian mobile number (0XXXXXXXXX, 233XXXXXXXXX or +233XXXXXXXXX)',
      },
    ]);
  });

  test('a field of the other variant must be absent or null', async () => {
    expect(
      await rejected(
        newUser({
          accountType: 'BANK',
          accountNumber: '1021130012345',
          accountName: 'K',
          bankName: 'GCB',
          network: 'MTN',
        }),
      ),
    ).toEqual([
      { path: '/body/network', message: 'network must be absent or null when accountType is BANK' },
    ]);
    expect(
      await rejected(
        newUser({
          accountType: 'MOMO',
          accountNumber: '0241234567',
          accountName: 'K',
          network: 'MTN',
          bankName: 'GCB',
        }),
      ),
    ).toEqual([
      {
        path: '/body/bankName',
        message: 'bankName must be absent or null when accountType is MOMO',
      },
    ]);
  });

  test('an accountType that is neither MOMO nor BANK', async () => {
    for (const accountType of ['CASH', 'momo', 5]) {
      expect(await rejected(newUser({ accountType }))).toEqual([
        { path: '/body/accountType', message: 'accountType must be one of MOMO, BANK or null' },
      ]);
    }
  });

  test('a MOMO wallet number must be a mobile number', async () => {
    expect(
      await rejected(
        newUser({
          accountType: 'MOMO',
          accountNumber: '1021130012345',
          accountName: 'K',
          network: 'MTN',
        }),
      ),
    ).toEqual([
      {
        path: '/body/accountNumber',
        message:
          'accountNumber must be a Ghanaian mobile number (0XXXXXXXXX, 233XXXXXXXXX or +233XXXXXXXXX)',
      },
    ]);
  });
});

describe('field rules name the field and the rule', () => {
  test.each([
    [{ nickname: 'K' }, '/body/nickname', 'nickname is not a field of UserInput'],
    [{ kyc: { pet: 'cat' } }, '/body/kyc/pet', 'kyc.pet is not a field of Kyc'],
    [{ email: 'not-an-email' }, '/body/email', 'email must be an e-mail address'],
    [{ firstName: '' }, '/body/firstName', 'firstName must not be empty'],
    [{ lastName: 'x'.repeat(101) }, '/body/lastName', 'lastName must be at most 100 characters'],
    [{ firstName: 7 }, '/body/firstName', 'firstName must be a string'],
    [{ otherName: 7 }, '/body/otherName', 'otherName must be a string or null'],
    [
      { monthlyIncome: -1 },
      '/body/monthlyIncome',
      'monthlyIncome must be greater than or equal to 0',
    ],
    [{ monthlyIncome: '100' }, '/body/monthlyIncome', 'monthlyIncome must be a number'],
    [
      { isGhanaCardVerified: 'yes' },
      '/body/isGhanaCardVerified',
      'isGhanaCardVerified must be a boolean',
    ],
    [
      { dateOfBirth: '17/05/1990' },
      '/body/dateOfBirth',
      'dateOfBirth must be a date (YYYY-MM-DD) from 0001-01-01 to 9999-12-31',
    ],
    [
      { dateOfBirth: '1990-02-30' },
      '/body/dateOfBirth',
      'dateOfBirth must be a date (YYYY-MM-DD) from 0001-01-01 to 9999-12-31',
    ],
    [
      { dateOfBirth: '0000-01-01' },
      '/body/dateOfBirth',
      'dateOfBirth must be a date (YYYY-MM-DD) from 0001-01-01 to 9999-12-31',
    ],
    [
      { kyc: { validTo: 'soon' } },
      '/body/kyc/validTo',
      'kyc.validTo must be a date (YYYY-MM-DD) from 0001-01-01 to 9999-12-31',
    ],
    [{ kyc: 'none' }, '/body/kyc', 'kyc must be an object'],
    [{ image: 'not a url' }, '/body/image', 'image must be an absolute URL'],
    [
      { mobileNumber: '0301234567' },
      '/body/mobileNumber',
      'mobileNumber must be a Ghanaian mobile number (0XXXXXXXXX, 233XXXXXXXXX or +233XXXXXXXXX)',
    ],
    [
      { ghanaCardNumber: 'GHA-12345-6' },
      '/body/ghanaCardNumber',
      'ghanaCardNumber must be a Ghana Card number (GHA-123456789-0; dashes and letter case optional)',
    ],
    [
      { network: 'VODAFONE', accountType: 'MOMO', accountNumber: '0241234567', accountName: 'K' },
      '/body/network',
      'network must be one of MTN, AIRTEL_TIGO or TELECEL',
    ],
  ])('%j → %s: %s', async (change, errorPath, message) => {
    expect(await rejected(newUser(change))).toEqual([{ path: errorPath, message }]);
  });

  test('several broken fields are all reported, each once', async () => {
    const errors = await rejected(
      newUser({ email: 'x', firstName: '', nickname: 1, monthlyIncome: -5 }),
    );
    expect(errors.map((e) => e.path).sort()).toEqual([
      '/body/email',
      '/body/firstName',
      '/body/monthlyIncome',
      '/body/nickname',
    ]);
    expect(errors.some((e) => /oneOf|anyOf|must match/.test(e.message))).toBe(false);
  });
});

describe('nothing a client sends answers 500', () => {
  const awkward: unknown[] = [
    {},
    { accountType: {} },
    { kyc: [] },
    { kyc: null },
    { email: null },
    newUser({ monthlyIncome: 1e308 }),
    newUser({ monthlyIncome: 0.1 + 0.2 }),
    newUser({ firstName: '\u0000' }),
    newUser({ firstName: '\ud800' }),
    newUser({ accountType: 'BANK', accountNumber: ' ', accountName: 'K', bankName: 'B' }),
    newUser({ accountType: 'BANK', accountNumber: '-', accountName: 'K', bankName: ' ' }),
    newUser({ gender: '💥'.repeat(100) }),
    newUser({ dateOfBirth: '0000-01-01' }),
    newUser({ dateOfBirth: '9999-12-31' }),
    newUser({ kyc: { validFrom: '2020-01-01', validTo: '2019-01-01' } }),
    newUser({ image: 'javascript:alert(1)' }),
    newUser({ image: `https://x.example/${'a'.repeat(2100)}` }),
  ];
  test.each(awkward.map((body) => [JSON.stringify(body).slice(0, 60), body]))(
    '%s',
    async (_, body) => {
      const answer = await create(body);
      expect(answer.status).toBeLessThan(500);
      expect(answer.headers.get('content-type')).toMatch(/^application\/(problem\+)?json/);
    },
  );
});
