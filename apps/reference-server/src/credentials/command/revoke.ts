import { credentialTtlMs } from '../credential-cache.js';
import { expectPositionals, type Subcommand, stringOption, UsageError } from './subcommand.js';

/** A reason is a line of text for the record, not a document. */
const maxReasonLength = 500;

/**
 * `credentials revoke PUBLIC_KEY [--reason TEXT]`: the pair is refused from then on, by every
 * server process within the credential cache's bound, whatever INSTITUTION_CREDENTIALS says.
 */
export const revoke: Subcommand<{ publicKey: string; reason: string | null }> = {
  usage: 'revoke PUBLIC_KEY [--reason TEXT]',
  summary: `Revokes the key pair: every server refuses it within ${credentialTtlMs / 1000} s, as it refuses an unknown key.`,
  options: { reason: { type: 'string' } },
  read(values, positionals) {
    expectPositionals(positionals, 1);
    const publicKey = positionals[0]?.trim();
    if (!publicKey) throw new UsageError('The public key to revoke is required.');
    const reason = stringOption(values, 'reason') ?? null;
    if (reason && reason.length > maxReasonLength) {
      throw new UsageError(`--reason must be at most ${maxReasonLength} characters.`);
    }
    return { publicKey, reason };
  },
  async run({ publicKey, reason }, context) {
    const revoked = await context.storage.revokeCredential(publicKey, {
      actor: context.actor,
      reason,
    });
    if (!revoked) return context.refuse(`No key pair has the public key ${publicKey}.`);
    const { record, alreadyRevoked, events } = revoked;
    if (alreadyRevoked) {
      return context.refuse(
        `${publicKey} (${record.institution}) was revoked already, at ${record.revokedAt?.toISOString()}.`,
      );
    }
    context.logEvents(events);
    context.print(
      `Revoked ${publicKey} (${record.institution}) at ${record.revokedAt?.toISOString()}: ` +
        `every server refuses it within ${credentialTtlMs / 1000} s.\n`,
    );
    return 0;
  },
};
