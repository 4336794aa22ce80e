import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { CredentialKeyring, EncryptionKey } from './encryption-key.js';

/** A secret key as the database holds it: AES-256-GCM ciphertext, its nonce and tag, the key's id. */
export interface SealedSecret {
  keyId: string;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
  tag: Uint8Array;
}

const algorithm = 'aes-256-gcm';
/** 96 bits, GCM's own nonce size; random, so never repeated under one key in practice. */
const nonceBytes = 12;
const tagBytes = 16;

/**
 * Encrypts an institution's secret key with AES-256-GCM (node:crypto) under `key`. The public key
 * is the additional authenticated data, so a sealed secret opens only on its own row: copying
 * another key's ciphertext over a row does not give that row another key's secret.
 */
export function sealSecret(key: EncryptionKey, publicKey: string, secret: string): SealedSecret {
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv(algorithm, key.key, nonce, { authTagLength: tagBytes });
  cipher.setAAD(Buffer.from(publicKey, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return { keyId: key.id, nonce, ciphertext, tag: cipher.getAuthTag() };
}

/**
 * The secret `sealed` holds, opened with whichever key of `keyring` has its key id. Throws when no
 * key has that id, or when the tag does not verify (another key with a colliding id, or a row
 * altered in the database); the message names the public key and key ids, nothing secret.
 */
export function openSecret(
  keyring: CredentialKeyring,
  publicKey: string,
  sealed: SealedSecret,
): string {
  const key = [keyring.current, keyring.previous].find((k) => k?.id === sealed.keyId);
  if (!key) {
    throw new Error(`The secret of ${publicKey} is sealed with key ${sealed.keyId}, not given.`);
  }
  const decipher = createDecipheriv(algorithm, key.key, sealed.nonce, { authTagLength: tagBytes });
  decipher.setAAD(Buffer.from(publicKey, 'utf8'));
  decipher.setAuthTag(sealed.tag);
  try {
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(
      `The secret of ${publicKey} does not decrypt with key ${key.id}: the row was altered, or the key is not the one that sealed it.`,
    );
  }
}
