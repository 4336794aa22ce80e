import { isoMinute, minute, table } from './format.js';
import { type InstitutionFilter, institutionFilter, type Subcommand } from './subcommand.js';

/**
 * `credentials list [--institution NAME] [--json]`: every key pair with its institution, its
 * signature policy (`any` or `message-signature`), when it was created, expires, was revoked and
 * last used (to the minute); never a secret.
 */
export const list: Subcommand<InstitutionFilter> = {
  usage: 'list [--institution NAME] [--json]',
  summary:
    'Lists the key pairs: public key, institution, signature policy (any, or message-signature:\n' +
    'an RFC 9421 message signature required), created, expires, revoked, last used (UTC, to the\n' +
    'minute). Never a secret.',
  ...institutionFilter,
  async run({ institution, json }, context) {
    const records = await context.storage.listCredentials(institution ? { institution } : {});
    if (institution && records.length === 0) {
      return context.refuse(`No institution is named "${institution}".`);
    }
    if (json) {
      const printed = records.map((record) => ({
        publicKey: record.publicKey,
        institution: record.institution,
        signaturePolicy: record.signaturePolicy,
        createdAt: record.createdAt.toISOString(),
        expiresAt: record.expiresAt?.toISOString() ?? null,
        revokedAt: record.revokedAt?.toISOString() ?? null,
        revokedReason: record.revokedReason,
        lastUsedAt: isoMinute(record.lastUsedAt),
      }));
      context.print(`${JSON.stringify(printed, null, 2)}\n`);
      return 0;
    }
    const now = context.now();
    context.print(
      table(
        ['PUBLIC KEY', 'INSTITUTION', 'POLICY', 'CREATED', 'EXPIRES', 'REVOKED', 'LAST USED'],
        records.map((record) => [
          record.publicKey,
          record.institution,
          record.signaturePolicy,
          minute(record.createdAt),
          record.expiresAt && record.expiresAt.getTime() <= now
            ? `${minute(record.expiresAt)} (expired)`
            : minute(record.expiresAt),
          minute(record.revokedAt),
          minute(record.lastUsedAt),
        ]),
      ),
    );
    return 0;
  },
};
