import type { CliIo } from '../../src/cli/io.js';

/** A CLI's outside world that records what it writes. */
export function recordingIo(env: Record<string, string | undefined> = {}, stop?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    ...(stop ? { stop } : {}),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}
