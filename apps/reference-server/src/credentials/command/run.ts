import { parseArgs } from 'node:util';
import { type LogLevel, loadEncryptionKeys, logLevels } from '../../config.js';
import { createLogger } from '../../logger.js';
import { defaultDataDir, openStorage } from '../../storage/open-storage.js';
import { currentActor } from '../actor.js';
import { logCredentialEvents } from '../credential-events.js';
import { durationHint } from '../duration.js';
import { EncryptionKeyError, previousEncryptionKeyVariable } from '../encryption-key.js';
import { issue } from './issue.js';
import { list } from './list.js';
import { log } from './log.js';
import { reencrypt } from './reencrypt.js';
import { revoke } from './revoke.js';
import { rotate } from './rotate.js';
import { type Subcommand, UsageError } from './subcommand.js';

/** The subcommands, in the order the help lists them. */
// biome-ignore lint/suspicious/noExplicitAny: each subcommand reads its own arguments' type.
const subcommands: Record<string, Subcommand<any>> = {
  issue,
  list,
  rotate,
  revoke,
  log,
  reencrypt,
};

/** Where the command writes, and what it reads; the process's own unless a test says otherwise. */
export interface CommandIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  now?: () => number;
}

const processIo: CommandIo = {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

function help(name: string): string {
  const lines = Object.values(subcommands).flatMap((subcommand) => [
    `  ${name} ${subcommand.usage}`,
    ...subcommand.summary.split('\n').map((line) => `      ${line}`),
  ]);
  return `Usage: ${name} <subcommand> [options]

The key pairs of the institutions, in the database DATABASE_URL names (unset: the embedded
database in ${defaultDataDir}), while the server runs or not.

${lines.join('\n')}

DURATION is ${durationHint}.
Secrets are stored encrypted with CREDENTIALS_ENCRYPTION_KEY (base64 of 32 bytes; required with
PostgreSQL; unset on the embedded database: the key file beside it). Each change is an event,
recorded as done by the OS user, and logged as one JSON line on stderr (LOG_LEVEL).
Exit status: 0 done, 1 not found or refused, 2 wrong usage.`;
}

/**
 * The key lifecycle command (spec: "Assumptions", credentials):
 *
 *   credentials <issue|list|rotate|revoke|log|reencrypt> [options]
 *
 * run as `npm run credentials -w @institution-api/reference-server -- …` or the package's bin
 * `institution-api-server credentials …`, on the database DATABASE_URL names, while the server runs
 * or not (SQLite takes turns with the server's writes; on PostgreSQL every server sees a change
 * within the credential cache's bound). `args` are the subcommand and its arguments; `name` is what
 * usage and messages call the command. With `only`, the command is that subcommand alone (the
 * `issue-credentials` alias: `args` are its arguments). Resolves with the exit code: 0 done, 1 not
 * found, refused or failed (one line why), 2 wrong usage.
 */
export async function runCredentialsCommand(
  args: string[],
  options: { name?: string; only?: string; io?: CommandIo } = {},
): Promise<number> {
  const name = options.name ?? 'credentials';
  const io = options.io ?? processIo;
  const wrongUsage = (why: string, usage: string) => {
    io.stderr(`${name}: ${why}\n\n${usage}\n`);
    return 2;
  };

  const [subcommandName, ...rest] = options.only ? [options.only, ...args] : args;
  if (!options.only && (subcommandName === '--help' || subcommandName === '-h')) {
    io.stdout(`${help(name)}\n`);
    return 0;
  }
  const subcommand = subcommandName === undefined ? undefined : subcommands[subcommandName];
  if (!subcommand) {
    return wrongUsage(
      subcommandName === undefined
        ? 'a subcommand is required.'
        : `"${subcommandName}" is not a subcommand.`,
      help(name),
    );
  }
  const usage = `Usage: ${name} ${options.only ? subcommand.usage.replace(/^\S+ ?/, '') : subcommand.usage}\n\n${subcommand.summary}`;

  let parsed: ReturnType<typeof subcommand.read>;
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...subcommand.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout(`${usage}\n`);
      return 0;
    }
    parsed = subcommand.read(values, positionals);
  } catch (error) {
    // parseArgs's own errors (an unknown option, a missing value) are usage errors too.
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      return wrongUsage((error as Error).message, usage);
    }
    throw error;
  }

  const refuse = (why: string) => {
    io.stderr(`${name}: ${why}\n`);
    return 1;
  };
  const databaseUrl = io.env.DATABASE_URL;
  let keys: ReturnType<typeof loadEncryptionKeys>;
  try {
    keys = loadEncryptionKeys(io.env, databaseUrl);
  } catch (error) {
    return refuse((error as Error).message.replaceAll('\n', ' '));
  }
  if (subcommand.needsPreviousKey && !keys.previous) {
    return refuse(
      `${previousEncryptionKeyVariable} is not set: reencrypt moves the secrets encrypted with it to the current key.`,
    );
  }
  const level = io.env.LOG_LEVEL?.trim() ?? '';
  const logger = createLogger({
    level: (logLevels as readonly string[]).includes(level) ? (level as LogLevel) : 'info',
    destination: { write: (line: string) => io.stderr(line) },
  });
  const actor = currentActor();
  try {
    const storage = await openStorage(databaseUrl, {
      defaultDataDir,
      encryptionKeys: keys,
      actor,
      onCredentialEvents: (events) => logCredentialEvents(logger, events),
    });
    try {
      return await subcommand.run(parsed, {
        storage,
        actor,
        now: io.now ?? Date.now,
        print: io.stdout,
        refuse,
        logEvents: (events) => logCredentialEvents(logger, events),
      });
    } finally {
      await storage.close();
    }
  } catch (error) {
    // The message only, one line: a database error's detail may quote a row, and a wrong key is
    // the operator's to fix, not a stack to read.
    if (error instanceof EncryptionKeyError) return refuse(error.message);
    return refuse((error as Error).message.split('\n')[0] ?? String(error));
  }
}
