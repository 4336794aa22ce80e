/**
 * Signing throughput for a ~1 KB user body. Everything runs in one group so each figure can be
 * read as a ratio against the bare `createHmac` baseline (the floor any implementation on
 * Node can reach). Run with `npm run bench` (`vitest bench --run`) in packages/signing.
 */
import { createHmac } from 'node:crypto';
import { test } from 'vitest';
import { signSync } from '../src/node.js';
import { createSigner as createNodeSigner } from '../src/signer-node.js';
import { createSigner as createWebSigner } from '../src/signer-web.js';
import { clearKeyCache, sign } from '../src/web-crypto.js';

const SECRET = 'test_secret_0123456789abcdef';

/** A full create/update body (spec: `UserInput`): a BANK account, KYC, images. */
const user = {
  email: 'adjoa.mensah-osei@example.com',
  firstName: 'Adjoa',
  lastName: 'Ménsah-Ɔsei',
  otherName: 'Ɛfua Serwaa',
  gender: 'female',
  dateOfBirth: '1990-05-17',
  mobileNumber: '+233241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 3200.75,
  isGhanaCardVerified: true,
  image:
    'https://cdn.example.com/institutions/kumasi-savings-group/users/adjoa-mensah-osei/profile-2026-11-21.jpg',
  ghanaCardImage:
    'https://cdn.example.com/institutions/kumasi-savings-group/users/adjoa-mensah-osei/ghana-card-front-2026-11-21.jpg',
  accountType: 'BANK',
  accountNumber: '1021130012345678',
  accountName: 'Adjoa Ménsah-Ɔsei',
  bankName: 'GCB Bank, Adum Branch',
  kyc: {
    occupation: 'Kente weaver and cloth trader',
    address:
      'House No. 12, Ɔsei Tutu II Avenue, Adum, Kumasi, Ashanti Region, Ghana; near the Kejetia market entrance, opposite the old fire station',
    validFrom: '2021-01-01',
    validTo: '2031-01-01',
    refNumber: 'KYC-2026-000042',
  },
};
const body = JSON.stringify(user);
const nodeSigner = createNodeSigner(SECRET);
const webSigner = createWebSigner(SECRET);
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
    bench('signer entry, node condition: createSigner(...)(body) sha256 hex', () => {
      nodeSigner(body);
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
    bench('signer entry, default condition (Web Crypto): createSigner(...)(body)', async () => {
      await webSigner(body);
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
