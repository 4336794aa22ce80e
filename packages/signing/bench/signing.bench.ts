/**
 * Signing throughput for a ~1 KB user body. Everything runs in one group so each figure can be
 * read as a ratio against the bare `createHmac` baseline (the floor any implementation on
 * Node can reach). Run with `npm run bench` (`vitest bench --run`) in packages/signing.
 */
import { createHmac } from 'node:crypto';
import { test } from 'vitest';
import { signSync } from '../src/node.js';
import { clearKeyCache, sign } from '../src/web-crypto.js';

const SECRET = 'test_secret_0123456789abcdef';

const user = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  preferredName: 'Adjoa Ménsah',
  phoneNumber: '+233201234567',
  role: 'student',
  externalId: 'STU-2024-00042',
  dateOfBirth: '2004-03-17',
  address: {
    line1: 'House No. 12, Ɔsei Tutu II Avenue',
    line2: 'Adum',
    city: 'Kumasi',
    region: 'Ashanti',
    country: 'GH',
    postalCode: 'AK-039-5028',
  },
  programme: { code: 'BSC-CS', name: 'BSc Computer Science', startYear: 2023, level: 200 },
  groups: ['students', 'cs-200', 'library', 'sports-athletics', 'hall-unity'],
  emergencyContact: { name: 'Ɛfua Mensah', relationship: 'mother', phoneNumber: '+233241234567' },
  preferences: { language: 'tw', newsletter: true, notifications: ['email', 'sms'] },
  notes:
    'Transferred from the Accra campus; library card reissued. Prefers correspondence in Twi or English.',
  createdBy: 'registrar@example.com',
  previousInstitutions: [
    { name: 'Prempeh College', country: 'GH', from: 2017, to: 2020 },
    { name: 'Opoku Ware Senior High School', country: 'GH', from: 2020, to: 2022 },
  ],
};
const body = JSON.stringify(user);
const rawKey = await crypto.subtle.importKey(
  'raw',
  new TextEncoder().encode(SECRET),
  { name: 'HMAC', hash: 'SHA-256' },
  false,
  ['sign'],
);
const bytes = Buffer.byteLength(body);
if (bytes < 900 || bytes > 1200)
  throw new Error(`benchmark body is ${bytes} bytes, expected ~1 KB`);

// Vitest 5: `bench` is a test-context fixture; `bench.compare` runs the group and prints one table.
test(`sign a ${bytes}-byte user body`, async ({ bench }) => {
  await bench.compare(
    bench('baseline: bare createHmac sha256 hex', () => {
      createHmac('sha256', SECRET).update(body).digest('hex');
    }),
    bench('node signSync sha256 hex', () => {
      signSync(body, SECRET);
    }),
    bench('node signSync sha512 hex', () => {
      signSync(body, SECRET, { algorithm: 'sha512' });
    }),
    bench('baseline: bare crypto.subtle.sign sha256 (pre-imported key, no encoding)', async () => {
      await crypto.subtle.sign('HMAC', rawKey, new TextEncoder().encode(body));
    }),
    bench('Web Crypto sign sha256 hex (cached key)', async () => {
      await sign(body, SECRET);
    }),
    bench('Web Crypto sign sha256 hex (key imported each call)', async () => {
      clearKeyCache();
      await sign(body, SECRET);
    }),
    bench('Web Crypto sign sha512 hex (cached key)', async () => {
      await sign(body, SECRET, { algorithm: 'sha512' });
    }),
  );
});
