import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type JournalBinding,
  JournalError,
  type OpenOptions,
  openJournal,
} from '../../src/import/journal.js';
import { LineSet } from '../../src/import/line-set.js';

const binding: JournalBinding = {
  input: { sha256: 'a'.repeat(64), bytes: 1234, format: 'csv' },
  target: { url: 'http://127.0.0.1:8080', publicKey: 'pk_test' },
};
const rowLines = new LineSet();
for (const line of [2, 3, 5, 6]) rowLines.add(line);

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'institution-api-journal-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const entry = (line: number, outcome = 'created') =>
  `${JSON.stringify({ line, outcome, status: outcome === 'created' ? 201 : undefined })}\n`;

async function open(path: string, options: Partial<OpenOptions> = {}, bound = binding) {
  const entries: string[] = [];
  const journal = await openJournal(path, bound, {
    rowLines,
    retryFailed: false,
    onEntry: (text) => entries.push(text),
    ...options,
  });
  return { journal, entries };
}

async function written(lines: string[]): Promise<string> {
  const path = join(dir, `journal-${n++}`);
  const first = await open(path);
  for (const line of lines) first.journal.append(line);
  first.journal.close();
  return path;
}

describe('the journal', () => {
  it('is created bound to the input and the target, and read back on resumption', async () => {
    const path = await written([entry(2), entry(5, 'failed')]);
    const [header] = (await readFile(path, 'utf8')).split('\n');
    expect(JSON.parse(header ?? '')).toMatchObject(binding);
    const { journal, entries } = await open(path);
    expect(entries.map((text) => JSON.parse(text).line)).toEqual([2, 5]);
    expect([2, 3, 5, 6].map((line) => journal.finished.has(line))).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(Object.fromEntries(journal.counts)).toEqual({ created: 1, failed: 1 });
    journal.append(entry(3));
    journal.close();
    expect((await readFile(path, 'utf8')).split('\n').filter(Boolean)).toHaveLength(4);
  });

  it('tolerates a last line torn by a crash: drops it, and appends after the last whole line', async () => {
    const path = await written([entry(2)]);
    await appendFile(path, '{"line":3,"outc');
    const { journal, entries } = await open(path);
    expect(entries).toHaveLength(1);
    expect(journal.finished.has(3)).toBe(false);
    journal.append(entry(3));
    journal.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.slice(1)).toEqual([entry(2).trim(), entry(3).trim(), '']);
  });

  it('with --retry-failed, forgets the failed rows, rewriting the file without them', async () => {
    const path = await written([entry(2), entry(5, 'failed'), entry(6, 'conflict')]);
    const { journal, entries } = await open(path, { retryFailed: true });
    journal.close();
    expect(entries.map((text) => JSON.parse(text).line)).toEqual([2, 6]);
    expect(journal.finished.has(5)).toBe(false);
    expect(await readFile(path, 'utf8')).not.toContain('"failed"');
  });

  it.each([
    [
      'another file',
      { ...binding, input: { ...binding.input, sha256: 'b'.repeat(64) } },
      /was made for another file \(SHA-256 aaaaaaaaaaaa…; this file's content is bbbbbbbbbbbb…\); to import this file from the start, delete it or pass --journal with another path/,
    ],
    [
      'another service',
      { ...binding, target: { ...binding.target, url: 'https://prod.example.com' } },
      /records an import into http:\/\/127\.0\.0\.1:8080 as pk_test, not into https:\/\/prod\.example\.com as pk_test/,
    ],
  ])('refuses a journal of %s with one line', async (_what, bound, message) => {
    const path = await written([entry(2)]);
    const error = await open(path, {}, bound).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JournalError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it.each([
    ['a line that is not JSON', 'garbage\n', /damaged at its line 2 \(not a JSON object\)/],
    [
      'a row the file does not have',
      entry(4),
      /damaged at its line 2 \(no row of the file starts at line 4\)/,
    ],
    [
      'a row recorded twice',
      entry(5),
      /damaged at its line 3 \(the row at line 5 is recorded twice\)/,
    ],
    [
      'an unknown outcome',
      entry(3, 'imported'),
      /damaged at its line 2 \(unknown outcome "imported"\)/,
    ],
  ])('refuses a tampered journal: %s', async (_what, line, message) => {
    const path = await written(line === entry(5) ? [entry(5), line, entry(2)] : [line, entry(2)]);
    await expect(open(path)).rejects.toThrow(message);
  });

  it('is used by one import at a time; a lock left by a killed one is taken over', async () => {
    const path = join(dir, `journal-${n++}`);
    const first = await open(path);
    await expect(open(path)).rejects.toThrow(
      `another import (process ${process.pid}) is using the journal ${path}: wait for it to finish, or stop it (Ctrl-C) and run this command again`,
    );
    first.journal.close();
    await writeFile(`${path}.lock`, '2147483646\n'); // no such process
    const second = await open(path);
    second.journal.close();
    await expect(readFile(`${path}.lock`)).rejects.toThrow(/ENOENT/);
  });

  it('refuses a file that is not a journal', async () => {
    const path = join(dir, 'notes.txt');
    await writeFile(path, 'my notes\n');
    await expect(open(path)).rejects.toThrow(/is not a journal of institution-api import/);
  });
});
