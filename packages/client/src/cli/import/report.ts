/**
 * The report of an import (issue 28, "Report"): one NDJSON line per input row, to a file
 * (`--report FILE`, default `<file>.report.ndjson`) or to stdout (`--report -`). Each run
 * rewrites it from the journal's finished rows and then appends the rows it finishes, so after a
 * resumed run it holds every row exactly once, as the journal does.
 *
 * @module
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** Where report lines go; `flush` writes what is buffered. */
export interface ReportSink {
  /** Adds complete lines (each ending with a newline). */
  write(lines: string): void;
  flush(): void;
  close(): void;
}

/** Report lines are gathered up to this many characters between writes. */
const BUFFER_CHARS = 64 * 1024;

/** Opens the report at `path` (truncating it), or on `stdout` for `-`. */
export function openReport(path: string, stdout: (text: string) => void): ReportSink {
  const fd = path === '-' ? undefined : openSync(path, 'w');
  const out = fd === undefined ? stdout : (text: string) => writeSync(fd, text);
  let buffered = '';
  const flush = () => {
    if (buffered === '') return;
    out(buffered);
    buffered = '';
  };
  return {
    write(lines) {
      buffered += lines;
      if (buffered.length >= BUFFER_CHARS) flush();
    },
    flush,
    close() {
      flush();
      if (fd !== undefined) closeSync(fd);
    },
  };
}
