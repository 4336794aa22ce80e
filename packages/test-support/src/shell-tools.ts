import { accessSync, constants } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** Where a command is on this process's PATH; throws when it is not there. */
export function which(command: string): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new Error(`${command} is not on PATH (${process.env.PATH})`);
}

/**
 * A directory holding links to these commands and nothing else, to use as the whole PATH of a
 * script: whatever else the script calls (node, npx, a package's bin) is "command not found".
 */
export async function pathWithOnly(dir: string, commands: string[]): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const command of commands) await symlink(which(command), join(dir, command));
  return dir;
}
