import { second, table } from './format.js';
import { type InstitutionFilter, institutionFilter, type Subcommand } from './subcommand.js';

/** `credentials log [--institution NAME] [--json]`: the events of the key lifecycle, oldest first. */
export const log: Subcommand<InstitutionFilter> = {
  usage: 'log [--institution NAME] [--json]',
  summary:
    'Shows every change of the key pairs, oldest first: time (UTC), what, public key, institution,\n' +
    'who (the OS user, or "start" for what a server start did) and why.',
  ...institutionFilter,
  async run({ institution, json }, context) {
    const events = await context.storage.listCredentialEvents(institution ? { institution } : {});
    if (institution && events.length === 0) {
      return context.refuse(`No event names an institution "${institution}".`);
    }
    if (json) {
      const printed = events.map((event) => ({ ...event, at: event.at.toISOString() }));
      context.print(`${JSON.stringify(printed, null, 2)}\n`);
      return 0;
    }
    context.print(
      table(
        ['TIME', 'WHAT', 'PUBLIC KEY', 'INSTITUTION', 'WHO', 'REASON'],
        events.map((event) => [
          second(event.at),
          event.what,
          event.publicKey,
          event.institution,
          event.actor,
          event.reason ?? '',
        ]),
      ),
    );
    return 0;
  },
};
