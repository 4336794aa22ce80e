import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/**
 * The key encryption key: the AES-256 key the institutions' secret keys are sealed with in the
 * database (envelope encryption: the database holds only ciphertext, nonce, tag and this key's
 * {@link EncryptionKey.id}; the key itself lives outside it). Spec: "Assumptions", credentials.
 */
export interface EncryptionKey {
  /** A short fingerprint of the key (never the key): stored beside each row it sealed. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
  /** Where it came from, for messages: the variable, or the key file and its path. */
  source?: string;
}

/** The key that seals new secrets, and the one a re-encryption moves rows away from. */
export interface CredentialKeyring {
  current: EncryptionKey;
  /** CREDENTIALS_ENCRYPTION_KEY_PREVIOUS: still opens rows sealed with it, until `reencrypt`. */
  previous?: EncryptionKey;
}

/**
 * The operator's key does not fit the database (a wrong key, a missing key file, no key on
 * PostgreSQL). Its message is one line saying what to do, never a key or a secret; the server and
 * the command print it without a stack trace.
 */
export class EncryptionKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncryptionKeyError';
  }
}

/** The variable the current key comes from: it seals new secrets and opens the rows it sealed. */
export const encryptionKeyVariable = 'CREDENTIALS_ENCRYPTION_KEY';
/** The variable the key before it comes from, during a key change (`credentials reencrypt`). */
export const previousEncryptionKeyVariable = 'CREDENTIALS_ENCRYPTION_KEY_PREVIOUS';

/** How an operator makes a key: the same words wherever one is asked for. */
export const makeKeyHint = 'make one with `openssl rand -base64 32`';

/** Why PostgreSQL has no default key, and how to make one: one line. */
export const keyRequiredWithPostgres = `${encryptionKeyVariable} is required with PostgreSQL (every server process and the credentials command on one database need the same key): ${makeKeyHint}.`;

const keyBytes = 32;
/** Standard base64 of 32 bytes, as `openssl rand -base64 32` prints it (the padding optional). */
const base64Key = /^[A-Za-z0-9+/]{43}=?$/;

/**
 * The key in `value` (base64 of 32 bytes), or an error naming the variable and how to make one. The
 * message never repeats the value.
 */
export function parseEncryptionKey(variable: string, value: string): EncryptionKey {
  if (!base64Key.test(value)) {
    throw new Error(`${variable} must be 32 bytes in base64 (44 characters); ${makeKeyHint}.`);
  }
  return { ...encryptionKey(Buffer.from(value, 'base64')), source: variable };
}

/**
 * A key with its id: the first 16 hex digits of SHA-256 over a fixed label and the key. A
 * fingerprint tells keys apart (a wrong key is known before any decryption) and reveals nothing
 * of a random 256-bit key.
 */
export function encryptionKey(key: Buffer): EncryptionKey {
  if (key.length !== keyBytes) throw new Error(`An encryption key is ${keyBytes} bytes.`);
  const id = createHash('sha256')
    .update('institution-api credentials key id\0')
    .update(key)
    .digest('hex')
    .slice(0, 16);
  return { id, key };
}

/** A fresh random key (the embedded database's key file, an in-memory database's key). */
export function randomEncryptionKey(): EncryptionKey {
  return encryptionKey(randomBytes(keyBytes));
}

/** The key file of the embedded database in `databaseFile`: beside it, readable by its owner only. */
export function keyFileOf(databaseFile: string): string {
  return `${databaseFile}-credentials.key`;
}

/**
 * Reads the key file, or creates it (mode 0600, written whole under a temporary name and then
 * linked into place, so a process starting at the same moment reads either no file or the whole
 * key, and two processes never write two keys). `created` says which.
 */
export function loadOrCreateKeyFile(file: string): { key: EncryptionKey; created: boolean } {
  const existing = readKeyFile(file);
  if (existing) return { key: existing, created: false };
  const key = { ...randomEncryptionKey(), source: `the key file ${file}` };
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${key.key.toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process created it first: use theirs.
    const theirs = readKeyFile(file);
    if (!theirs) throw error;
    return { key: theirs, created: false };
  } finally {
    unlinkSync(temporary);
  }
  // The new directory entry must survive a power loss with the rows sealed under it.
  const directory = openSync(dirname(file), 'r');
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
  return { key, created: true };
}

function readKeyFile(file: string): EncryptionKey | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new EncryptionKeyError(
      `The key file ${file} cannot be read (${(error as NodeJS.ErrnoException).code}).`,
    );
  }
  try {
    return parseEncryptionKey(`the key file ${file}`, text.trim());
  } catch {
    throw new EncryptionKeyError(
      `The key file ${file} does not hold a key (base64 of 32 bytes): restore it from the copy you kept, or set ${encryptionKeyVariable}.`,
    );
  }
}
