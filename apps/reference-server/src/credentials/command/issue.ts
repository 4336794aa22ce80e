import type { SignaturePolicy } from '../../storage/types.js';
import { durationHint, parseDuration } from '../duration.js';
import { issueCredential } from '../issue-credential.js';
import {
  expectPositionals,
  type Subcommand,
  signaturePolicyOption,
  stringOption,
  UsageError,
} from './subcommand.js';

/**
 * `credentials issue --institution NAME [--expires-in DURATION] [--require-message-signature]`: a
 * fresh key pair, printed as JSON `{ institution, publicKey, secretKey, signaturePolicy,
 * expiresAt }`, the only time its secret is shown.
 */
export const issue: Subcommand<{
  institution: string;
  expiresInMs?: number;
  signaturePolicy: SignaturePolicy;
}> = {
  usage: 'issue --institution NAME [--expires-in DURATION] [--require-message-signature]',
  summary:
    'Issues a fresh key pair to the institution (created if new) and prints it as JSON: the only\n' +
    "time its secret is shown. The institution's other pairs keep working. With\n" +
    '--require-message-signature, its requests need an RFC 9421 message signature as well.',
  options: {
    institution: { type: 'string' },
    'expires-in': { type: 'string' },
    ...signaturePolicyOption.options,
  },
  read(values, positionals) {
    expectPositionals(positionals, 0);
    const institution = stringOption(values, 'institution');
    if (!institution) throw new UsageError('--institution is required.');
    const signaturePolicy = signaturePolicyOption.read(values);
    const expiresIn = stringOption(values, 'expires-in');
    if (expiresIn === undefined) return { institution, signaturePolicy };
    const expiresInMs = parseDuration(expiresIn);
    if (!expiresInMs) {
      throw new UsageError(`--expires-in must be a duration above zero, ${durationHint}.`);
    }
    return { institution, expiresInMs, signaturePolicy };
  },
  async run({ institution, expiresInMs, signaturePolicy }, context) {
    const { credential, expiresAt, events } = await issueCredential(context.storage, institution, {
      actor: context.actor,
      now: context.now,
      signaturePolicy,
      ...(expiresInMs === undefined ? {} : { expiresInMs }),
    });
    context.logEvents(events);
    const printed = {
      ...credential,
      signaturePolicy,
      expiresAt: expiresAt?.toISOString() ?? null,
    };
    context.print(`${JSON.stringify(printed, null, 2)}\n`);
    return 0;
  },
};
