/**
 * What the import's tests share: customers that are valid and distinct (card number, email and
 * mobile number of their own), files of them, and the import run in-process with its output
 * captured.
 */
import { readFile } from 'node:fs/promises';
import type { FetchLike } from '@institution-api/client';
import { expect } from 'vitest';
import { type ImportIo, runImport } from '../../src/import/run-import.js';

/** The key pair the reference server of these tests is provisioned with. */
export const KEYS = Object.freeze({
  institution: 'Import Tests',
  publicKey: 'pk_import_tests',
  secretKey: 'sk_import_tests_never_printed_0123456789',
});

/** The CSV header of {@link customerRow}. */
export const HEADER =
  'email,firstName,lastName,mobileNumber,ghanaCardNumber,monthlyIncome,accountType,accountNumber,accountName,network,kyc.address';

/**
 * Customer `i` of a test file: `seed` keeps files of different tests apart (one server is shared
 * by a test file), `i` the customers of one file.
 */
export function customer(seed: number, i: number) {
  const digits = String(seed * 100_000 + i).padStart(9, '0');
  const mobile = `024${digits.slice(-7)}`;
  return {
    email: `c${seed}-${i}@example.com`,
    firstName: 'Ama',
    lastName: `Mensah ${i}`,
    mobileNumber: mobile,
    ghanaCardNumber: `GHA-${digits}-${seed % 10}`,
    monthlyIncome: 1000 + i,
    accountType: 'MOMO',
    accountNumber: mobile,
    accountName: `Ama Mensah ${i}`,
    network: 'MTN',
    kyc: { address: `House ${i}, Ring Road\nAccra` },
  };
}

/** Customer `i` as a CSV record (its address has a line break, so it spans two lines). */
export function customerRow(seed: number, i: number): string {
  const c = customer(seed, i);
  return [
    c.email,
    c.firstName,
    c.lastName,
    c.mobileNumber,
    c.ghanaCardNumber,
    c.monthlyIncome,
    c.accountType,
    c.accountNumber,
    c.accountName,
    c.network,
    `"${c.kyc.address}"`,
  ].join(',');
}

/** A CSV file of customers `0..count-1`, CRLF line ends. */
export function customersCsv(seed: number, count: number): string {
  const rows = [HEADER];
  for (let i = 0; i < count; i++) rows.push(customerRow(seed, i));
  return `${rows.join('\r\n')}\r\n`;
}

/** The first physical line of CSV row `i` of {@link customersCsv}: each spans two lines. */
export const csvLine = (i: number) => 2 + 2 * i;

/** The report's lines, parsed. */
export async function reportOf(path: string): Promise<ReportLine[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ReportLine);
}

export interface ReportLine {
  line: number;
  outcome: string;
  status?: number;
  userId?: string;
  problem?: { type?: string; title?: string; status?: number; errors?: unknown[] };
}

/** Runs `institution-api import …args` in this process, with the output captured. */
export async function importCli(
  args: string[],
  options: { url?: string; env?: Record<string, string | undefined>; fetch?: FetchLike } & Pick<
    ImportIo,
    'onInterrupt'
  > = {},
) {
  let stdout = '';
  let stderr = '';
  const code = await runImport(args, {
    env: options.env ?? {
      INSTITUTION_PUBLIC_KEY: KEYS.publicKey,
      INSTITUTION_SECRET_KEY: KEYS.secretKey,
      INSTITUTION_API_URL: options.url,
    },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    tty: null,
    onInterrupt: options.onInterrupt ?? (() => () => {}),
    ...(options.fetch && { fetch: options.fetch }),
  });
  expect(stdout + stderr).not.toContain(KEYS.secretKey);
  return { code, stdout, stderr };
}

/** A `fetch` that records each request's body before sending it on. */
export function recordingFetch(send: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  const bodies: string[] = [];
  const fetch: FetchLike = async (input, init) => {
    bodies.push(await requestOf(input, init).text());
    return send(input, init);
  };
  return { fetch, bodies };
}

/**
 * What a call of an injected `fetch` sends, as a `Request`: the client passes a URL and an init,
 * as to the standard `fetch`; a `Request` is cloned, so the caller can still send it.
 */
export function requestOf(input: string | Request, init?: RequestInit): Request {
  return typeof input === 'string' ? new Request(input, init) : input.clone();
}
