import type { Logger } from 'pino';
import type { CredentialEvent } from '../storage/types.js';

/**
 * Logs each event of the key lifecycle as one line, beside its row in the events table (spec:
 * "Assumptions", credentials): `info`, except a revoked or expired pair that INSTITUTION_CREDENTIALS
 * names and the start therefore skipped, which is the one `warn` line naming its public key (the
 * operator should take it out of the variable). Never a secret: events hold none.
 */
export function logCredentialEvents(logger: Logger, events: readonly CredentialEvent[]): void {
  for (const { at, publicKey, institution, what, reason, actor } of events) {
    const fields = { event: what, publicKey, institution, reason, actor, at: at.toISOString() };
    if (what === 'provision-skipped') {
      logger.warn(
        fields,
        `INSTITUTION_CREDENTIALS names ${publicKey}, which stays refused (${reason})`,
      );
    } else {
      logger.info(fields, `credential ${what}`);
    }
  }
}
