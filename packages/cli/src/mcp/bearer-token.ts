/**
 * The credential of `institution-api mcp --http`: a bearer token (RFC 6750), which every request
 * must carry in `Authorization: Bearer <token>` before anything is read or signed, since any
 * local process or OS user can reach a loopback port (MCP: "Security Best Practices", local
 * servers; the listener acts with the institution's keys). It is the one in
 * `INSTITUTION_MCP_TOKEN`, or in the file `--token-file` names, or else a new random one
 * printed once by the command. Compared in constant time, as digests of equal length.
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { UsageError } from '../command-line.js';

/** The shortest token accepted from the environment or a file: 128 bits of base64. */
export const MIN_TOKEN_LENGTH = 22;

/** RFC 6750 §2.1's `b64token`, the characters a bearer token may have. */
const b64token = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Where a token came from, as the command says it (never the token itself). */
export type TokenSource = 'generated' | 'INSTITUTION_MCP_TOKEN' | '--token-file';

/** The server's token and how to check a request's `Authorization` against it. */
export interface BearerToken {
  /** The token; printed once when generated, in no log line or answer. */
  readonly value: string;
  readonly source: TokenSource;
  /** Something the command should say about it (a token file other users can read). */
  readonly warning?: string;
  /** What a request's `Authorization` header amounts to: the token, another, or none. */
  check(authorization: string | undefined): 'valid' | 'missing' | 'invalid';
}

/** A new token: 256 random bits, base64url (43 characters). */
export function generateToken(): BearerToken {
  return bearerToken(randomBytes(32).toString('base64url'), 'generated');
}

/**
 * The token from `INSTITUTION_MCP_TOKEN` or `--token-file` (its first line, trimmed), or a new
 * one. Throws a {@link UsageError} naming the source, never the value, for one too short or
 * with characters a bearer token cannot have, and when both are given.
 */
export async function resolveToken(
  env: Record<string, string | undefined>,
  tokenFile: string | undefined,
): Promise<BearerToken> {
  const fromEnv = env.INSTITUTION_MCP_TOKEN?.trim();
  if (fromEnv && tokenFile !== undefined) {
    throw new UsageError('give the token by INSTITUTION_MCP_TOKEN or by --token-file, not both');
  }
  if (fromEnv) return checked(fromEnv, 'INSTITUTION_MCP_TOKEN');
  if (tokenFile === undefined) return generateToken();
  let text: string;
  try {
    text = await readFile(tokenFile, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new UsageError(`--token-file: cannot read the file (${code})`);
  }
  const token = checked(text.split(/\r?\n/, 1)[0]?.trim() ?? '', '--token-file');
  const { mode } = await stat(tokenFile);
  return (mode & 0o077) === 0
    ? token
    : {
        ...token,
        warning: `warning: the --token-file can be read by other users (mode ${(mode & 0o777).toString(8)}): chmod 600 it.`,
      };
}

function checked(value: string, source: Exclude<TokenSource, 'generated'>): BearerToken {
  if (value.length < MIN_TOKEN_LENGTH || !b64token.test(value)) {
    throw new UsageError(
      `the token of ${source} must be at least ${MIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  return bearerToken(value, source);
}

function bearerToken(value: string, source: TokenSource): BearerToken {
  const digest = sha256(value);
  return {
    value,
    source,
    check(authorization) {
      // RFC 9110 §11.1: the scheme is case-insensitive; one or more spaces before the token.
      const given = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
      if (given === undefined) return 'missing';
      // Digests of equal length, so neither the comparison's time nor an early length
      // mismatch tells anything about the token.
      return timingSafeEqual(sha256(given), digest) ? 'valid' : 'invalid';
    },
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
