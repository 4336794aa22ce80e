import { openStorage } from '../../../src/storage/open-storage.js';
import type { UserDetails } from '../../../src/storage/types.js';

/**
 * Child process of durability.test.ts: opens the database in argv[2], then creates users numbered
 * from argv[3] on, one after another, printing "acknowledged N" after each write returned, until it
 * is killed.
 */
const [dataDir, first = '1'] = process.argv.slice(2);
const storage = await openStorage(dataDir, { defaultDataDir: '/nonexistent' });
await storage.upsertCredentials([
  { institution: 'Durable Bank', publicKey: 'pk_durable', secretKey: 'durable-secret-0123456789' },
]);
const found = await storage.findCredential('pk_durable');
if (!found) throw new Error('institution not stored');
for (let n = Number(first); ; n++) {
  const serial = String(n).padStart(9, '0');
  const details: UserDetails = {
    email: `user${n}@example.com`,
    firstName: 'Kwame',
    lastName: 'Asante',
    otherName: null,
    gender: null,
    dateOfBirth: null,
    mobileNumber: '+233241234567',
    ghanaCardNumber: `GHA-${serial}-1`,
    monthlyIncome: n,
    isGhanaCardVerified: false,
    image: null,
    ghanaCardImage: null,
    kyc: { occupation: null, address: null, validFrom: null, validTo: null, refNumber: null },
    account: null,
  };
  await storage.createOrAddUser(found.institutionId, details);
  process.stdout.write(`acknowledged ${n}\n`);
}
