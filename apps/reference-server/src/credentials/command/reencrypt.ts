import { encryptionKeyVariable, previousEncryptionKeyVariable } from '../encryption-key.js';
import { expectPositionals, type Subcommand } from './subcommand.js';

/**
 * `credentials reencrypt`: moves every secret sealed with CREDENTIALS_ENCRYPTION_KEY_PREVIOUS to
 * CREDENTIALS_ENCRYPTION_KEY (or the key file), in one transaction; each is an event.
 */
export const reencrypt: Subcommand<Record<string, never>> = {
  usage: 'reencrypt',
  summary:
    `Moves every secret encrypted with ${previousEncryptionKeyVariable} to ${encryptionKeyVariable}\n` +
    '(both must be set; on the embedded database the key file stands for the current key).',
  options: {},
  needsPreviousKey: true,
  read(_values, positionals) {
    expectPositionals(positionals, 0);
    return {};
  },
  async run(_args, context) {
    const events = await context.storage.sealCredentialSecrets({
      actor: context.actor,
      reencrypt: true,
    });
    context.logEvents(events);
    const moved = events.filter((event) => event.what === 'reencrypted').length;
    context.print(
      `Re-encrypted ${moved} secret key${moved === 1 ? '' : 's'}; every stored secret is now encrypted with the current key.\n`,
    );
    return 0;
  },
};
