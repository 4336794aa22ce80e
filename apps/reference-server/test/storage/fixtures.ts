import {
  type CredentialKeyring,
  randomEncryptionKey,
} from '../../src/credentials/encryption-key.js';
import type { AccountDetails, Storage, UserDetails } from '../../src/storage/types.js';

/** The keys a storage under test seals its secrets with: a random one per storage. */
export function testKeyring(): CredentialKeyring {
  return { current: randomEncryptionKey() };
}

let sequence = 0;

/** A distinct person each call: own card number and email, the rest plausible and complete. */
export function person(overrides: Partial<UserDetails> = {}): UserDetails {
  sequence += 1;
  const serial = String(100_000_000 + sequence).slice(-9);
  return {
    email: `ama.mensah.${sequence}@example.com`,
    firstName: 'Ama',
    lastName: 'Mensah',
    otherName: 'Serwaa',
    gender: 'female',
    dateOfBirth: '1990-05-17',
    mobileNumber: '+233241234567',
    ghanaCardNumber: `GHA-${serial}-${sequence % 10}`,
    monthlyIncome: 2500.75,
    isGhanaCardVerified: true,
    image: 'https://cdn.example.com/users/ama.png',
    ghanaCardImage: 'https://cdn.example.com/cards/ama.png',
    kyc: {
      occupation: 'Teacher',
      address: '12 Independence Ave, Accra',
      validFrom: '2020-01-01',
      validTo: '2030-12-31',
      refNumber: 'KYC-0001',
    },
    account: momoAccount(),
    ...overrides,
  };
}

export function momoAccount(overrides: Partial<AccountDetails> = {}): AccountDetails {
  return {
    type: 'MOMO',
    number: '+233241234567',
    network: 'MTN',
    bankName: null,
    name: 'Ama Mensah',
    ...overrides,
  };
}

export function bankAccount(overrides: Partial<AccountDetails> = {}): AccountDetails {
  return {
    type: 'BANK',
    number: '0012345678901',
    network: null,
    bankName: 'GCB Bank',
    name: 'Ama Mensah',
    ...overrides,
  };
}

/** Creates an institution (with a key pair, as the server provisions them) and returns its id. */
export async function institution(storage: Storage, name: string): Promise<string> {
  const publicKey = `pk_${name.replaceAll(/\W/g, '_')}`;
  await storage.upsertCredentials([
    { institution: name, publicKey, secretKey: 'a-secret-of-16-chars-or-more' },
  ]);
  const found = await storage.findCredential(publicKey);
  if (!found) throw new Error(`institution ${name} was not stored`);
  return found.institutionId;
}
