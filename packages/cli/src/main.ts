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
  createRequestSigning,
  createUsersClient,
  type User,
  type UsersClientResult,
  usersUrl,
} from '@institution-api/client';
import type { UserInput } from '@institution-api/types';
import {
  type CliIo,
  DEFAULT_API_URL,
  EXIT,
  failureMessage,
  type Sent,
  SIGNING_HELP,
} from './cli-io.js';
import {
  checkedApiUrl,
  httpUrl,
  messageSignaturesFlag,
  requiredEnv,
  signatureFlags,
  signingFlags,
  UsageError,
} from './command-line.js';
import { doctor } from './doctor/doctor-command.js';
import { runImport } from './import/run-import.js';
import { ownsProcess, runImportInWorker } from './import/worker.js';
import { parseJsonFile } from './json-file.js';
import { mcp } from './mcp/mcp-command.js';
import { signProxy } from './sign-proxy-command.js';

export {
  type CliIo,
  DEFAULT_API_URL,
  EXIT,
  failureMessage,
  type Sent,
  SIGNING_HELP,
} from './cli-io.js';

/** The `--help` text; it names the environment variables but never shows their values. */
export const USAGE = `Usage:
  institution-api sign <file.json>          print the headers that sign the file for one request
        [--method POST] [--url URL]         (default: POST to INSTITUTION_API_URL's create URL)
  institution-api create <file.json>        create a user (or add an existing one)
  institution-api update <id> <file.json>   replace a user's details
  institution-api import <file.csv|.ndjson> register every row of a file, resumably
                                            (institution-api import --help for its options)
  institution-api sign-proxy [--port N]     sign and forward any HTTP tool's requests (sign-proxy --help)
  institution-api mcp [--http]              the operations as tools of an MCP server, for AI agents,
                                            signed inside (mcp --help)
  institution-api doctor <file|->           why a captured request's signature fails (doctor --help)

Options:
${SIGNING_HELP}
sign covers the file's exact bytes, as they are (no re-serialization), so send the file
byte for byte. It prints one header per line, Authorization and the message signature's
Content-Digest, Signature-Input and Signature, which covers the method and the URL's path: send
it to that URL with that method, once, within 5 minutes (a nonce is accepted once), e.g.
  curl --data-binary @user.json -H @<(institution-api sign user.json) \\
    -H 'Content-Type: application/json' "$INSTITUTION_API_URL/api/v1/external/users"
create and update send the parsed file re-serialized with JSON.stringify, signed over those
bytes.
They print the user as JSON in one canonical shape; an HTTP error prints the service's
problem details as JSON and exits 1; usage, file and network errors exit 2.
In a project that installed @institution-api/cli, or in the toolkit's repository, run it
through npm: npx institution-api --help.
`;

/** Runs one command line and resolves to its exit code; it never rejects. */
export async function main(args: string[], io: CliIo): Promise<number> {
  try {
    return await run(args, io);
  } catch (error) {
    // Messages of the signing package and the client name the bad setting, never its value,
    // so printing them cannot leak the secret.
    const message = error instanceof Error ? error.message : String(error);
    let hint = '';
    if (error instanceof UsageError) {
      hint = error.showUsage ? `\n${USAGE}` : 'Run institution-api --help for usage.\n';
    }
    io.stderr(`institution-api: ${message}\n${hint}`);
    return EXIT.usage;
  }
}

async function run(args: string[], io: CliIo): Promise<number> {
  if (args[0] === 'import') {
    const rest = args.slice(1);
    return ownsProcess(io) ? runImportInWorker(rest) : runImport(rest, io);
  }
  if (args[0] === 'sign-proxy') return signProxy(args.slice(1), io);
  if (args[0] === 'mcp') return mcp(args.slice(1), io);
  if (args[0] === 'doctor') return doctor(args.slice(1), io);
  const { values, positionals } = parse(args);
  if (values.help) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const signature = signatureFlags(values);
  const messageSignatures = messageSignaturesFlag(values);
  const [command, ...operands] = positionals;
  const expected = { sign: 1, create: 1, update: 2 }[command ?? ''];
  if (expected === undefined) {
    const what = command === undefined ? 'no command given' : `unknown command '${command}'`;
    throw new UsageError(
      `${what}: expected sign, create, update, import, sign-proxy, mcp or doctor`,
      true,
    );
  }
  if (operands.length !== expected) {
    throw new UsageError(
      `${command} expects ${command === 'update' ? '<id> <file.json>' : '<file.json>'}`,
    );
  }
  if (command !== 'sign' && (values.method !== undefined || values.url !== undefined)) {
    throw new UsageError('--method and --url are options of sign');
  }
  const publicKey = requiredEnv(io.env, 'INSTITUTION_PUBLIC_KEY');
  const secretKey = requiredEnv(io.env, 'INSTITUTION_SECRET_KEY');
  const baseUrl = checkedApiUrl(io.env.INSTITUTION_API_URL || DEFAULT_API_URL);
  const request =
    command === 'sign'
      ? {
          method: methodOf(values.method ?? 'POST'),
          url: (values.url === undefined
            ? httpUrl('INSTITUTION_API_URL', usersUrl(baseUrl))
            : httpUrl('--url', values.url)
          ).href,
        }
      : undefined;
  const path = operands.at(-1) ?? '';
  const file = await read(path);

  if (request !== undefined) {
    const signing = createRequestSigning({ publicKey, secretKey, signature, messageSignatures });
    const lines = [`Authorization: ${await signing.authorize(file)}`];
    if (signing.signMessage !== undefined) {
      const fields = await signing.signMessage({ ...request, body: file });
      lines.push(
        `Content-Digest: ${fields['content-digest']}`,
        `Signature-Input: ${fields['signature-input']}`,
        `Signature: ${fields.signature}`,
      );
    }
    io.stdout(`${lines.join('\n')}\n`);
    return EXIT.ok;
  }

  const body = parseJsonFile(file, path) as UserInput;
  const client = createUsersClient({
    baseUrl,
    publicKey,
    secretKey,
    signature,
    messageSignatures,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  const id = operands[0] ?? '';
  const target = `${usersUrl(baseUrl)}${command === 'update' ? `/${encodeURIComponent(id)}` : ''}`;
  const result =
    command === 'create' ? await client.createUser(body) : await client.updateUser(id, body);
  return report(result, io, { target, baseUrl, sentIncome: body?.monthlyIncome });
}

function report(
  result: UsersClientResult<{ user: User; created?: boolean }>,
  io: CliIo,
  sent: Sent,
): number {
  const { data, error } = result;
  if (data) {
    if (data.created === true) io.stderr('Created a new user.\n');
    if (data.created === false) {
      io.stderr(
        'A user with this Ghana Card number already existed; it now belongs to your ' +
          'institution (or already did). Shown below are its stored details, which this ' +
          'create did not change (update changes them).\n',
      );
    }
    if (data.created !== undefined && data.user.monthlyIncome === null) {
      io.stderr(incomeNote(data.created, sent.sentIncome));
    }
    io.stdout(`${JSON.stringify(data.user, null, 2)}\n`);
    return EXIT.ok;
  }
  if (error.kind === 'http') {
    const { kind: _kind, ...problem } = error;
    io.stdout(`${JSON.stringify(problem, null, 2)}\n`);
    return EXIT.http;
  }
  io.stderr(`institution-api: ${failureMessage(error, sent)}\n`);
  return EXIT.usage;
}

/**
 * The create answer has no monthlyIncome (spec: `UserCreated`), so the
 * printed user shows null, which would read like data loss without a word.
 */
function incomeNote(created: boolean, sentIncome: unknown): string {
  const stored = created
    ? `the service stored the ${typeof sentIncome === 'number' ? `${sentIncome} ` : ''}you sent`
    : 'the stored income may differ from the one in your file';
  return `Note: "monthlyIncome" is null below because the create answer does not carry it (the update answer does); ${stored}.\n`;
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...signingFlags,
        method: { type: 'string' },
        url: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--method`: an HTTP method token (RFC 9110 §9.1), as the request will send it. */
function methodOf(value: string): string {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value)) {
    throw new UsageError(`--method must be an HTTP method such as POST or PUT, not "${value}"`);
  }
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
