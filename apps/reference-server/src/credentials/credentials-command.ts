import { runCredentialsCommand } from './command/run.js';

/**
 * `npm run credentials -w @institution-api/reference-server -- <subcommand> …`: the key lifecycle
 * command (see command/run.ts; `--help` lists the subcommands). Exit 0 done, 1 not found or
 * refused, 2 wrong usage.
 */
process.exitCode = await runCredentialsCommand(process.argv.slice(2));
