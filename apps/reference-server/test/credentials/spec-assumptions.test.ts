import { openapiDocument } from '@institution-api/types';
import { expect, test } from 'vitest';
import { defaultGrace } from '../../src/credentials/command/rotate.js';
import { credentialTtlMs } from '../../src/credentials/credential-cache.js';
import { parseDuration } from '../../src/credentials/duration.js';
import { defaultMessageSignatureMaxAgeSeconds } from '../../src/http/message-signature.js';

/** The spec's words (Assumptions, the security scheme) and what this server does, kept equal. */
const description = openapiDocument.info.description ?? '';
const assumptions = description.slice(description.indexOf('# Assumptions'));
const signature = openapiDocument.components?.securitySchemes?.InstitutionSignature as
  | { description?: string }
  | undefined;
const scheme = (signature?.description ?? '').replaceAll('\n', ' ');
const keyLifecycle = /- \*\*Key lifecycle\*\*[\s\S]*?(?=\n- )/
  .exec(assumptions)?.[0]
  .replaceAll(/\s+/g, ' ');

test('the refusal bound the spec states is the credential cache’s', () => {
  const seconds = credentialTtlMs / 1000;
  expect(keyLifecycle).toContain(`refuses a revoked key within ${seconds} seconds`);
  expect(scheme).toContain(`A revoked key is refused within ${seconds} seconds`);
});

test('the default grace of a rotation the spec states is the command’s', () => {
  const hours = (parseDuration(defaultGrace) ?? 0) / 3_600_000;
  expect(keyLifecycle).toContain(`(${hours} hours unless chosen otherwise)`);
  expect(scheme).toContain(`(${hours} hours unless agreed otherwise)`);
});

test('the spec says a refused key answers as an unknown one, and how secrets are stored', () => {
  expect(keyLifecycle).toContain('An expired or revoked key answers exactly as an unknown one');
  expect(keyLifecycle).toContain('Provisioning never brings a revoked key back');
  expect(assumptions).toContain('stores it encrypted (AES-256-GCM) under a key kept');
  expect(scheme).toContain('unknown, expired or revoked public key');
});

test('the message-signature window the spec states is the server’s default', () => {
  const seconds = defaultMessageSignatureMaxAgeSeconds;
  expect(scheme).toContain(`\`created\` must be within ${seconds} seconds of the service's clock`);
  expect(assumptions.replaceAll(/\s+/g, ' ')).toContain(
    `\`created\` must be within ${seconds} s of the service's clock (the reference server's \`MESSAGE_SIGNATURE_MAX_AGE_SECONDS\`)`,
  );
});
