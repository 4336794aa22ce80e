/** How a burst of refusals of one key is paced (refusal-limit.ts). */
export interface PaceSettings {
  /** Refusals of a key answered at once in a burst. */
  burst: number;
  /** Refusals of a key answered at once per second, once its burst is spent. */
  perSecond: number;
}

/** The most keys whose pace is remembered: the oldest is forgotten first. */
const maxKeys = 10_000;

/**
 * A token bucket per key: `burst` tokens, refilled at `perSecond`; each refusal answered at once
 * takes one. Resolves `true` for a refusal to slow down: its key's bucket is empty (a slowed
 * refusal takes no token, so a key refused in a loop stays at `perSecond` answered at once,
 * smoothly, with no burst at each new second). Kept in this process's memory, whatever the
 * database: it paces this process's CPU. A key forgotten (the oldest, past 10,000 keys; a bucket
 * that full is worth nothing anyway) starts full again, as a new key does.
 */
export function refusalPace(
  { burst, perSecond }: PaceSettings,
  clock: () => number = () => performance.now(),
): (key: string) => boolean {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key) => {
    const now = clock();
    const bucket = buckets.get(key);
    let tokens = burst;
    if (bucket) {
      tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      buckets.delete(key);
    } else if (buckets.size >= maxKeys) {
      const oldest = buckets.keys().next().value;
      if (oldest !== undefined) buckets.delete(oldest);
    }
    const slow = tokens < 1;
    buckets.set(key, { tokens: slow ? tokens : tokens - 1, at: now });
    return slow;
  };
}
