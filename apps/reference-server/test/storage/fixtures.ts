import {
  distinctUserBody,
  userBody,
  userBodyExamples,
} from '@institution-api/test-support/user-bodies';
import {
  type CredentialKeyring,
  randomEncryptionKey,
} from '../../src/credentials/encryption-key.js';
import type { AccountDetails, Storage, UserDetails } from '../../src/storage/types.js';
import { normalizeUserInput } from '../../src/users/normalize-user-input.js';

/** The keys a storage under test seals its secrets with: a random one per storage. */
export function testKeyring(): CredentialKeyring {
  return { current: randomEncryptionKey() };
}

/**
 * A distinct person each call, as the HTTP layer hands it to storage: the spec's MOMO request
 * example (test-support's builder) with its own card number and email, normalized, then
 * `overrides`.
 */
export function person(overrides: Partial<UserDetails> = {}): UserDetails {
  return { ...normalizeUserInput(distinctUserBody()), ...overrides };
}

/** The MOMO account of the spec's MOMO request example, as storage keeps it. */
export function momoAccount(overrides: Partial<AccountDetails> = {}): AccountDetails {
  return { ...exampleAccount(userBodyExamples[0]), ...overrides };
}

/** The BANK account of the spec's BANK request example, as storage keeps it. */
export function bankAccount(overrides: Partial<AccountDetails> = {}): AccountDetails {
  return { ...exampleAccount(userBodyExamples[1]), ...overrides };
}

function exampleAccount(example: string | undefined): AccountDetails {
  const { account } = normalizeUserInput(userBody(example));
  if (!account) throw new Error(`the spec's example ${example} has no account`);
  return account;
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
