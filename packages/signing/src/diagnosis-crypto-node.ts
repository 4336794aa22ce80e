/**
 * {@link DiagnosisCrypto} on node:crypto, for the `./node` entry's `diagnoseSignature`: a
 * synchronous HMAC per candidate, compared with `timingSafeEqual`, costs a few microseconds where
 * a Web Crypto job costs several times that, and a sandbox diagnoses refusals anyone can send.
 *
 * @module
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import type { DiagnosisCrypto } from './diagnosis-crypto.js';
import { CONTENT_DIGEST_HASH } from './message-signature.js';
import { verifyMessageSignatureSync } from './message-signature-node.js';

const nodeHash = { 'SHA-256': 'sha256', 'SHA-512': 'sha512', 'SHA-1': 'sha1' } as const;

/** {@link DiagnosisCrypto} on node:crypto. */
export const nodeDiagnosisCrypto: DiagnosisCrypto = {
  async macCheck(key, hash) {
    const algorithm = nodeHash[hash];
    // A KeyObject made once: node:crypto checks a raw key's type anew on every HMAC.
    const secret = createSecretKey(key);
    return async (mac, data) => {
      const computed = createHmac(algorithm, secret).update(data).digest();
      return computed.length === mac.length && timingSafeEqual(computed, mac);
    };
  },
  async digest(algorithm, bytes) {
    return new Uint8Array(createHash(CONTENT_DIGEST_HASH[algorithm].node).update(bytes).digest());
  },
  async verifyMessageSignature(message, options) {
    return verifyMessageSignatureSync(message, options);
  },
  clock() {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
};
