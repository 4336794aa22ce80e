import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRowCheck } from '../../src/import/row-check.js';
import { InputError, type InputFormat, type Row, readRows } from '../../src/import/rows.js';

const check = createRowCheck();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'institution-api-rows-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

let files = 0;
async function rowsOf(text: string | Buffer, format: InputFormat = 'csv'): Promise<Row[]> {
  const path = join(dir, `input-${files++}.${format}`);
  await writeFile(path, text);
  const rows: Row[] = [];
  for await (const row of readRows(path, { format, columns: check.columns })) rows.push(row);
  return rows;
}

describe('CSV rows (RFC 4180, csv-parse)', () => {
  it('reads quoted commas, doubled quotes and line breaks inside quotes', async () => {
    const rows = await rowsOf(
      'firstName,lastName,kyc.address\n"Ama, Jr.","O""Brien","1 Main St\nAccra"\n',
    );
    expect(rows).toEqual([
      {
        line: 2,
        body: { firstName: 'Ama, Jr.', lastName: 'O"Brien', kyc: { address: '1 Main St\nAccra' } },
      },
    ]);
  });

  it('numbers each row by its first physical line: header line 1, a quoted line break counts once, CRLF or LF', async () => {
    const lf = 'firstName,kyc.address\nA,"x\ny"\nB,z\n\nC,"p\n\nq"\nD,w';
    const crlf = lf.replaceAll('\n', '\r\n');
    // CRLF between records and LF inside quotes, and the reverse, in one file
    const mixed = 'firstName,kyc.address\r\nA,"x\ny"\nB,z\r\n\nC,"p\r\n\r\nq"\r\nD,w\n';
    for (const text of [lf, crlf, mixed]) {
      const rows = await rowsOf(text);
      expect(rows.map((r) => [r.line, (r.body as { firstName: string }).firstName])).toEqual([
        [2, 'A'],
        [4, 'B'],
        [6, 'C'],
        [9, 'D'],
      ]);
    }
    // the line break inside the field is kept as it was written
    expect((await rowsOf(crlf))[0]?.body).toMatchObject({ kyc: { address: 'x\r\ny' } });
  });

  it('drops a UTF-8 byte order mark before the header', async () => {
    const rows = await rowsOf(Buffer.from('\ufeffemail,firstName\r\na@example.com,Ama\r\n'));
    expect(rows).toEqual([{ line: 2, body: { email: 'a@example.com', firstName: 'Ama' } }]);
  });

  it('reports a row with more or fewer fields than the header as unreadable, and goes on', async () => {
    const rows = await rowsOf(
      'email,firstName\na@example.com\nb@example.com,B,extra\nc@example.com,C\n',
    );
    expect(rows).toEqual([
      { line: 2, unreadable: 'the row has 1 field; the header has 2' },
      { line: 3, unreadable: 'the row has 3 fields; the header has 2' },
      { line: 4, body: { email: 'c@example.com', firstName: 'C' } },
    ]);
  });

  it('refuses an unknown column before any row, naming it', async () => {
    await expect(rowsOf('email,nickname\na@example.com,x\n')).rejects.toThrow(
      /unknown column "nickname"/,
    );
  });

  it('refuses a file that is not CSV (a quote never closed), saying so', async () => {
    const error = await rowsOf('email,firstName\n"a@example.com,Ama\n').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/is not valid CSV: Quote Not Closed/);
  });

  it('refuses an empty file', async () => {
    await expect(rowsOf('')).rejects.toThrow(/is empty: a CSV file starts with its header row/);
  });
});

describe('NDJSON rows', () => {
  it('numbers each row by its line, skips blank lines and a byte order mark, reads CRLF', async () => {
    const rows = await rowsOf(
      '\ufeff{"email":"a@example.com"}\r\n\r\n   \n{"email":"b@example.com"}\n{oops\n[1]',
      'ndjson',
    );
    expect(rows).toEqual([
      { line: 1, body: { email: 'a@example.com' } },
      { line: 4, body: { email: 'b@example.com' } },
      { line: 5, unreadable: expect.stringMatching(/^the line is not JSON: /) },
      { line: 6, body: [1] },
    ]);
  });
});
