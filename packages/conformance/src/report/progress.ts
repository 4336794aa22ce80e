import type { Progress } from '../run/context.js';

/**
 * Progress while a run works, on stderr: on a terminal one line rewritten in place (operation,
 * phase, examples done, requests, failures so far); elsewhere (CI logs) one line per phase.
 */
export function progressPrinter(write: (text: string) => void, terminal: boolean) {
  let current = '';
  let last: Progress | undefined;
  const line = (progress: Progress) =>
    `${progress.operation} · ${progress.phase}: ${progress.done}/${progress.planned} examples, ${progress.requests} requests, ${progress.failures} failure(s)`;
  return {
    update(progress: Progress) {
      const phase = `${progress.operation} ${progress.phase}`;
      if (terminal) write(`\r\u001b[2K${line(progress)}`);
      else if (phase !== current && last) write(`${line(last)}\n`);
      current = phase;
      last = progress;
    },
    done() {
      if (terminal) write('\r\u001b[2K');
      else if (last) write(`${line(last)}\n`);
    },
  };
}
