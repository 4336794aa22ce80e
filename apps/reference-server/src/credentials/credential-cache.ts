import type { FoundCredential, Storage } from '../storage/types.js';
import { maxPublicKeyLength } from './public-key-bounds.js';

/** Looks a public key up; null when no institution has it. */
export type CredentialLookup = (publicKey: string) => Promise<FoundCredential | null>;

/**
 * How long a looked-up key pair (or the absence of one) is trusted without asking the database
 * again: a key pair issued, rotated or revoked while the server runs takes effect within this, in
 * every server process (spec: "Assumptions", credentials: the refusal bound).
 */
export const credentialTtlMs = 5_000;

/** The most entries and (about) bytes one part of the cache holds. */
export interface CacheBound {
  entries: number;
  bytes: number;
}

/**
 * The bounds of the two parts of the cache. Known keys are only those the operator issued, so
 * their part is sized for every one of them; unknown keys are whatever callers make up, so
 * their part is small, and a flood of them evicts only other unknown keys, never a known one.
 */
export const credentialCacheBounds: Readonly<{ known: CacheBound; unknown: CacheBound }> = {
  known: { entries: 10_000, bytes: 16 * 1024 * 1024 },
  unknown: { entries: 4_096, bytes: 1024 * 1024 },
};

/** What one entry costs beside its strings: the Map's slot, the entry and the promise. */
const entryOverheadBytes = 200;

/** The answer for a key no one has. */
const noOne: Promise<FoundCredential | null> = Promise.resolve(null);

/**
 * {@link Storage.findCredential} behind an in-memory cache with a short TTL, so that a signed
 * request costs no database query for its key pair (on PostgreSQL a round trip per
 * request) and no decryption of its secret (the storage decrypts it once per lookup; spec
 * Assumptions, "Secrets at rest").
 *
 * Its memory is bounded whatever callers send:
 * - a public key longer than any stored key can be (`longestKey`: {@link maxPublicKeyLength}, or
 *   the longest key an earlier release provisioned, see `Storage.longestPublicKey`) is no one's:
 *   it is answered null at once, neither looked up nor remembered;
 * - known and unknown keys are kept apart, each part bounded in entries and bytes
 *   ({@link credentialCacheBounds}), the oldest entry going first: unknown keys are remembered
 *   too (a flood of one made-up key does not reach the database), but however many a caller
 *   makes up, they push out only other unknown keys, never the key pairs of institutions;
 * - an entry past its TTL leaves as soon as anything is added after it, not only when its part is
 *   full.
 * Concurrent lookups of one key share one query; a failed lookup is not remembered.
 */
export function cachedCredentials(
  storage: Pick<Storage, 'findCredential'>,
  options: {
    ttlMs?: number;
    now?: () => number;
    bounds?: { known: CacheBound; unknown: CacheBound };
    /** The longest public key any key pair has; {@link maxPublicKeyLength} when absent. */
    longestKey?: number;
  } = {},
): CredentialLookup & { sizes(): { known: CacheBound; unknown: CacheBound } } {
  const ttlMs = options.ttlMs ?? credentialTtlMs;
  const now = options.now ?? Date.now;
  const bounds = options.bounds ?? credentialCacheBounds;
  const longestKey = Math.max(maxPublicKeyLength, options.longestKey ?? 0);
  const known = new ExpiringEntries<Promise<FoundCredential | null>>(bounds.known);
  const unknown = new ExpiringEntries<Promise<FoundCredential | null>>(bounds.unknown);
  const inFlight = new Map<string, Promise<FoundCredential | null>>();

  const lookup: CredentialLookup = (publicKey) => {
    if (publicKey.length > longestKey) return noOne;
    const at = now();
    const cached =
      known.get(publicKey, at) ?? unknown.get(publicKey, at) ?? inFlight.get(publicKey);
    if (cached) return cached;
    const found = storage.findCredential(publicKey);
    inFlight.set(publicKey, found);
    found.then(
      (credential) => {
        inFlight.delete(publicKey);
        const until = at + ttlMs;
        if (credential) {
          const bytes =
            2 * (publicKey.length + credential.secretKey.length + credential.institution.length);
          known.set(publicKey, found, until, bytes, now());
        } else {
          unknown.set(publicKey, noOne, until, 2 * publicKey.length, now());
        }
      },
      () => inFlight.delete(publicKey),
    );
    return found;
  };
  return Object.assign(lookup, {
    /** What each part holds now: for tests and measurements. */
    sizes: () => ({ known: known.size(), unknown: unknown.size() }),
  });
}

/**
 * Entries that expire, in the order they were added (so also of their expiry: one TTL for all),
 * within a bound of entries and bytes: past it, the oldest go first.
 */
class ExpiringEntries<Value> {
  private readonly entries = new Map<string, { until: number; value: Value; bytes: number }>();
  private bytes = 0;

  constructor(private readonly bound: CacheBound) {}

  /** The value of `key` while it is fresh at `at`; a stale one is dropped. */
  get(key: string, at: number): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > at) return entry.value;
    this.delete(key);
    return undefined;
  }

  /** Adds `key` until `until`, counting `bytes` (and the overhead of an entry) against the bound. */
  set(key: string, value: Value, until: number, bytes: number, at: number): void {
    this.delete(key);
    const cost = bytes + entryOverheadBytes;
    for (const [oldest, entry] of this.entries) {
      const full = this.entries.size >= this.bound.entries || this.bytes + cost > this.bound.bytes;
      if (!full && entry.until > at) break;
      this.delete(oldest);
    }
    if (cost > this.bound.bytes) return;
    this.entries.set(key, { until, value, bytes: cost });
    this.bytes += cost;
  }

  size(): CacheBound {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
