import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type Answer,
  errorsOf,
  fullMomoUser,
  newUser,
  schemaErrors,
  specSchemas,
  startTestServer,
  type TestServer,
} from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const create = (body: unknown, as = server.institutions[0]) =>
  server.send('POST', '/api/v1/external/users', { body, as });
const update = (id: string, body: unknown, as = server.institutions[0]) =>
  server.send('PUT', `/api/v1/external/users/${id}`, { body, as });
const idOf = (answer: Answer) => (answer.body as { id: string }).id;
/** The keys of an answer schema, in its order. */
const keysOf = (schema: string) =>
  Object.keys(specSchemas.schema(schema).properties as Record<string, unknown>);
/** A MOMO wallet number as the service stores it. */
const stored = (mobile: unknown) => `+233${String(mobile).slice(-9)}`;

describe('create (POST /api/v1/external/users)', () => {
  test('a new user answers 201 with the create shape, valid against UserCreated', async () => {
    const sent = fullMomoUser() as Record<string, unknown>;
    const answer = await create(sent);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(schemaErrors('UserCreated', answer.body)).toEqual([]);
    const body = answer.body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(keysOf('UserCreated'));
    expect(body.userImage).toBe(sent.image);
    expect(body.documents).toEqual([]);
    expect(body).not.toHaveProperty('monthlyIncome');
    expect(body.account).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      account_type: 'MOMO',
      account_number: stored(sent.accountNumber),
      network: sent.network,
      bank_name: null,
      account_name: sent.accountName,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(new Date(body.createdAt as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  test('normalizes the mobile number, the Ghana Card number and the MOMO wallet number', async () => {
    for (const [written, stored] of [
      ['0241234567', '+233241234567'],
      ['233501234567', '+233501234567'],
      ['+233201234567', '+233201234567'],
    ]) {
      const answer = await create(
        newUser({
          mobileNumber: written,
          accountType: 'MOMO',
          accountNumber: written,
          accountName: 'Kofi Asante',
          network: 'MTN',
        }),
      );
      expect(answer.status).toBe(201);
      const body = answer.body as { mobileNumber: string; account: { account_number: string } };
      expect(body.mobileNumber).toBe(stored);
      expect(body.account.account_number).toBe(stored);
    }
    const card = await create(newUser({ ghanaCardNumber: 'gha-700000001-5' }));
    expect((card.body as { ghanaCardNumber: string }).ghanaCardNumber).toBe('GHA-700000001-5');
  });

  test('dateOfBirth is sent as a date and returned as a date-time at midnight UTC', async () => {
    const answer = await create(newUser({ dateOfBirth: '1990-05-17' }));
    expect((answer.body as { dateOfBirth: string }).dateOfBirth).toBe('1990-05-17T00:00:00.000Z');
    const none = await create(newUser());
    expect((none.body as { dateOfBirth: unknown }).dateOfBirth).toBeNull();
  });

  test('absent optional fields come back empty: null, false, a kyc of five nulls, no account', async () => {
    const answer = await create(newUser());
    expect(answer.body).toMatchObject({
      otherName: null,
      gender: null,
      dateOfBirth: null,
      kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
      ghanaCardImage: null,
      userImage: null,
      isGhanaCardVerified: false,
      documents: [],
      account: null,
    });
  });

  test('a BANK account keeps its number as written and has no network', async () => {
    const answer = await create(
      newUser({
        accountType: 'BANK',
        accountNumber: '1021130012345',
        accountName: 'Kofi Asante',
        bankName: 'GCB Bank',
      }),
    );
    expect(answer.status).toBe(201);
    expect((answer.body as { account: unknown }).account).toMatchObject({
      account_type: 'BANK',
      account_number: '1021130012345',
      network: null,
      bank_name: 'GCB Bank',
    });
    expect(schemaErrors('UserCreated', answer.body)).toEqual([]);
  });

  test('the same card again answers 200 with the same user, its stored details unchanged', async () => {
    const first = fullMomoUser();
    const created = await create(first);
    const again = await create({
      ...first,
      email: `other.${Date.now()}@example.com`,
      firstName: 'Changed',
      ghanaCardNumber: first.ghanaCardNumber.toUpperCase().replace(/^GHA(\d{9})(\d)$/, 'GHA-$1-$2'),
    });
    expect(created.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
    expect(schemaErrors('UserCreated', again.body)).toEqual([]);
  });

  test('another institution with the same card and mobile number gets 200 and the stored user; so does a repeat', async () => {
    const body = fullMomoUser();
    const byAlpha = await create(body, server.institutions[0]);
    const byBeta = await create(
      {
        ...newUser({ mobileNumber: `+233${body.mobileNumber.slice(-9)}`, firstName: 'Other' }),
        ghanaCardNumber: body.ghanaCardNumber.toUpperCase(),
      },
      server.institutions[1],
    );
    const byBetaAgain = await create(body, server.institutions[1]);
    expect([byAlpha.status, byBeta.status, byBetaAgain.status]).toEqual([201, 200, 200]);
    expect(byBeta.body).toEqual(byAlpha.body);
    expect(byBetaAgain.body).toEqual(byAlpha.body);
  });

  test('another institution with the same card but another mobile number answers 409 and learns nothing', async () => {
    const body = fullMomoUser({ mobileNumber: '0241234567' });
    const owner = await create(body, server.institutions[0]);
    const kept = owner.body as Record<string, string>;
    const intruder = await create(
      { ...newUser({ mobileNumber: '0551234567' }), ghanaCardNumber: body.ghanaCardNumber },
      server.institutions[1],
    );
    expect(intruder.status).toBe(409);
    expect(intruder.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(intruder.body).toEqual({
      type: 'urn:institution-api:problem:conflict',
      title: 'Conflict',
      status: 409,
      detail: 'A user with this Ghana Card number exists with other details. Nothing was written.',
      instance: '/api/v1/external/users',
      errors: [
        {
          path: '/body/ghanaCardNumber',
          message: 'ghanaCardNumber belongs to a user with other details',
        },
      ],
    });
    for (const secret of [
      kept.id,
      kept.email,
      kept.mobileNumber,
      '241234567',
      body.firstName,
      body.lastName,
    ]) {
      expect(intruder.text).not.toContain(secret);
    }
    // Not a member: the intruder cannot update the user, which is unchanged for its owner.
    expect((await update(kept.id ?? '', body, server.institutions[1])).status).toBe(404);
    expect((await create(body, server.institutions[0])).body).toEqual(owner.body);
  });

  test('parallel creates of one person by three institutions make one user, one 201', async () => {
    const body = newUser();
    const answers = await Promise.all(
      [0, 1, 2, 0, 1, 2].map((i) => create(body, server.institutions[i])),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map(idOf)).size).toBe(1);
    // Each institution now has the user: each may update it.
    for (const institution of server.institutions) {
      expect((await update(idOf(answers[0] as Answer), body, institution)).status).toBe(200);
    }
  });

  test('parallel creates of one card with two mobile numbers: one user, 409 for the other number', async () => {
    const card = newUser().ghanaCardNumber;
    const mobiles = ['0241234567', '0241234567', '0501234567'];
    const requests = [0, 1, 2, 0, 1, 2].map((i) => ({
      body: newUser({ ghanaCardNumber: card, mobileNumber: mobiles[i] }),
      institution: server.institutions[i],
    }));
    const answers = await Promise.all(requests.map((r) => create(r.body, r.institution)));
    const winner = answers.find((a) => a.status === 201)?.body as {
      id: string;
      mobileNumber: string;
    };
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    answers.forEach((answer, index) => {
      const mobile = `+233${requests[index]?.body.mobileNumber.slice(-9)}`;
      if (mobile === winner.mobileNumber) {
        expect([200, 201]).toContain(answer.status);
        expect(idOf(answer)).toBe(winner.id);
      } else {
        expect(answer.status).toBe(409);
        expect(answer.text).not.toContain(winner.id);
      }
    });
  });

  test("a new user with another user's email answers 409 naming /body/email", async () => {
    const existing = newUser();
    await create(existing);
    const answer = await create(newUser({ email: existing.email }));
    expect(answer.status).toBe(409);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body).toEqual({
      type: 'urn:institution-api:problem:conflict',
      title: 'Conflict',
      status: 409,
      detail: 'The email address belongs to another user.',
      instance: '/api/v1/external/users',
      errors: [{ path: '/body/email', message: 'email belongs to another user' }],
    });
  });
});

describe('text and dates (spec Assumptions, "Text")', () => {
  const texts = {
    firstName: '\uFEFFKofi',
    lastName: 'Asa\uFEFFnte',
    otherName: '\uFEFF',
    gender: '\u{1F600}\u{1F3F3}\uFE0F\u200D\u{1F308}',
    kyc: {
      occupation: 'Trader\u2028of goods\u2029',
      address: 'Kuma\u0301si \u{1D400}',
      validFrom: '0001-01-01',
      validTo: '9999-12-31',
      refNumber: 'e\u0301\u0301',
    },
    accountType: 'BANK',
    accountNumber: '1021130012345',
    accountName: '\uFEFF\u{1F600}',
    bankName: 'G\u0308CB',
  };

  test('every string comes back byte for byte from create, from the same card again, and from update', async () => {
    const body = newUser({ ...texts, dateOfBirth: '0001-01-01' });
    const created = await create(body);
    expect(created.status).toBe(201);
    const expected = {
      firstName: texts.firstName,
      lastName: texts.lastName,
      otherName: texts.otherName,
      gender: texts.gender,
      kyc: texts.kyc,
      dateOfBirth: '0001-01-01T00:00:00.000Z',
    };
    expect(created.body).toMatchObject({
      ...expected,
      account: { account_name: texts.accountName, bank_name: texts.bankName },
    });
    // The bytes on the wire, not only the parsed value: U+FEFF, U+2028 and astral characters raw.
    expect(created.text).toContain(`"firstName":"${texts.firstName}"`);
    expect(created.text).toContain(`"occupation":"${texts.kyc.occupation}"`);
    expect((await create(body)).body).toEqual(created.body);
    const updated = await update(idOf(created), { ...body, dateOfBirth: '9999-12-31' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      ...expected,
      dateOfBirth: '9999-12-31T00:00:00.000Z',
      account: { accountName: texts.accountName, bankName: texts.bankName },
    });
  });

  test('a string that is not well-formed Unicode (a lone surrogate) answers 400 naming the field', async () => {
    for (const [change, path, name] of [
      [{ firstName: 'Kofi\ud800' }, '/body/firstName', 'firstName'],
      [{ kyc: { address: '\udc00' } }, '/body/kyc/address', 'kyc.address'],
      [{ otherName: '\ud83d' }, '/body/otherName', 'otherName'],
    ] as const) {
      const body = newUser(change);
      // JSON.stringify writes a lone surrogate as the escape \ud800, as a client's JSON would.
      expect(JSON.stringify(body)).toMatch(/\\ud[89a-f][0-9a-f]{2}/);
      const answer = await create(body);
      expect(answer.status).toBe(400);
      expect(errorsOf(answer)).toEqual([
        { path, message: `${name} must be well-formed Unicode (it has a lone surrogate)` },
      ]);
    }
  });

  test('dates from 0001-01-01 to 9999-12-31 are accepted; year 0000 answers 400 saying the range', async () => {
    for (const date of ['0001-01-01', '9999-12-31']) {
      const answer = await create(newUser({ dateOfBirth: date }));
      expect(answer.status).toBe(201);
      expect((answer.body as { dateOfBirth: string }).dateOfBirth).toBe(`${date}T00:00:00.000Z`);
    }
    const answer = await create(
      newUser({ dateOfBirth: '0000-01-01', kyc: { validTo: '0000-12-31' } }),
    );
    expect(answer.status).toBe(400);
    expect(errorsOf(answer)).toEqual([
      {
        path: '/body/dateOfBirth',
        message: 'dateOfBirth must be a date (YYYY-MM-DD) from 0001-01-01 to 9999-12-31',
      },
      {
        path: '/body/kyc/validTo',
        message: 'kyc.validTo must be a date (YYYY-MM-DD) from 0001-01-01 to 9999-12-31',
      },
    ]);
  });
});

describe('update (PUT /api/v1/external/users/{id})', () => {
  test('answers 200 with the update shape, valid against UserUpdated', async () => {
    const body = fullMomoUser() as Record<string, unknown>;
    const id = idOf(await create(body));
    const answer = await update(id, { ...body, firstName: 'Kwabena', monthlyIncome: 99.25 });
    expect(answer.status).toBe(200);
    expect(schemaErrors('UserUpdated', answer.body)).toEqual([]);
    const user = answer.body as Record<string, unknown>;
    expect(Object.keys(user)).toEqual(keysOf('UserUpdated'));
    expect(user).toMatchObject({ id, firstName: 'Kwabena', monthlyIncome: 99.25 });
    expect(user.image).toBe(body.image);
    expect(user).not.toHaveProperty('documents');
    expect(user).not.toHaveProperty('userImage');
    expect(user.dateOfBirth).toBe(`${body.dateOfBirth}T00:00:00.000Z`);
    // A MOMO account in camelCase, without the bankName key, as the spec's `UserUpdated` example.
    expect(user.account).toEqual({
      id: expect.any(String),
      accountType: 'MOMO',
      accountNumber: stored(body.accountNumber),
      network: body.network,
      accountName: body.accountName,
      createdAt: expect.any(String),
    });
  });

  test('a BANK account in the update shape carries bankName', async () => {
    const body = newUser();
    const id = idOf(await create(body));
    const bank = {
      ...body,
      accountType: 'BANK',
      accountNumber: 'GH-0012 3456',
      accountName: 'Kofi Asante',
      bankName: 'Ecobank',
    };
    const answer = await update(id, bank);
    expect(answer.status).toBe(200);
    expect((answer.body as { account: unknown }).account).toMatchObject({
      accountType: 'BANK',
      accountNumber: 'GH-0012 3456',
      network: null,
      bankName: 'Ecobank',
    });
    expect(schemaErrors('UserUpdated', answer.body)).toEqual([]);
  });

  test('update replaces: optional fields left out are cleared, the account removed', async () => {
    const full = fullMomoUser();
    const id = idOf(await create(full));
    const bare = {
      email: full.email,
      firstName: full.firstName,
      lastName: full.lastName,
      mobileNumber: full.mobileNumber,
      ghanaCardNumber: full.ghanaCardNumber,
      monthlyIncome: 0,
    };
    const answer = await update(id, bare);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      otherName: null,
      gender: null,
      dateOfBirth: null,
      kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
      ghanaCardImage: null,
      image: null,
      isGhanaCardVerified: false,
      monthlyIncome: 0,
      account: null,
    });
    // Create of the same card now returns the replaced details (create never overwrites them).
    const again = await create(full);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ otherName: null, account: null, userImage: null });
  });

  test('update normalizes like create', async () => {
    const body = newUser();
    const id = idOf(await create(body));
    const answer = await update(id, { ...body, mobileNumber: '233201234567' });
    expect((answer.body as { mobileNumber: string }).mobileNumber).toBe('+233201234567');
    expect((answer.body as { ghanaCardNumber: string }).ghanaCardNumber).toMatch(/^GHA-\d{9}-\d$/);
  });

  test('a user of another institution answers 404, the same as an id that does not exist', async () => {
    const body = newUser();
    const id = idOf(await create(body, server.institutions[0]));
    const elsewhere = await update(id, body, server.institutions[2]);
    const nowhere = await update(
      '6f1c1b7e-2a4d-4c3b-9e8f-0a1b2c3d4e5f',
      body,
      server.institutions[2],
    );
    expect(elsewhere.status).toBe(404);
    const withoutInstance = (answer: Answer) => ({ ...(answer.body as object), instance: 'x' });
    expect(withoutInstance(elsewhere)).toEqual(withoutInstance(nowhere));
    expect(elsewhere.body).toEqual({
      type: 'urn:institution-api:problem:not-found',
      title: 'Not found',
      status: 404,
      detail: 'No user with this id belongs to the calling institution.',
      instance: `/api/v1/external/users/${id}`,
    });
    expect(schemaErrors('Problem', elsewhere.body)).toEqual([]);
  });

  test("another user's email or Ghana Card number answers 409 naming the field", async () => {
    const first = newUser();
    const second = newUser();
    await create(first);
    const id = idOf(await create(second));
    const email = await update(id, { ...second, email: first.email });
    expect(email.status).toBe(409);
    expect(errorsOf(email)).toEqual([
      { path: '/body/email', message: 'email belongs to another user' },
    ]);
    const card = await update(id, { ...second, ghanaCardNumber: first.ghanaCardNumber });
    expect(card.status).toBe(409);
    expect(card.body).toMatchObject({
      type: 'urn:institution-api:problem:conflict',
      detail: 'The Ghana Card number belongs to another user.',
      errors: [
        { path: '/body/ghanaCardNumber', message: 'ghanaCardNumber belongs to another user' },
      ],
    });
  });

  test('an id that is not a UUID answers 400 naming /params/id', async () => {
    const answer = await update('not-a-uuid', newUser());
    expect(answer.status).toBe(400);
    expect(errorsOf(answer)).toEqual([{ path: '/params/id', message: 'id must be a UUID' }]);
  });

  test('the UUID spellings the spec format admits reach the same user, never a 500', async () => {
    const body = newUser();
    const id = idOf(await create(body));
    expect((await update(id.toUpperCase(), body)).status).toBe(200);
    expect((await update(`urn:uuid:${id}`, body)).status).toBe(200);
  });
});
