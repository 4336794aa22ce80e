/**
 * What the diagnosis tests share: a key pair as the reference server issues it (`pk_`, `sk_` and
 * base64url), requests as received, and the diagnosis of both entry points, which must agree.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import {
  type DiagnoseSignatureOptions,
  diagnoseSignature as diagnoseOnWebCrypto,
  type ReceivedMessage,
  type SignatureDiagnosis,
} from '../../src/index.js';
import { diagnoseSignature as diagnoseOnNode, signMessageSync, signSync } from '../../src/node.js';

export const KEYS = Object.freeze({
  publicKey: 'pk_Fq2m9XhJ0aLz7cVbN3sE4tY1',
  secretKey: 'sk_n8Tq3vKd9ZxW2mLp5rB7yH1cF4gJ6sA0eU3oI8kQ2wE',
});
export const NOW = 1_767_225_600;
export const URL_ = 'http://127.0.0.1:8080/api/v1/external/users';

/**
 * The diagnosis of both entries (Web Crypto and node:crypto), which must agree; the budget's
 * time bound, a backstop for a busy machine, out of the way of the answers tested.
 */
export async function diagnose(
  message: ReceivedMessage,
  extra: Partial<DiagnoseSignatureOptions> = {},
): Promise<SignatureDiagnosis | undefined> {
  const options = { ...KEYS, now: NOW, budget: { maxMilliseconds: 60_000 }, ...extra };
  const onWeb = await diagnoseOnWebCrypto(message, options);
  expect(await diagnoseOnNode(message, options), 'the ./node entry').toEqual(onWeb);
  return onWeb;
}

/** HMAC-SHA256 of `text` with `key`, in hex (or base64). */
export const hmac = (
  key: string | Uint8Array,
  text: string | Uint8Array,
  encoding: 'hex' | 'base64' = 'hex',
) => createHmac('sha256', key).update(text).digest(encoding);

/** A request as received: these bytes, these headers. */
export function request(
  body: string | Uint8Array,
  headers: Record<string, string>,
  { method = 'POST', url = URL_ } = {},
): ReceivedMessage {
  return {
    method,
    url,
    header: (name) => headers[name],
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
  };
}

/** Both signatures made right for `body` as sent, by the signing package. */
export function signedRight(body: string, created = NOW): Record<string, string> {
  return {
    authorization: `${KEYS.publicKey}:${signSync(body, KEYS.secretKey)}`,
    ...signMessageSync({ method: 'POST', url: URL_, body }, { ...keyOptions(), created }),
  };
}

const keyOptions = () => ({ keyId: KEYS.publicKey, secretKey: KEYS.secretKey });

/** Everything a diagnosis says, as one text, to look for what it must never say. */
export const said = (diagnosis: SignatureDiagnosis | undefined) => JSON.stringify(diagnosis);
