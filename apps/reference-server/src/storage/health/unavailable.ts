import type { Storage } from '../types.js';

/**
 * The database cannot serve the call right now: a fault of the infrastructure (down, restarting,
 * its connections killed, too many clients, disk full, read-only, slower than its bounds), never
 * of the caller or of our code. Nothing was written. The HTTP layer answers 503 `unavailable` with
 * `Retry-After` (spec: `ServiceUnavailable`; spec Assumptions, "Errors").
 */
export class StorageUnavailableError extends Error {
  constructor(
    /** What the engine reported, in a few words an operator can act on (no secret). */
    readonly reason: string,
    options: { cause: unknown },
  ) {
    super(`the database is unavailable: ${reason}`, options);
    this.name = 'StorageUnavailableError';
  }
}

/**
 * An engine's reading of an error it threw: the reason when it is a fault of the infrastructure,
 * undefined when it is anything else (a bug, which stays a 500).
 */
export type FaultClassifier = (error: unknown) => string | undefined;

/** Hears every call of a guarded storage: for the outage log (see outage-log.ts). */
export interface StorageHealthObserver {
  /** The call `call` failed because the database is unavailable. */
  unavailable(error: StorageUnavailableError, call: GuardedCall): void;
  /** A call succeeded: the database answers. */
  available(): void;
}

/**
 * One of the storage's calls that reach the database: all but `close`, and a rate limiter's
 * `consume` as `rateLimit`.
 */
export type GuardedCall = Exclude<keyof Storage, 'close' | 'rateLimiter'> | 'rateLimit';

/**
 * `storage` with its engine's faults turned into {@link StorageUnavailableError} at its boundary,
 * the one place each engine classifies them (so no handler has to), and `observer` told of every
 * call's outcome. Other errors (conflicts, bugs) pass through unchanged. The rate limiters it makes
 * count in the database too, so their `consume` is guarded the same way.
 */
export function guardStorage(
  storage: Storage,
  classify: FaultClassifier,
  observer?: StorageHealthObserver,
): Storage {
  const guard =
    <Args extends unknown[], Result>(name: GuardedCall, call: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      try {
        const result = await call(...args);
        observer?.available();
        return result;
      } catch (error) {
        const fault = asUnavailable(error, classify);
        if (!fault) {
          // A conflict or a not-found is the database answering.
          observer?.available();
          throw error;
        }
        observer?.unavailable(fault, name);
        throw fault;
      }
    };
  const guarded = { ...storage };
  for (const name of Object.keys(storage) as (keyof Storage)[]) {
    if (name === 'close' || name === 'rateLimiter') continue;
    (guarded[name] as (...args: unknown[]) => Promise<unknown>) = guard(
      name,
      storage[name] as (...args: unknown[]) => Promise<unknown>,
    );
  }
  guarded.rateLimiter = (limit, windowSeconds, counts) => {
    const limiter = storage.rateLimiter(limit, windowSeconds, counts);
    return { consume: guard('rateLimit', (key: string) => limiter.consume(key)) };
  };
  return guarded;
}

/** `error` as a {@link StorageUnavailableError} when `classify` calls it a fault, else undefined. */
function asUnavailable(
  error: unknown,
  classify: FaultClassifier,
): StorageUnavailableError | undefined {
  if (error instanceof StorageUnavailableError) return error;
  const reason = classify(error);
  return reason === undefined ? undefined : new StorageUnavailableError(reason, { cause: error });
}
