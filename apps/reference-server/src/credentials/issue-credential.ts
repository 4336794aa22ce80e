import type { InstitutionCredential, Storage } from '../storage/types.js';
import { generateCredential } from './generate-credential.js';

/**
 * Issues a fresh key pair to an institution (creating the institution if its name is new) and
 * stores it; the institution's earlier pairs keep working. What the issue-credentials command does.
 */
export async function issueCredential(
  storage: Storage,
  institution: string,
): Promise<InstitutionCredential> {
  const name = institution.trim();
  if (name === '') throw new Error('The institution name must not be empty.');
  const credential = generateCredential(name);
  await storage.upsertCredentials([credential]);
  return credential;
}
