/**
 * Processes by PID, read from Linux's /proc: what a process started, and whether it still runs,
 * so a test can tell that stopping a program left nothing of it behind.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The state letter and parent of `pid` (`/proc/PID/stat`), or undefined once it is gone. */
function statOf(pid: number): { state: string; ppid: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "PID (COMM) STATE PPID …", where COMM may itself hold spaces and parentheses.
  const [state = '', ppid = ''] = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state, ppid: Number(ppid) };
}

/** Whether a process exists and is not a zombie (exited, not yet reaped by its parent). */
function runs(stat: { state: string } | undefined): stat is { state: string; ppid: number } {
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

/** Whether `pid` still runs. */
export function isRunning(pid: number): boolean {
  return runs(statOf(pid));
}

/** The command line of `pid`, its arguments joined by spaces ('' once it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Every running process `pid` started, and those they started, and so on. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (!runs(stat)) continue;
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}
