/**
 * What every `institution-api` command shares and the commands' modules import from here, not
 * from `main.ts` (which imports them): the exit codes, the outside world of one run (`CliIo`),
 * the default address, the signing part of the help, and the words for a request that got no
 * answer.
 *
 * @module
 */
import type { FetchLike, UsersClientError } from '@institution-api/client';
import { describeSystemError } from './system-errors.js';

/** Exit codes: success, an HTTP error answer, and everything else (usage, files, network). */
export const EXIT = Object.freeze({ ok: 0, http: 1, usage: 2 });

/** The outside world of one run, injectable for tests. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  fetch?: FetchLike;
}

/** Default service address, the reference server's. */
export const DEFAULT_API_URL = 'http://localhost:8080';

/**
 * The end of the options and the environment of every command that signs (the CLI's own help
 * and `sign-proxy --help`): the names of the variables, never their values.
 */
export const SIGNING_HELP = `  --algorithm sha256|sha512   HMAC hash (default sha256); must match the service
  --encoding hex|base64       signature encoding (default hex); must match the service
  --no-message-signatures     send Authorization alone, without the RFC 9421 message signature
                              (Content-Digest, Signature-Input, Signature), for a service that
                              refuses header fields it does not know
  -h, --help                  show this help

Environment:
  INSTITUTION_PUBLIC_KEY      the institution's public key (required)
  INSTITUTION_SECRET_KEY      the institution's secret key (required; never printed)
  INSTITUTION_API_URL         the service's address (default ${DEFAULT_API_URL})
`;

/** What `report` says about the request, beyond its result. */
export interface Sent {
  /** The URL the request went to. */
  target: string;
  /** The service's address, to tell a local reference server from a remote service. */
  baseUrl: string;
  /** The monthlyIncome in the file. */
  sentIncome: unknown;
}

/** A network failure or timeout, naming the URL, the cause and what to try. */
export function failureMessage(error: UsersClientError, { target, baseUrl }: Sent): string {
  const local = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:|\/|$)/i.test(baseUrl);
  const hint = local
    ? "Is the reference server running? Start it with `npm start` in the toolkit's repository, or set INSTITUTION_API_URL to the service's address."
    : 'Check INSTITUTION_API_URL and your network.';
  if (error.kind === 'network') {
    const code = systemCode(error.cause);
    const why = code === undefined ? error.message : describeSystemError(code);
    return `cannot reach ${target}: ${why}.\n${hint}`;
  }
  if (error.kind === 'timeout')
    return `no complete answer from ${target}: ${error.message}.\n${hint}`;
  return `${error.kind} error from ${target}: ${error.message}`;
}

/** Node's fetch reports "fetch failed"; the system error code is on its cause. */
function systemCode(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}
