import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { StorageUnavailableError } from '../storage/health/unavailable.js';
import { isConflict, type NonceClaim, ReplayedNonceError, type Storage } from '../storage/types.js';
import { unauthenticated } from './authenticate.js';
import type { HttpProblem } from './problem.js';

/**
 * A signed request's nonce is recorded before the request is answered, once per key pair, so that
 * a replay is refused whatever the first answer was (spec: "Assumptions", message signatures).
 * Where it is recorded depends on the answer:
 * - a request that writes (a create, an update) hands the nonce to its write
 *   ({@link writeClaimingNonce}), which claims it in its own transaction: one commit, one round
 *   trip, for both;
 * - any other answer (refused by the rate limit, not valid, in conflict, a forced answer of the
 *   sandbox) claims it alone first ({@link claimNonceBeforeError}, {@link claimNonceNow}).
 * A replay is refused with the 401 of every other refusal; the log says `message-signature-replayed`.
 * A request answered 503 (the database unavailable) wrote nothing and recorded nothing: a replay
 * of it within the window does once what never happened.
 */

/**
 * Runs `write` with the request's unclaimed nonce (`res.locals.unclaimedNonce`) for the storage
 * to claim in the same transaction (Storage.createOrAddUser, updateUser). Once the storage
 * answered, a user or a conflict, the nonce is on record, and nothing else claims it; a replay
 * throws ReplayedNonceError, answered by {@link claimNonceBeforeError}.
 */
export async function writeClaimingNonce<T>(
  res: Response,
  write: (nonce: NonceClaim | undefined) => Promise<T>,
): Promise<T> {
  try {
    const written = await write(res.locals.unclaimedNonce);
    res.locals.unclaimedNonce = undefined;
    return written;
  } catch (error) {
    if (isConflict(error)) res.locals.unclaimedNonce = undefined;
    throw error;
  }
}

/**
 * The error handler of an authenticated operation's route, before the app's: a replay found by the
 * write becomes the 401; any other error of a request whose nonce is not on record yet records it
 * first, and is answered only if the nonce was fresh (the 401 otherwise). Not for a database that
 * is unavailable: that answer is a 503 whatever the nonce.
 */
export function claimNonceBeforeError(claimNonce: Storage['claimNonce']): ErrorRequestHandler {
  return async (error, req, res, next) => {
    const nonce = res.locals.unclaimedNonce;
    res.locals.unclaimedNonce = undefined;
    if (error instanceof ReplayedNonceError) {
      return next(await replayed(req, res, nonce?.publicKey));
    }
    if (!nonce || error instanceof StorageUnavailableError) return next(error);
    try {
      next((await replayOf(claimNonce, req, res, nonce)) ?? error);
    } catch (claimError) {
      next(claimError);
    }
  };
}

/**
 * Records the nonce now of a request that `answersWithoutWrite` says a middleware next answers
 * without a write and without an error (the sandbox's forced answers); the others go on with
 * theirs unclaimed, for their write.
 */
export function claimNonceNow(
  claimNonce: Storage['claimNonce'],
  answersWithoutWrite: (req: Request) => boolean,
): RequestHandler {
  return async (req, res, next) => {
    const nonce = res.locals.unclaimedNonce;
    if (!nonce || !answersWithoutWrite(req)) return next();
    res.locals.unclaimedNonce = undefined;
    try {
      next(await replayOf(claimNonce, req, res, nonce));
    } catch (error) {
      next(error);
    }
  };
}

/** Records `nonce` alone: nothing when it was fresh, the 401 of a replay when it was not. */
async function replayOf(
  claimNonce: Storage['claimNonce'],
  req: Request,
  res: Response,
  nonce: NonceClaim,
): Promise<HttpProblem | undefined> {
  return (await claimNonce(nonce)) ? undefined : replayed(req, res, nonce.publicKey);
}

/**
 * The 401 of a replay, counted as every refusal is (the 429 over a limit); in the sandbox, with
 * its diagnosis (authenticate.ts).
 */
function replayed(req: Request, res: Response, publicKey?: string): Promise<HttpProblem> {
  return (
    res.locals.refuseReplay?.() ??
    Promise.resolve(unauthenticated(req, 'message-signature-replayed', publicKey))
  );
}
