/**
 * The cryptography a diagnosis (signature-diagnosis.ts) tries its candidates with: a MAC compared
 * in constant time, and a digest. One interface, two implementations: Web Crypto here, for
 * browsers and every runtime, and node:crypto (diagnosis-crypto-node.ts), whose synchronous HMAC
 * costs a sandbox a fraction of Web Crypto's per candidate. Both give the same answers.
 *
 * No `node:` imports here; a test enforces it.
 *
 * @module
 */
import type {
  ContentDigestAlgorithm,
  MessageSignatureVerdict,
  ReceivedMessage,
  VerifyMessageSignatureOptions,
} from './message-signature.js';
import { CONTENT_DIGEST_HASH } from './message-signature.js';
import { verifyMessageSignature } from './message-signature-web.js';
import { subtle } from './subtle-crypto.js';

/** The hash of an HMAC (SHA-1 only to recognize a signer's mistake). */
export type MacHash = 'SHA-256' | 'SHA-512' | 'SHA-1';

/** Whether `mac` is the HMAC of `data` under one key, compared in constant time. */
export type MacCheck = (
  mac: Uint8Array<ArrayBuffer>,
  data: Uint8Array<ArrayBuffer>,
) => Promise<boolean>;

/** What a diagnosis computes with. */
export interface DiagnosisCrypto {
  /** The check of MACs keyed with `key` (raw bytes). */
  macCheck(key: Uint8Array, hash: MacHash): Promise<MacCheck>;
  /** The digest of `bytes`. */
  digest(algorithm: ContentDigestAlgorithm, bytes: Uint8Array): Promise<Uint8Array>;
  /**
   * The clock the budget's time bound is read on, in milliseconds: the process's CPU time where
   * there is one (node:crypto's), so that a machine busy with other processes does not end a
   * diagnosis early; `performance.now` otherwise.
   */
  clock?: () => number;
  /** The verdict on a request's RFC 9421 message signature, as a verifier gives it. */
  verifyMessageSignature(
    message: ReceivedMessage,
    options: VerifyMessageSignatureOptions,
  ): Promise<MessageSignatureVerdict>;
}

/** {@link DiagnosisCrypto} on Web Crypto (`crypto.subtle.verify` compares in constant time). */
export const webDiagnosisCrypto: DiagnosisCrypto = {
  async macCheck(key, hash) {
    const imported = await subtle().importKey(
      'raw',
      new Uint8Array(key),
      { name: 'HMAC', hash },
      false,
      ['verify'],
    );
    return (mac, data) => subtle().verify('HMAC', imported, mac, data);
  },
  async digest(algorithm, bytes) {
    return new Uint8Array(
      await subtle().digest(CONTENT_DIGEST_HASH[algorithm].web, new Uint8Array(bytes)),
    );
  },
  verifyMessageSignature,
};
