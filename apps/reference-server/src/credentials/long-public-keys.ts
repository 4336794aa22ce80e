import { ConfigError } from '../config.js';
import type { InstitutionCredential, Storage } from '../storage/types.js';
import { maxPublicKeyLength } from './public-key-bounds.js';

/**
 * Refuses to provision a public key longer than {@link maxPublicKeyLength} (spec:
 * `InstitutionSignature`, "Keys") unless the database holds it already: an earlier release
 * provisioned keys of any length, and those keep working (`Storage.longestPublicKey` raises the
 * bound a request is held to), but no new one is made. Throws a {@link ConfigError} naming each
 * entry of INSTITUTION_CREDENTIALS, so the server does not start.
 */
export async function refuseNewLongPublicKeys(
  storage: Pick<Storage, 'findCredential'>,
  credentials: readonly InstitutionCredential[],
): Promise<void> {
  const problems: string[] = [];
  for (const [index, { publicKey }] of credentials.entries()) {
    if (publicKey.length <= maxPublicKeyLength) continue;
    if (await storage.findCredential(publicKey)) continue;
    problems.push(
      `INSTITUTION_CREDENTIALS[${index}].publicKey must be at most ${maxPublicKeyLength} characters (a longer one is kept only when an earlier release stored it).`,
    );
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid INSTITUTION_CREDENTIALS:\n${problems.join('\n')}`);
  }
}
