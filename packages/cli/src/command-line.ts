/**
 * What the `institution-api` commands (`sign`, `create`, `update`, `import`, `sign-proxy`, `mcp`) read
 * alike from their command line and environment: a flag that takes one of a few values (the
 * signature's `--algorithm` and `--encoding`), `--no-message-signatures`, a URL, the keys from
 * the environment, and the one error a wrong command line raises. Each command catches {@link UsageError} itself, so that its hint
 * names its own `--help`.
 *
 * @module
 */
import type { SignatureAlgorithm, SignatureEncoding } from '@institution-api/signing';

/** A wrong command line or environment, said in one line; `showUsage` asks for the whole usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `value` when it is one of `allowed`; else a {@link UsageError} naming `flag` and the values. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** The flags of every command that signs: `--algorithm`, `--encoding`, `--no-message-signatures`. */
export const signingFlags = {
  algorithm: { type: 'string' },
  encoding: { type: 'string' },
  'no-message-signatures': { type: 'boolean' },
} as const;

/**
 * The flags of a command that listens on this machine and signs for its callers (`sign-proxy`,
 * `mcp --http`): where it listens, and the names and origins it answers besides its own (see
 * request-addressee.ts).
 */
export const localListenerFlags = {
  port: { type: 'string' },
  host: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
} as const;

/** `--algorithm` and `--encoding`, checked; each only when given (the signer has the defaults). */
export function signatureFlags(values: { algorithm?: string; encoding?: string }): {
  algorithm?: SignatureAlgorithm;
  encoding?: SignatureEncoding;
} {
  return {
    ...(values.algorithm !== undefined && {
      algorithm: oneOf<SignatureAlgorithm>('--algorithm', values.algorithm, ['sha256', 'sha512']),
    }),
    ...(values.encoding !== undefined && {
      encoding: oneOf<SignatureEncoding>('--encoding', values.encoding, ['hex', 'base64']),
    }),
  };
}

/**
 * `--no-message-signatures` turns off the RFC 9421 message signature each command adds beside
 * `Authorization` (for a service that refuses header fields it does not know).
 */
export function messageSignaturesFlag(values: { 'no-message-signatures'?: boolean }): boolean {
  return values['no-message-signatures'] !== true;
}

/**
 * An absolute http or https URL without a user name or password, for `--url` and `--target`;
 * a {@link UsageError} naming `flag` otherwise (the value is not echoed: it could hold a secret).
 */
export function httpUrl(flag: string, value: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new UsageError(`${flag} must be an http or https URL, e.g. http://localhost:8080`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${flag} must not contain a user name or password`);
  }
  return url;
}

/**
 * The value of the environment variable `name`; a {@link UsageError} when it is unset or empty.
 * The message names the variable, never a value: it is how the secret key is read.
 */
export function requiredEnv(env: Record<string, string | undefined>, name: string): string {
  const value = env[name];
  if (!value) throw new UsageError(`${name} is not set`);
  return value;
}

/**
 * INSTITUTION_API_URL, refused with a `user:password@` part: fetch refuses such a URL on every
 * request, and its error repeats the URL, password included, into messages and reports.
 */
export function checkedApiUrl(url: string): string {
  if (URL.canParse(url)) {
    const { username, password } = new URL(url);
    if (username !== '' || password !== '') {
      throw new UsageError('INSTITUTION_API_URL must not contain a user name or password');
    }
  }
  return url;
}

/** `--port`: an integer from 0 to 65535, 0 (any free port) when not given. */
export function portFlag(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new UsageError(`--port must be an integer from 0 to 65535, not "${value}"`);
  }
  return port;
}

/** `parse(value)` for a flag's value, its error a {@link UsageError}. */
export function flagValue<T>(parse: (value: string) => T, value: string): T {
  try {
    return parse(value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
