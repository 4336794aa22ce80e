import { runCredentialsCommand } from './credentials/command/run.js';

/**
 * The program of the package's bin, `institution-api-server` (bin/institution-api-server.js
 * launches it), for an installed server: a container image runs it from a production install,
 * where the repository's `npm run` scripts are not at hand.
 *
 *   institution-api-server credentials <subcommand> …   the key lifecycle (credentials/command/run.ts)
 */
const usage = `Usage: institution-api-server credentials <subcommand> [options]

  credentials   the key pairs of the institutions: issue, list, rotate, revoke, log, reencrypt
                (institution-api-server credentials --help)`;

const [command, ...args] = process.argv.slice(2);
if (command === 'credentials') {
  process.exitCode = await runCredentialsCommand(args, {
    name: 'institution-api-server credentials',
  });
} else if (command === '--help' || command === '-h') {
  process.stdout.write(`${usage}\n`);
} else {
  process.stderr.write(
    `institution-api-server: ${command === undefined ? 'a command is required' : `"${command}" is not a command`}.\n\n${usage}\n`,
  );
  process.exitCode = 2;
}
