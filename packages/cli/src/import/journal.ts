/**
 * The journal of an import (spec Assumptions, "Bulk import"; docs/import.md "Resuming: the journal"): a file beside
 * the input that records each finished row as it finishes, so the same command after a crash
 * skips those rows and sends the rest.
 *
 * Its first line binds it to one input (the file's SHA-256 and size) and one target (the
 * service's URL and the public key), so a journal of another file, or of an import elsewhere,
 * is refused rather than trusted. Every other line is the row's report line. It is only ever
 * appended to: a row's line is written (`write(2)`, no buffer in this process) as soon as the
 * row finishes, so a killed process loses no finished row, and synced to the disk every second
 * and at the end, so a power loss loses at most the last second's rows. A row sent but not yet
 * written is sent again on resumption, which create-or-add answers `200` (`existing`) instead of
 * creating the customer twice. A last line torn by a crash is dropped; a damaged line before it
 * means the file was edited, and the journal is refused.
 *
 * @module
 */
import {
  closeSync,
  createReadStream,
  fdatasyncSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { LineSet } from './line-set.js';
import { LineSet as Lines } from './line-set.js';
import type { Outcome, ReportEntry } from './outcome.js';
import type { InputFormat } from './rows.js';

/** Marks the first line of a journal. */
const KIND = 'institution-api import journal';
const VERSION = 1;

/** What a journal is bound to. */
export interface JournalBinding {
  input: { sha256: string; bytes: number; format: InputFormat };
  target: { url: string; publicKey: string };
}

/** A journal that cannot be used; the message is one line saying why and what to do. */
export class JournalError extends Error {
  override readonly name = 'JournalError';
}

/** A line of the journal that no run of the import writes: edited, or torn if it is the last. */
class DamagedJournalError extends JournalError {}

/** An open journal. */
export interface Journal {
  /** Lines of the rows it records as finished. */
  finished: LineSet;
  /** Its rows per outcome. */
  counts: Map<Outcome, number>;
  /** Appends finished rows' lines; each call is one `write(2)`. */
  append(lines: string): void;
  /** Makes what was appended durable (`fdatasync`). */
  sync(): void;
  close(): void;
}

/** How to open it. */
export interface OpenOptions {
  /** The lines that start a row of the input: an entry for any other line means tampering. */
  rowLines: LineSet;
  /** Forget the `failed` rows (the file is rewritten without them) so they are sent again. */
  retryFailed: boolean;
  /** Sees the text of each entry kept, in order (to rebuild the report). */
  onEntry: (text: string) => void;
}

const FINAL: ReadonlySet<string> = new Set([
  'created',
  'existing',
  'conflict',
  'invalid',
  'failed',
]);

/**
 * Opens the journal at `path`, creating it when there is none, or reading what it recorded after
 * checking that it belongs to this input and target. Throws a {@link JournalError} otherwise.
 */
export async function openJournal(
  path: string,
  binding: JournalBinding,
  options: OpenOptions,
): Promise<Journal> {
  const finished = new Lines();
  const counts = new Map<Outcome, number>();
  const unlock = lock(path);
  let fd: number;
  try {
    try {
      fd = openSync(path, 'wx');
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST') throw cannotOpen(path, error);
      await readExisting(path, binding, options, finished, counts);
      fd = openSync(path, 'a');
      return journal(fd, finished, counts, unlock);
    }
    writeSync(fd, `${JSON.stringify({ journal: KIND, version: VERSION, ...binding })}\n`);
    fsyncSync(fd);
    syncDirectory(path);
  } catch (error) {
    unlock();
    throw error;
  }
  return journal(fd, finished, counts, unlock);
}

/**
 * Takes `<journal>.lock`, holding this process's id, so that two imports never append to one
 * journal (each would send the rows the other is sending). A lock left by a process that no
 * longer runs (killed) is taken over. Returns its release.
 */
function lock(path: string): () => void {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EEXIST' || attempt > 0) {
        throw new JournalError(
          `cannot lock the journal ${path}: ${lockPath} exists and cannot be replaced`,
        );
      }
    }
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    if (Number.isSafeInteger(pid) && pid > 0 && running(pid)) {
      throw new JournalError(
        `another import (process ${pid}) is using the journal ${path}: wait for it to finish, or stop it (Ctrl-C) and run this command again`,
      );
    }
    rmSync(lockPath, { force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

function journal(
  fd: number,
  finished: LineSet,
  counts: Map<Outcome, number>,
  unlock: () => void,
): Journal {
  return {
    finished,
    counts,
    append(lines) {
      writeSync(fd, lines);
    },
    sync() {
      fdatasyncSync(fd);
    },
    close() {
      fdatasyncSync(fd);
      closeSync(fd);
      unlock();
    },
  };
}

async function readExisting(
  path: string,
  binding: JournalBinding,
  { rowLines, retryFailed, onEntry }: OpenOptions,
  finished: LineSet,
  counts: Map<Outcome, number>,
): Promise<void> {
  const compacted = `${path}.compacting`;
  const out = retryFailed ? openSync(compacted, 'w') : undefined;
  const keep = (text: string) => {
    if (out !== undefined) writeSync(out, `${text}\n`);
  };
  /** Where the last line accepted ends: anything after it is cut off. */
  let goodEnd = 0;
  const accept = (text: string, number: number, end: number) => {
    if (number === 1) {
      checkHeader(path, text, binding);
      keep(text);
    } else {
      const entry = parseEntry(path, text, number, rowLines, finished);
      if (!(retryFailed && entry.outcome === 'failed')) {
        finished.add(entry.line);
        counts.set(entry.outcome, (counts.get(entry.outcome) ?? 0) + 1);
        keep(text);
        onEntry(text);
      }
    }
    goodEnd = end;
  };

  let number = 0;
  let offset = 0;
  // Each line is judged once the next is known: only the last one may be torn.
  let last: { text: string; number: number; end: number } | undefined;
  let tail = Buffer.alloc(0);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    const buffer = tail.length > 0 ? Buffer.concat([tail, chunk]) : chunk;
    let start = 0;
    for (let nl = buffer.indexOf(10); nl !== -1; nl = buffer.indexOf(10, start)) {
      if (last) accept(last.text, last.number, last.end);
      number++;
      offset += nl - start + 1;
      last = { text: buffer.toString('utf8', start, nl), number, end: offset };
      start = nl + 1;
    }
    tail = Buffer.from(buffer.subarray(start));
  }
  if (last === undefined) {
    // No complete line: a header torn while the journal was created (no row was sent before
    // it was synced), or a file that is no journal at all.
    checkHeader(path, tail.toString('utf8'), binding);
    if (out !== undefined) closeSync(out);
    writeFileSync(path, `${tail.toString('utf8')}\n`);
    return;
  }
  if (last.number === 1 || tail.length > 0) {
    // A torn tail (no newline) follows, so the last complete line was written whole.
    accept(last.text, last.number, last.end);
  } else {
    try {
      accept(last.text, last.number, last.end);
    } catch (error) {
      if (!(error instanceof DamagedJournalError)) throw error;
      // The last line, written when the process died: dropped, its row is sent again.
    }
  }
  if (out !== undefined) {
    fsyncSync(out);
    closeSync(out);
    renameSync(compacted, path);
    syncDirectory(path);
  } else if (goodEnd < offset + tail.length) {
    truncateSync(path, goodEnd);
  }
}

function checkHeader(path: string, text: string, binding: JournalBinding): void {
  let header: Record<string, unknown> | undefined;
  try {
    header = JSON.parse(text) as Record<string, unknown>;
  } catch {
    header = undefined;
  }
  if (header?.journal !== KIND || header.version !== VERSION) {
    throw new JournalError(
      `${path} is not a journal of institution-api import (version ${VERSION}): delete it, or pass --journal with another path`,
    );
  }
  const input = header.input as Partial<JournalBinding['input']> | undefined;
  if (
    input?.sha256 !== binding.input.sha256 ||
    input.bytes !== binding.input.bytes ||
    input.format !== binding.input.format
  ) {
    throw new JournalError(
      `${path} was made for another file (SHA-256 ${short(input?.sha256)}; this file's content is ${short(binding.input.sha256)}); ` +
        'to import this file from the start, delete it or pass --journal with another path (customers already registered answer "existing")',
    );
  }
  const target = header.target as Partial<JournalBinding['target']> | undefined;
  if (target?.url !== binding.target.url || target.publicKey !== binding.target.publicKey) {
    throw new JournalError(
      `${path} records an import into ${String(target?.url)} as ${String(target?.publicKey)}, not into ${binding.target.url} as ${binding.target.publicKey}: ` +
        'set INSTITUTION_API_URL and INSTITUTION_PUBLIC_KEY as they were, or pass --journal with another path',
    );
  }
}

function parseEntry(
  path: string,
  text: string,
  number: number,
  rowLines: LineSet,
  finished: LineSet,
): ReportEntry {
  let entry: ReportEntry | undefined;
  try {
    entry = JSON.parse(text) as ReportEntry;
  } catch {
    entry = undefined;
  }
  const damaged = (why: string) =>
    new DamagedJournalError(
      `${path} is damaged at its line ${number} (${why}), so it cannot tell which rows were imported: delete it to import the file from the start (customers already registered answer "existing")`,
    );
  if (typeof entry !== 'object' || entry === null) throw damaged('not a JSON object');
  if (!FINAL.has(entry.outcome)) throw damaged(`unknown outcome ${JSON.stringify(entry.outcome)}`);
  if (!Number.isSafeInteger(entry.line) || !rowLines.has(entry.line)) {
    throw damaged(`no row of the file starts at line ${JSON.stringify(entry.line)}`);
  }
  if (finished.has(entry.line)) throw damaged(`the row at line ${entry.line} is recorded twice`);
  return entry;
}

function short(hash: string | undefined): string {
  return typeof hash === 'string' ? `${hash.slice(0, 12)}…` : 'unknown';
}

/** A new or renamed file is durable only once its directory entry is. */
function syncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dirname(path), 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems cannot open or sync a directory; the file itself is synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function cannotOpen(path: string, error: unknown): JournalError {
  const code = (error as { code?: unknown }).code;
  return new JournalError(
    `cannot create the journal ${path}${typeof code === 'string' ? ` (${code})` : ''}`,
  );
}
