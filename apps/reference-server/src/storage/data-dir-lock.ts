import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The lock file's name inside a PGlite data directory; it holds the owning process id. */
export const lockFileName = 'reference-server.pid';

/** Directories this process holds, so that a second open in the same process is refused too. */
const heldByThisProcess = new Set<string>();

/**
 * Claims a PGlite data directory for this process and returns the function that releases it.
 *
 * PGlite takes no lock of its own, so the server and the issue-credentials command could otherwise
 * both write one directory and corrupt it. A lock left by a crashed process (its id no longer
 * running, or our own id after a restart in a container) is taken over: a crash must not keep the
 * server from starting again.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  const file = join(dir, lockFileName);
  if (heldByThisProcess.has(dir)) throw inUse(dir, process.pid, file);
  mkdirSync(dir, { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      heldByThisProcess.add(dir);
      return () => {
        heldByThisProcess.delete(dir);
        rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(file);
    if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
      throw inUse(dir, owner, file);
    }
    rmSync(file, { force: true });
  }
  throw new Error(`Could not lock the PGlite data directory ${dir}: ${file} keeps reappearing.`);
}

function readOwner(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(dir: string, pid: number, file: string): Error {
  return new Error(
    `The PGlite data directory ${dir} is in use by process ${pid}: PGlite allows one process at a ` +
      `time. Stop that process (or use PostgreSQL, DATABASE_URL=postgres://…, to share a database). ` +
      `If no such process uses it, delete ${file}.`,
  );
}
