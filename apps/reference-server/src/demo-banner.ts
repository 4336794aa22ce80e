import { signBodySync } from '@institution-api/signing/node';
import { openapiDocument, type UserInput } from '@institution-api/types';
import type { Config } from './config.js';
import type { InstitutionCredential } from './storage/types.js';

/** The request example the signed curl line sends (spec: `components.examples.UserWithoutAccount`). */
export function exampleUser(): UserInput {
  const examples = openapiDocument.components.examples as Record<string, { value: UserInput }>;
  const example = examples.UserWithoutAccount;
  if (!example) throw new Error('The spec has no UserWithoutAccount example.');
  return example.value;
}

/**
 * The one line a production start (NODE_ENV=production) logs on a database with no institution,
 * where no demo pair is made: how to issue a key pair (docs/credentials.md).
 */
export const noInstitutionInProduction =
  'no institution, and NODE_ENV=production makes no demo one: issue a key pair with ' +
  '`node bin/institution-api-server.js credentials issue --institution "Name"` ' +
  '(in the repository: `npm run credentials -w @institution-api/reference-server -- issue --institution "Name"`) ' +
  'or set INSTITUTION_CREDENTIALS; until then every request is refused 401';

/** `value` as one single-quoted shell word. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * What `npm start` prints once listening, on stdout and outside the logger: where the API and its
 * docs are, and — only on the start that created the demo institution (spec Assumptions,
 * "Credentials": printed once) — the demo key pair and a `curl` line with a signed create of the
 * spec's example, sent with `--data-binary` so the bytes are exactly the signed text.
 */
export function startBanner(options: {
  baseUrl: string;
  /** Where the metrics are served, when METRICS_PORT is set. */
  metricsUrl?: string | undefined;
  config: Config;
  demo: InstitutionCredential | undefined;
}): string {
  const { baseUrl, metricsUrl, config, demo } = options;
  const lines = [
    '',
    `Institution API reference server listening on ${baseUrl}`,
    `  API:  ${baseUrl}/api/v1/external/users`,
    `  docs: ${baseUrl}/docs`,
    `  spec: ${baseUrl}/openapi.yaml`,
    ...(metricsUrl ? [`  metrics: ${metricsUrl}`] : []),
  ];
  if (demo) {
    const { text, signature } = signBodySync(exampleUser(), demo.secretKey, config.signature);
    lines.push(
      '',
      'No institution was configured, so a demo institution was created.',
      'Its keys are shown this once: keep them. (To issue more, rotate or revoke keys, run',
      '  npm run credentials -w @institution-api/reference-server -- issue --institution "Name")',
      `  public key: ${demo.publicKey}`,
      `  secret key: ${demo.secretKey}`,
      '',
      'Try a signed create (201 the first time, 200 after: the user then exists):',
      [
        `curl -i ${baseUrl}/api/v1/external/users`,
        `-H 'Content-Type: application/json'`,
        `-H ${shellQuote(`Authorization: ${demo.publicKey}:${signature}`)}`,
        `--data-binary ${shellQuote(text)}`,
      ].join(' \\\n  '),
    );
  }
  return `${lines.join('\n')}\n\n`;
}
