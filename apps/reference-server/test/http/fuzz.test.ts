import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  fullMomoUser,
  newUser,
  schemaErrors,
  startTestServer,
  type TestServer,
} from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fields = [
  'email',
  'firstName',
  'lastName',
  'otherName',
  'gender',
  'dateOfBirth',
  'mobileNumber',
  'ghanaCardNumber',
  'monthlyIncome',
  'isGhanaCardVerified',
  'image',
  'ghanaCardImage',
  'kyc',
  'accountType',
  'accountNumber',
  'accountName',
  'network',
  'bankName',
  'nickname',
];
const values: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5e300,
  '',
  ' ',
  'x'.repeat(300),
  'Ɔkɔmfo 👩🏾',
  '\u202e',
  '0241234567',
  '+233551234567',
  'gha1234567890',
  'GHA-000000000-0',
  '1990-05-17',
  '2024-02-29',
  '2023-02-29',
  '0001-01-01',
  'https://x.example/a.png',
  'MOMO',
  'BANK',
  'MTN',
  'AIRTEL_TIGO',
  [],
  [1, 'a'],
  {},
  { occupation: 'x' },
  { validFrom: '2020-13-01' },
  { refNumber: null, address: 'x'.repeat(501) },
  { nested: { deeper: [{}] } },
];

test('400 random bodies: never a 500, and every answer matches the spec', async () => {
  const next = random(20261121);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const statuses = new Map<number, number>();
  const existing = (await server.send('POST', '/api/v1/external/users', { body: newUser() }))
    .body as { id: string };
  for (let i = 0; i < 400; i++) {
    const body: Record<string, unknown> = { ...(next() < 0.5 ? fullMomoUser() : newUser()) };
    for (let changes = 1 + Math.floor(next() * 3); changes > 0; changes--) {
      const field = pick(fields);
      if (next() < 0.2) delete body[field];
      else body[field] = structuredClone(pick(values));
    }
    const update = next() < 0.3;
    const answer = await server.send(
      update ? 'PUT' : 'POST',
      update ? `/api/v1/external/users/${existing.id}` : '/api/v1/external/users',
      { body },
    );
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    expect(answer.status, JSON.stringify(body)).toBeLessThan(500);
    const schema = answer.status >= 400 ? 'Problem' : update ? 'UserUpdated' : 'UserCreated';
    expect(schemaErrors(schema, answer.body), JSON.stringify(body)).toEqual([]);
  }
  // The mix exercised both outcomes.
  expect(statuses.get(400)).toBeGreaterThan(50);
  expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0)).toBeGreaterThan(10);
});
