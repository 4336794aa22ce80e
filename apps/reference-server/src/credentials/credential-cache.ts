import type { FoundCredential, Storage } from '../storage/types.js';

/** Looks a public key up; null when no institution has it. */
export type CredentialLookup = (publicKey: string) => Promise<FoundCredential | null>;

/**
 * How long a looked-up key pair (or the absence of one) is trusted without asking the database
 * again: a key pair issued, rotated or revoked while the server runs takes effect within this, in
 * every server process (spec: "Assumptions", credentials: the refusal bound).
 */
export const credentialTtlMs = 5_000;

/** The most public keys remembered at once; the oldest go first, so random keys cannot fill memory. */
const maxEntries = 10_000;

/**
 * {@link Storage.findCredential} behind an in-memory cache with a short TTL, so that a signed
 * request costs no database query for its key pair (on PostgreSQL a round trip per
 * request) and no decryption of its secret (the storage decrypts it once per lookup; spec
 * Assumptions, "Secrets at rest").
 * Unknown keys are remembered too, so a flood of made-up keys does not reach the database either.
 * Concurrent lookups of one key share one query.
 */
export function cachedCredentials(
  storage: Pick<Storage, 'findCredential'>,
  options: { ttlMs?: number; now?: () => number } = {},
): CredentialLookup {
  const ttlMs = options.ttlMs ?? credentialTtlMs;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { until: number; found: Promise<FoundCredential | null> }>();
  return (publicKey) => {
    const cached = entries.get(publicKey);
    if (cached && cached.until > now()) return cached.found;
    entries.delete(publicKey);
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
    const found = storage.findCredential(publicKey);
    entries.set(publicKey, { until: now() + ttlMs, found });
    // A failed lookup is not remembered: the next request asks again.
    found.catch(() => {
      if (entries.get(publicKey)?.found === found) entries.delete(publicKey);
    });
    return found;
  };
}
