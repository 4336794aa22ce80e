import type {
  CredentialEvent,
  CredentialRecord,
  InstitutionCredential,
  SignaturePolicy,
  Storage,
} from '../storage/types.js';
import { generateCredential } from './generate-credential.js';

/** The pair with the policy asked for; `any` (the default) is left implicit. */
function withPolicy(
  credential: InstitutionCredential,
  { signaturePolicy }: { signaturePolicy?: SignaturePolicy },
): InstitutionCredential {
  return signaturePolicy && signaturePolicy !== 'any'
    ? { ...credential, signaturePolicy }
    : credential;
}

/** A key pair just issued: the only time its secret is known outside the database. */
export interface Issued {
  credential: InstitutionCredential;
  expiresAt: Date | null;
  events: CredentialEvent[];
}

/** Options of {@link issueCredential}. */
export interface IssueCredentialOptions {
  /** Who issues it (the OS user, or `start`). */
  actor: string;
  /** The pair expires after this long; absent: never. */
  expiresInMs?: number;
  /** Recorded with the event. */
  reason?: string;
  /** What the pair's requests need besides the Authorization header; default `any`. */
  signaturePolicy?: SignaturePolicy;
  now?: () => number;
}

/** The institution name as stored: trimmed, never empty. */
function institutionName(institution: string): string {
  const name = institution.trim();
  if (name === '') throw new Error('The institution name must not be empty.');
  return name;
}

/**
 * Issues a fresh key pair to an institution (creating the institution if its name is new) and
 * stores it, its secret encrypted; the institution's other pairs keep working. What `credentials
 * issue` does, and the start for the demo institution.
 */
export async function issueCredential(
  storage: Storage,
  institution: string,
  options: IssueCredentialOptions,
): Promise<Issued> {
  const credential = withPolicy(generateCredential(institutionName(institution)), options);
  const now = options.now ?? Date.now;
  const expiresAt =
    options.expiresInMs === undefined ? null : new Date(now() + options.expiresInMs);
  const issued = await storage.issueCredential(credential, {
    actor: options.actor,
    expiresAt,
    reason: options.reason ?? null,
  });
  if (!issued) throw new Error('Issuing a key pair created no institution.');
  return { credential, expiresAt, events: issued.events };
}

/** A rotation done: the new pair, and the institution's other pairs with their expiry. */
export interface Rotated extends Issued {
  /** The other pairs of the institution that are neither revoked nor expired, oldest first. */
  others: CredentialRecord[];
}

/**
 * Rotates an institution's keys (`credentials rotate`): issues a fresh pair and sets each of the
 * institution's other pairs that is neither revoked nor expiring sooner to expire after
 * `graceMs`, in one transaction. Undefined when no institution has this name.
 */
export async function rotateCredentials(
  storage: Storage,
  institution: string,
  options: {
    actor: string;
    graceMs: number;
    signaturePolicy?: SignaturePolicy;
    now?: () => number;
  },
): Promise<Rotated | undefined> {
  const credential = withPolicy(generateCredential(institutionName(institution)), options);
  const now = options.now ?? Date.now;
  const issued = await storage.issueCredential(credential, {
    actor: options.actor,
    expiresAt: null,
    rotation: { othersExpireAt: new Date(now() + options.graceMs) },
  });
  if (!issued) return undefined;
  const at = now();
  const others = (await storage.listCredentials({ institution: credential.institution })).filter(
    (record) =>
      record.publicKey !== credential.publicKey &&
      record.revokedAt === null &&
      (record.expiresAt === null || record.expiresAt.getTime() > at),
  );
  return { credential, expiresAt: null, events: issued.events, others };
}
