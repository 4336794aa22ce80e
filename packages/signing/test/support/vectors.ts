import { readFileSync } from 'node:fs';
import type { SignatureAlgorithm, SignatureEncoding } from '../../src/index.js';

export interface TestVector {
  name: string;
  algorithm: SignatureAlgorithm;
  encoding: SignatureEncoding;
  secretKey: string;
  body: string;
  bodyBase64: string;
  signature: string;
}

export interface TestVectorFile {
  description: string;
  vectors: TestVector[];
}

/** Read from disk rather than imported, so the tests see exactly the published file. */
export const vectorFile: TestVectorFile = JSON.parse(
  readFileSync(new URL('../../test-vectors.json', import.meta.url), 'utf8'),
);

export const vectors = vectorFile.vectors;

/** Raw bytes of a vector's body, decoded from bodyBase64 independently of the code under test. */
export function bodyBytes(vector: TestVector): Uint8Array {
  return new Uint8Array(Buffer.from(vector.bodyBase64, 'base64'));
}

/** A published RFC 9421 message-signature vector (`messageSignatures` in test-vectors.json). */
export interface MessageSignatureVector {
  name: string;
  method: string;
  url: string;
  /** Header fields the signature covers besides Content-Digest. */
  headers: Record<string, string>;
  body: string;
  bodyBase64: string;
  /** Ours: the secret key, whose UTF-8 bytes are the HMAC key. */
  secretKey?: string;
  /** RFC 9421's example: the raw HMAC key. */
  secretKeyBase64?: string;
  contentDigest: string;
  signatureInput: string;
  signatureBase: string;
  signature: string;
}

export const messageSignatureVectors: MessageSignatureVector[] = (
  vectorFile as unknown as { messageSignatures: MessageSignatureVector[] }
).messageSignatures;
