import type { Storage } from '../storage/types.js';

/**
 * How often one server process writes a key's "last used": at most once per key in this time, so
 * that `credentials list` tells a key in use from a dead one (to the minute) without a database
 * write per request.
 */
export const lastUsedIntervalMs = 60_000;

/** The most keys remembered at once; beyond, the oldest are forgotten (a key then writes again). */
const maxEntries = 10_000;

/**
 * A function to call with the public key of each request whose signature verified. It writes the
 * key's "last used" (Storage.recordCredentialUse) the first time it hears of the key and then at
 * most once per `intervalMs` per key: never once per request (spec: "Assumptions", credentials).
 * The write is not awaited: it is off the request's path, and a failure (the database down) is
 * given to `onError` and never reaches the request; the key writes again after the interval.
 */
export function lastUsedRecorder(
  storage: Pick<Storage, 'recordCredentialUse'>,
  options: { intervalMs?: number; now?: () => number; onError?: (error: unknown) => void } = {},
): (publicKey: string) => void {
  const intervalMs = options.intervalMs ?? lastUsedIntervalMs;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => {});
  const writtenAt = new Map<string, number>();
  return (publicKey) => {
    const at = now();
    const last = writtenAt.get(publicKey);
    if (last !== undefined && at - last < intervalMs) return;
    writtenAt.delete(publicKey);
    if (writtenAt.size >= maxEntries) {
      const oldest = writtenAt.keys().next().value;
      if (oldest !== undefined) writtenAt.delete(oldest);
    }
    writtenAt.set(publicKey, at);
    try {
      storage.recordCredentialUse(publicKey).catch(onError);
    } catch (error) {
      onError(error);
    }
  };
}
