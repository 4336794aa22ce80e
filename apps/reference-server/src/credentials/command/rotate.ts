import type { SignaturePolicy } from '../../storage/types.js';
import { durationHint, parseDuration } from '../duration.js';
import { rotateCredentials } from '../issue-credential.js';
import {
  expectPositionals,
  type Subcommand,
  signaturePolicyOption,
  stringOption,
  UsageError,
} from './subcommand.js';

/** The grace of a rotation when `--grace` is not given. */
export const defaultGrace = '24h';

/**
 * `credentials rotate --institution NAME [--grace DURATION] [--require-message-signature]`: a
 * fresh pair, and the institution's other active pairs set to expire after the grace (default
 * 24 h), in one transaction. Prints the new pair as `issue` does, with `others`: each other active
 * pair and when it expires. The new pair's policy is what the flag says, whatever the old pairs'
 * (rotating is how an institution moves to requiring message signatures).
 */
export const rotate: Subcommand<{
  institution: string;
  graceMs: number;
  signaturePolicy: SignaturePolicy;
}> = {
  usage: 'rotate --institution NAME [--grace DURATION] [--require-message-signature]',
  summary:
    `Issues a fresh key pair to the institution and sets its other active pairs to expire after\n` +
    `the grace (default ${defaultGrace}; 0s: at once). Prints the new pair as JSON, with the other\n` +
    "pairs and their expiry. With --require-message-signature, the new pair's requests need an\n" +
    'RFC 9421 message signature as well.',
  options: {
    institution: { type: 'string' },
    grace: { type: 'string' },
    ...signaturePolicyOption.options,
  },
  read(values, positionals) {
    expectPositionals(positionals, 0);
    const institution = stringOption(values, 'institution');
    if (!institution) throw new UsageError('--institution is required.');
    const graceMs = parseDuration(stringOption(values, 'grace') ?? defaultGrace);
    if (graceMs === undefined) throw new UsageError(`--grace must be a duration, ${durationHint}.`);
    return { institution, graceMs, signaturePolicy: signaturePolicyOption.read(values) };
  },
  async run({ institution, graceMs, signaturePolicy }, context) {
    const rotated = await rotateCredentials(context.storage, institution, {
      actor: context.actor,
      graceMs,
      signaturePolicy,
      now: context.now,
    });
    if (!rotated) {
      return context.refuse(
        `No institution is named "${institution}" (credentials issue creates one).`,
      );
    }
    context.logEvents(rotated.events);
    const { credential, others } = rotated;
    const printed = {
      ...credential,
      signaturePolicy,
      expiresAt: null,
      others: others.map(({ publicKey, expiresAt }) => ({
        publicKey,
        expiresAt: expiresAt?.toISOString() ?? null,
      })),
    };
    context.print(`${JSON.stringify(printed, null, 2)}\n`);
    return 0;
  },
};
