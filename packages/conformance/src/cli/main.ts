/**
 * The `institution-api-conformance` command (`run` and `proxy`), apart from the executable
 * (`cli.ts`) so tests run it in-process with their own environment and output.
 *
 * @module
 */
import type { CliIo } from './io.js';
import { proxyCommand } from './proxy-command.js';
import { runCommand } from './run-command.js';
import { USAGE } from './usage.js';
import { UsageError } from './usage-error.js';

export type { CliIo } from './io.js';

/** Runs one command line and resolves to its exit code (0, 1, or 2 for usage); never rejects. */
export async function main(args: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (
      command === undefined ||
      command === '-h' ||
      command === '--help' ||
      command === 'help' ||
      rest.includes('--help') ||
      rest.includes('-h')
    ) {
      io.stdout(USAGE);
      return command === undefined ? 2 : 0;
    }
    if (command === 'run') return await runCommand(rest, io);
    if (command === 'proxy') return await proxyCommand(rest, io);
    throw new UsageError(`unknown command '${command}': expected run or proxy`);
  } catch (error) {
    // Messages name the bad flag or variable, never a key's value.
    const message = error instanceof Error ? error.message : String(error);
    const hint =
      error instanceof UsageError ? '\nRun institution-api-conformance --help for usage.' : '';
    io.stderr(`institution-api-conformance: ${message}${hint}\n`);
    return 2;
  }
}
