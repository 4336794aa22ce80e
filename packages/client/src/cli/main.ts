/**
 * The `institution-api` command: sign a JSON file, or send it as a create or an update, from a
 * shell. Kept apart from `cli.ts` (the executable) so tests can run it in-process with their own
 * environment, output streams and `fetch`.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  formatAuthorization,
  type SignatureAlgorithm,
  type SignatureEncoding,
  sign,
} from '@institution-api/signing';
import type { UserInput } from '@institution-api/types';
import type { FetchLike } from '../resilient-fetch.js';
import { createUsersClient, type UsersClientResult } from '../users-client.js';

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

/** The `--help` text; it names the environment variables but never shows their values. */
export const USAGE = `Usage:
  institution-api sign <file.json>          print the Authorization header value for the file
  institution-api create <file.json>        create a user (or add an existing one)
  institution-api update <id> <file.json>   replace a user's details

Options:
  --algorithm sha256|sha512   HMAC hash (default sha256); must match the service
  --encoding hex|base64       signature encoding (default hex); must match the service
  -h, --help                  show this help

Environment:
  INSTITUTION_PUBLIC_KEY      the institution's public key (required)
  INSTITUTION_SECRET_KEY      the institution's secret key (required; never printed)
  INSTITUTION_API_URL         the service's address (default ${DEFAULT_API_URL})

sign covers the file's exact bytes, as they are (no re-serialization), so send the file
byte for byte, e.g. curl --data-binary @file.json. create and update send the parsed file
re-serialized with JSON.stringify, signed over those bytes.
They print the user as JSON in one canonical shape; an HTTP error prints the service's
problem details as JSON and exits 1; usage, file and network errors exit 2.
`;

class UsageError extends Error {}

/** Runs one command line and resolves to its exit code; it never rejects. */
export async function main(args: string[], io: CliIo): Promise<number> {
  try {
    return await run(args, io);
  } catch (error) {
    // Messages of the signing package and the client name the bad setting, never its value,
    // so printing them cannot leak the secret.
    const message = error instanceof Error ? error.message : String(error);
    const hint = error instanceof UsageError ? '\nRun institution-api --help for usage.' : '';
    io.stderr(`institution-api: ${message}${hint}\n`);
    return EXIT.usage;
  }
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args);
  if (values.help) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const signature = {
    algorithm: oneOf<SignatureAlgorithm>('--algorithm', values.algorithm, ['sha256', 'sha512']),
    encoding: oneOf<SignatureEncoding>('--encoding', values.encoding, ['hex', 'base64']),
  };
  const [command, ...operands] = positionals;
  const expected = { sign: 1, create: 1, update: 2 }[command ?? ''];
  if (expected === undefined) throw new UsageError('expected a command: sign, create or update');
  if (operands.length !== expected) {
    throw new UsageError(
      `${command} expects ${command === 'update' ? '<id> <file.json>' : '<file.json>'}`,
    );
  }
  const publicKey = requiredEnv(io.env, 'INSTITUTION_PUBLIC_KEY');
  const secretKey = requiredEnv(io.env, 'INSTITUTION_SECRET_KEY');
  const file = await read(operands.at(-1) ?? '');

  if (command === 'sign') {
    const mac = await sign(file, secretKey, signature);
    io.stdout(`${formatAuthorization(publicKey, mac)}\n`);
    return EXIT.ok;
  }

  const body = parseJson(file) as UserInput;
  const client = createUsersClient({
    baseUrl: io.env.INSTITUTION_API_URL || DEFAULT_API_URL,
    publicKey,
    secretKey,
    signature,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  const result =
    command === 'create'
      ? await client.createUser(body)
      : await client.updateUser(operands[0] ?? '', body);
  return report(result, io);
}

function report(result: UsersClientResult<{ user: unknown; created?: boolean }>, io: CliIo) {
  const { data, error } = result;
  if (data) {
    if (data.created !== undefined) {
      io.stderr(
        data.created ? 'Created a new user.\n' : 'The user existed; added to this institution.\n',
      );
    }
    io.stdout(`${JSON.stringify(data.user, null, 2)}\n`);
    return EXIT.ok;
  }
  if (error.kind === 'http') {
    const { kind: _kind, ...problem } = error;
    io.stdout(`${JSON.stringify(problem, null, 2)}\n`);
    return EXIT.http;
  }
  io.stderr(`institution-api: ${error.kind} error: ${error.message}\n`);
  return EXIT.usage;
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        algorithm: { type: 'string' },
        encoding: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: T[]) {
  if (value === undefined) return undefined;
  if (!(allowed as string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function requiredEnv(env: CliIo['env'], name: string): string {
  const value = env[name];
  if (!value) throw new UsageError(`${name} is not set`);
  return value;
}

async function read(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(`cannot read ${path}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new UsageError('the file is not valid UTF-8 JSON');
  }
}
