import { durationHint, parseDuration } from '../duration.js';
import { issueCredential } from '../issue-credential.js';
import { expectPositionals, type Subcommand, stringOption, UsageError } from './subcommand.js';

/**
 * `credentials issue --institution NAME [--expires-in DURATION]`: a fresh key pair, printed as
 * JSON `{ institution, publicKey, secretKey, expiresAt }`, the only time its secret is shown.
 */
export const issue: Subcommand<{ institution: string; expiresInMs?: number }> = {
  usage: 'issue --institution NAME [--expires-in DURATION]',
  summary:
    'Issues a fresh key pair to the institution (created if new) and prints it as JSON: the only\n' +
    "time its secret is shown. The institution's other pairs keep working.",
  options: { institution: { type: 'string' }, 'expires-in': { type: 'string' } },
  read(values, positionals) {
    expectPositionals(positionals, 0);
    const institution = stringOption(values, 'institution');
    if (!institution) throw new UsageError('--institution is required.');
    const expiresIn = stringOption(values, 'expires-in');
    if (expiresIn === undefined) return { institution };
    const expiresInMs = parseDuration(expiresIn);
    if (!expiresInMs) {
      throw new UsageError(`--expires-in must be a duration above zero, ${durationHint}.`);
    }
    return { institution, expiresInMs };
  },
  async run({ institution, expiresInMs }, context) {
    const { credential, expiresAt, events } = await issueCredential(context.storage, institution, {
      actor: context.actor,
      now: context.now,
      ...(expiresInMs === undefined ? {} : { expiresInMs }),
    });
    context.logEvents(events);
    context.print(
      `${JSON.stringify({ ...credential, expiresAt: expiresAt?.toISOString() ?? null }, null, 2)}\n`,
    );
    return 0;
  },
};
