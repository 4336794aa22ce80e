/**
 * The prepared path of `createMessageSigner` on node:crypto (a signer's fixed parts serialized
 * once) gives exactly the headers of the general `signMessageSync` for the same `created` and
 * nonce, for bodies or none, other labels, digests and key ids that need escaping.
 */
import { describe, expect, it, vi } from 'vitest';
import type { MessageSignatureHeaders, MessageToSign } from '../src/index.js';
import { signMessageSync, verifyMessageSignatureSync } from '../src/node.js';
import { createMessageSigner, type MessageSignerOptions } from '../src/signer-node.js';

/** `created` and `nonce` of a Signature-Input written by the signer. */
function createdAndNonce(headers: MessageSignatureHeaders): { created: number; nonce: string } {
  const input = headers['signature-input'];
  const created = /;created=(\d+);/.exec(input)?.[1];
  const nonce = /;nonce="([A-Za-z0-9_-]+)";/.exec(input)?.[1];
  if (created === undefined || nonce === undefined) throw new Error(`unexpected ${input}`);
  return { created: Number(created), nonce };
}

const messages: [string, MessageToSign][] = [
  [
    'a create',
    { method: 'POST', url: 'https://api.example.com/api/v1/external/users', body: '{"a":"Ɔ"}' },
  ],
  [
    'an update, body as bytes',
    {
      method: 'PUT',
      url: 'http://127.0.0.1:8080/base/api/v1/external/users/3f0c9a52?x=1',
      body: new TextEncoder().encode('{"firstName":"Ama"}'),
    },
  ],
  ['an empty body', { method: 'POST', url: 'https://api.example.com/u', body: '' }],
  ['no body', { method: 'GET', url: 'https://api.example.com/u/%2F..%2F?q=1' }],
];

const optionSets: MessageSignerOptions[] = [
  { keyId: 'pk_test_institution', secretKey: 'sk_test' },
  { keyId: 'key "quoted" \\ and spaced', secretKey: 'sk ü', label: 'proxy-1', digest: 'sha-512' },
];

describe('createMessageSigner on node:crypto, prepared', () => {
  for (const options of optionSets) {
    it.each(messages)(
      `${options.keyId}: %s is signed as signMessageSync signs it`,
      (_, message) => {
        const signed = createMessageSigner(options)(message) as MessageSignatureHeaders;
        const general = signMessageSync(message, { ...options, ...createdAndNonce(signed) });
        expect(signed).toEqual(general);
        const body = message.body;
        const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
        const verdict = verifyMessageSignatureSync(
          {
            method: message.method,
            url: message.url,
            header: (name) => signed[name as keyof MessageSignatureHeaders],
            body: bytes ?? new Uint8Array(),
          },
          options,
        );
        expect(verdict).toMatchObject({ status: 'valid', label: options.label ?? 'sig1' });
      },
    );
  }

  it('gives each request a nonce of its own (the time in ms, then 80 random bits, in hex), later ones sorting after', async () => {
    const signer = createMessageSigner(optionSets[0] as MessageSignerOptions);
    const message = messages[0]?.[1] as MessageToSign;
    const nonces = new Set<string>();
    for (let i = 0; i < 600; i++) {
      nonces.add(createdAndNonce(signer(message) as MessageSignatureHeaders).nonce);
    }
    expect(nonces.size).toBe(600);
    for (const nonce of nonces) expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    const before = [...nonces].sort().at(-1) ?? '';
    // A later millisecond, when the test says: the clock in the test's hands.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1 });
    try {
      const after = createdAndNonce(signer(message) as MessageSignatureHeaders).nonce;
      expect(after > before).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('still refuses a label that is not a dictionary key, at creation', () => {
    expect(() =>
      createMessageSigner({ ...(optionSets[0] as MessageSignerOptions), label: 'Sig 1' }),
    ).toThrow();
  });
});
