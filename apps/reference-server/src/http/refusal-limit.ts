import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { setTimeout as delay } from 'node:timers/promises';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { RateLimitCount, RateLimitWindow, Storage } from '../storage/types.js';
import { HttpProblem, problemKinds } from './problem.js';
import { rateLimitWindowSeconds } from './rate-limit.js';
import { type PaceSettings, refusalPace } from './refusal-pace.js';

// ipaddr.js is CommonJS whose types are an `export =` namespace: module.exports is the library.
const ipaddr: typeof import('ipaddr.js') = createRequire(import.meta.url)('ipaddr.js');

/** REFUSALS_PER_MINUTE_PER_KEY and REFUSALS_PER_MINUTE_PER_ADDRESS; 0 or absent: not limited. */
export interface RefusalLimits {
  /** Refused requests per presented public key and window. */
  perKey?: number | undefined;
  /** Refused requests per client address (an IPv6 one by its /64) and window. */
  perAddress?: number | undefined;
  /** RATE_LIMIT_WINDOW_SECONDS (tests only): the window; a minute when absent. */
  windowSeconds?: number | undefined;
  /** Tests only: how refusals in a burst are slowed; {@link refusalSlowdown} when absent. */
  slowdown?: (PaceSettings & { ms: number }) | undefined;
}

/** The defaults: generous for an integrator debugging a signature, a bound for a flood. */
export const defaultRefusalLimits = { perKey: 300, perAddress: 1_200 } as const;

/**
 * How refusals of one public key are paced (refusal-pace.ts): `burst` answered at once, then
 * `perSecond`; past that, the answer to each (its `401`, or the `429` once over the key's limit)
 * waits `ms` before it is sent, and gets no diagnosis (the answers before it had one). A client
 * that sends its next
 * request when it has the answer (every HTTP client, and a flood's loop) is then held to four
 * requests a second per connection; waiting costs no CPU. An integrator fixing a signature, or a
 * conformance suite checking that every wrong signature is refused, sends fewer and is answered
 * at once. On a machine shared with a flood's sender, that is what keeps the CPU for everyone
 * else. Refusals counted by address alone (made-up keys, each new, the cheapest refusals) are not
 * slowed: their limit answers them with a `429` at once.
 */
export const refusalSlowdown = { burst: 50, perSecond: 20, ms: 250 } as const;

/**
 * What counting a refusal says: `over`, the `429` to answer instead of the `401` when it is over a
 * limit; `paced`, that it was slowed (a client refused in a loop), so its `401` gets no diagnosis.
 */
export interface RefusalCount {
  over?: HttpProblem;
  paced: boolean;
}

/** Counts a refused request (see {@link refusalCounter}). */
export type RefusalCounter = (
  req: Request,
  res: Response,
  publicKey: string | undefined,
) => Promise<RefusalCount>;

/** The policies' names in the RateLimit header fields. */
const policies = {
  'refused-by-address': 'refusals-per-address',
  'refused-by-key': 'refusals-per-key',
};

/**
 * The limit of refused requests (spec Assumptions, "Rate limits"; `TooManyRequests`): every
 * request refused for its signature (the `401`s of authenticate.ts and nonce-claims.ts) is counted
 * against the client's address and, when it presents one, against its public key, before any
 * costly work on it (the sandbox's diagnosis). Over either limit it gets the `429` of the rate
 * limit instead, with `Retry-After` and the RateLimit fields of the policy it is over, and no
 * diagnosis; in production as in the sandbox.
 *
 * - Only refusals are counted, never a request whose signatures verify: neither a flood of bad
 *   signatures from an address nor one naming a public key (which is not a secret) can refuse
 *   anybody's valid requests, from that address or signed with that key.
 * - Every presented key is counted alike, known or not, so that a `429` never tells a key that
 *   exists from one that does not (spec Assumptions, "Credentials"); it is counted by a digest of
 *   128 bits, so a long made-up key costs no more than a short one.
 * - The address is `req.ip`: the peer's, or with TRUST_PROXY the client's as the trusted proxies
 *   forward it; an IPv6 address counts by its /64, which one host may hold whole.
 * - The counts are the storage's (`Storage.rateLimiter`, counts of their own): in PostgreSQL,
 *   shared by every server process, so N processes allow each limit once, not N times; an
 *   address or key over its limit is remembered in each process until its window ends, costing
 *   no query. A database that cannot count fails the request as unavailable (`503`).
 * - Its log is bounded too: the first `429` of a window is a warning, the others are debug.
 * - Past a burst of refusals of one key, each answer waits a little before it is sent, and gets
 *   no diagnosis ({@link refusalSlowdown}), so that a client refused in a loop sends a few
 *   requests a second, not as many as the machine allows, and each costs the least.
 */
export function refusalCounter(
  storage: Pick<Storage, 'rateLimiter'>,
  limits: RefusalLimits,
  logger?: Pick<Logger, 'warn'>,
): RefusalCounter | undefined {
  const windowSeconds = limits.windowSeconds ?? rateLimitWindowSeconds;
  const counter = (counts: RateLimitCount, limit: number | undefined) =>
    limit
      ? { counts, limit, limiter: storage.rateLimiter(limit, windowSeconds, counts) }
      : undefined;
  const byAddress = counter('refused-by-address', limits.perAddress);
  const byKey = counter('refused-by-key', limits.perKey);
  if (!byAddress && !byKey) return undefined;
  const slowdown = limits.slowdown ?? refusalSlowdown;
  const tooFast = refusalPace(slowdown);
  const window = windowSeconds === 60 ? 'a minute' : `${windowSeconds} s`;

  const over = (
    res: Response,
    { counts, limit }: NonNullable<typeof byKey>,
    counted: RateLimitWindow,
    subject: string,
  ): HttpProblem => {
    const policy = policies[counts as keyof typeof policies];
    const seconds = Math.max(1, Math.ceil(counted.resetsInMs / 1000));
    if (counted.counted === limit + 1) {
      logger?.warn({ policy, limit, windowSeconds }, 'refused requests limited');
    }
    res.setHeader('RateLimit-Policy', `"${policy}";q=${limit};w=${windowSeconds}`);
    res.setHeader('RateLimit', `"${policy}";r=0;t=${seconds}`);
    return new HttpProblem(
      problemKinds.rateLimited,
      `More than ${limit} requests ${subject} were refused in ${window} (their signature did not verify); retry after the number of seconds in Retry-After, once the signature is fixed.`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  };

  return async (req, res, publicKey) => {
    // Paced first, whichever limit answers: a key refused in a loop is slowed even once its
    // address is over its own limit.
    const digest = publicKey === undefined ? undefined : keyDigest(publicKey);
    const paced = digest !== undefined && tooFast(digest);
    if (paced) await delay(slowdown.ms);
    if (byAddress) {
      const window = await byAddress.limiter.consume(clientAddress(req));
      if (!window.allowed) {
        return { over: over(res, byAddress, window, 'from this address'), paced };
      }
    }
    if (byKey && digest !== undefined) {
      const window = await byKey.limiter.consume(digest);
      if (!window.allowed) {
        return { over: over(res, byKey, window, 'signed with this public key'), paced };
      }
    }
    return { paced };
  };
}

/**
 * The address a request's refusals count against: `req.ip` (TRUST_PROXY decides whose), an
 * IPv4-mapped IPv6 address as IPv4, any other IPv6 address by its /64.
 */
export function clientAddress(req: Pick<Request, 'ip' | 'socket'>): string {
  const address = req.ip ?? req.socket.remoteAddress ?? '';
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as InstanceType<typeof ipaddr.IPv6>).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}

/** 128 bits of the SHA-256 of `publicKey`: what a refusal is counted against, whatever its length. */
function keyDigest(publicKey: string): string {
  return createHash('sha256').update(publicKey).digest('base64url').slice(0, 22);
}
