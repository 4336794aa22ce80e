/**
 * `institution-api doctor <file|->`: why a request's signature fails, offline. It reads a raw
 * HTTP/1.1 request message (what a capture or a proxy's log holds), checks its `Authorization`
 * signature and its RFC 9421 message signature with INSTITUTION_SECRET_KEY, as the service does,
 * and names the cause a sandbox's `401` would name (spec: `Problem.diagnosis`), with the exact
 * bytes and the signature base it checked. Exit 0 when both hold, 1 when not, 2 when the input
 * cannot be read (or the command line is wrong). It never prints the secret key.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_SKEW_SECONDS, redactSecret } from '@institution-api/signing';
import { type CliIo, EXIT } from '../cli-io.js';
import { httpUrl, requiredEnv, signatureFlags, UsageError } from '../command-line.js';
import { examine } from './examine.js';
import { readHttpRequest, UnreadableMessage } from './http-message.js';
import { isValid, report } from './report.js';

/** What `doctor` needs beyond the other commands' outside world. */
export interface DoctorIo extends CliIo {
  /** Standard input, for `-`; the process's by default. */
  stdin?: AsyncIterable<Uint8Array>;
}

/** The `doctor --help` text; it names the environment variables, never their values. */
export function doctorUsage(): string {
  return `Usage:
  institution-api doctor <file|-> [--at UNIX-SECONDS] [--max-age SECONDS] [--origin URL]
                         [--require-message-signature] [--algorithm sha256|sha512]
                         [--encoding hex|base64]

Reads one raw HTTP/1.1 request message from the file (or standard input for -): the request
line, the header lines, an empty line, then the body, as a capture or a proxy's log holds it
(CRLF or LF line ends; the body framed by Content-Length or chunked). It checks both signatures
with INSTITUTION_SECRET_KEY, as the service does, and says why one fails, with the cause a
sandbox's 401 names in its diagnosis:
  authorization-malformed  the header is not <publicKey>:<signature>: a scheme word (HMAC,
                           Bearer), Basic, a space, a prefix (sha256=), another encoding
  body-bytes-differ        the HMAC is of other bytes: the same JSON written otherwise (layout,
                           key order, escapes, 2500.0), another charset, or other bytes
  key-misused              the HMAC was made with something else than the secret key's UTF-8
                           bytes: the public key, the secret decoded, cut, with a newline or
                           quotes, empty, swapped with the body, or a hash instead of an HMAC
  signature-base-differs   the message signature: a component missing, stale, reused,
                           mismatched or written otherwise, with the signature base it computed
  no-known-mistake         none of these: compare the body's length and SHA-256 with yours
It prints the request's body bytes (as a JSON string, every byte shown), their length and
SHA-256, and the signature base; it cannot know offline whether the service saw a nonce before,
nor the key pair's policy, and says so. It names the request's public key only when it is
INSTITUTION_PUBLIC_KEY, and never prints the secret key. Exit 0: both signatures hold; 1: one
does not; 2: the input is not a request message, or the command line is wrong.

Options:
  --at UNIX-SECONDS           the clock a message signature's created is checked against
                              (default: now), e.g. the time the request was captured
  --max-age SECONDS           how far created may be from that clock (default ${DEFAULT_MAX_SKEW_SECONDS},
                              the service's MESSAGE_SIGNATURE_MAX_AGE_SECONDS)
  --origin URL                the origin the request was sent to (https://api.example.com), for
                              @scheme, @authority and @target-uri (default: http:// and its Host)
  --require-message-signature the key pair requires a message signature (its policy): none is
                              then a failure
  --algorithm sha256|sha512   HMAC hash of Authorization (default sha256); as the service
  --encoding hex|base64       its encoding (default hex); as the service
  -h, --help                  show this help

Environment:
  INSTITUTION_SECRET_KEY      the secret key of the request's public key (required; never printed)
  INSTITUTION_PUBLIC_KEY      optional: the key the report names; a warning when the request
                              names another (not shown: it could be a secret)
`;
}

/**
 * Runs `institution-api doctor <args>` (the arguments after the command's name) and resolves to
 * its exit code; it never rejects.
 */
export async function doctor(args: string[], io: DoctorIo): Promise<number> {
  try {
    return await run(args, io);
  } catch (error) {
    // Messages name the bad setting or what the input lacks, never a key.
    const message = error instanceof Error ? error.message : String(error);
    const hint =
      error instanceof UsageError ? 'Run institution-api doctor --help for usage.\n' : '';
    io.stderr(`institution-api doctor: ${message}\n${hint}`);
    return EXIT.usage;
  }
}

async function run(args: string[], io: DoctorIo): Promise<number> {
  const { values, positionals } = parse(args);
  if (values.help) {
    io.stdout(doctorUsage());
    return EXIT.ok;
  }
  if (positionals.length !== 1)
    throw new UsageError('doctor expects one <file|-> (- for standard input)');
  const source = positionals[0] as string;
  const signature = signatureFlags(values);
  const now = values.at === undefined ? Math.floor(Date.now() / 1000) : seconds('--at', values.at);
  const maxAgeSeconds =
    values['max-age'] === undefined
      ? DEFAULT_MAX_SKEW_SECONDS
      : seconds('--max-age', values['max-age']);
  const origin =
    values.origin === undefined ? undefined : httpUrl('--origin', values.origin).origin;
  const required = values['require-message-signature'] === true;
  const secretKey = requiredEnv(io.env, 'INSTITUTION_SECRET_KEY');

  const publicKey = io.env.INSTITUTION_PUBLIC_KEY || undefined;
  // Nothing printed repeats the secret key, whatever the request carried where.
  const stderr = (text: string) => io.stderr(redactSecret(text, secretKey));
  const bytes = await input(source, io);
  let examination: Awaited<ReturnType<typeof examine>>;
  try {
    const request = await readHttpRequest(bytes);
    if (request.ignoredTrailingBytes > 0) {
      stderr(
        `institution-api doctor: note: ${request.ignoredTrailingBytes} byte(s) of line ends after the body, beyond its Content-Length, are not part of it\n`,
      );
    }
    examination = await examine(request, {
      secretKey,
      signature,
      now,
      maxAgeSeconds,
      origin,
      publicKey,
    });
  } catch (error) {
    if (error instanceof UnreadableMessage) {
      throw new Error(
        `${source === '-' ? 'standard input' : source} is not a request message: ${error.message}`,
      );
    }
    throw error;
  }
  const named =
    examination.authorization.status === 'missing'
      ? undefined
      : examination.authorization.publicKey;
  if (publicKey && named !== undefined && named !== publicKey) {
    stderr(
      `institution-api doctor: warning: the request's Authorization names another key than INSTITUTION_PUBLIC_KEY (${publicKey}), not shown (it could be a secret); it is checked with INSTITUTION_SECRET_KEY all the same\n`,
    );
  }
  io.stdout(
    redactSecret(
      report(examination, {
        now,
        maxAgeSeconds,
        required,
        publicKey,
        clockGiven: values.at !== undefined,
      }),
      secretKey,
    ),
  );
  return isValid(examination, required) ? EXIT.ok : EXIT.http;
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        at: { type: 'string' },
        'max-age': { type: 'string' },
        origin: { type: 'string' },
        'require-message-signature': { type: 'boolean' },
        algorithm: { type: 'string' },
        encoding: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A whole number of seconds from `flag`. */
function seconds(flag: string, value: string): number {
  if (!/^\d{1,12}$/.test(value)) throw new UsageError(`${flag} must be a whole number of seconds`);
  return Number(value);
}

/** The bytes of the file, or of standard input for `-`. */
async function input(source: string, io: DoctorIo): Promise<Uint8Array> {
  if (source === '-') {
    const chunks: Uint8Array[] = [];
    for await (const chunk of io.stdin ?? process.stdin) chunks.push(chunk);
    return new Uint8Array(Buffer.concat(chunks));
  }
  try {
    return new Uint8Array(await readFile(source));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(`cannot read ${source}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
}
