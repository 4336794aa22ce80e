/**
 * The command line of `institution-api import` (spec Assumptions, "Bulk import"): the file, its format, the
 * concurrency, where the report and the journal go, and the signature's settings.
 *
 * @module
 */
import { extname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { SignatureAlgorithm, SignatureEncoding } from '@institution-api/signing';
import {
  messageSignaturesFlag,
  oneOf,
  signatureFlags,
  signingFlags,
  UsageError,
} from '../command-line.js';
import type { InputFormat } from './rows.js';

/** Rows in flight at most unless `--concurrency` says otherwise. */
export const DEFAULT_CONCURRENCY = 8;
/** A ceiling that keeps a typo (`--concurrency 8000`) from opening thousands of sockets. */
export const MAX_CONCURRENCY = 256;

/** The lines `institution-api --help` and `institution-api import --help` show. */
export const IMPORT_USAGE = `Usage:
  institution-api import <file.csv|file.ndjson> [options]
      register every row of the file as a user (create, or add an existing one);
      resumable: run the same command again after a crash or Ctrl-C

Options:
  --format csv|ndjson       the file's format (default: from its extension, .csv or .ndjson/.jsonl)
  --concurrency N           rows in flight at most (default ${DEFAULT_CONCURRENCY}; fewer while the service answers 429/503)
  --report FILE             one NDJSON line per row (default <file>.report.ndjson; - for stdout,
                            the summary then goes to stderr)
  --journal FILE            the finished rows, for resuming (default <file>.journal)
  --dry-run                 check every row against the spec and send nothing
  --retry-failed            send again the rows an earlier run recorded as failed
  --algorithm sha256|sha512, --encoding hex|base64, --no-message-signatures   as for create

CSV: a header row of the request's field names, a dot for nesting (kyc.occupation); an empty
cell is an absent field. NDJSON: one request body per line. Exit codes: 0 every row created or
existing; 1 a row invalid, conflict or failed; 2 usage, file, journal or connection errors before
the first row; 130 interrupted (the journal is kept: run the same command to resume).
`;

/** The settings of one import. */
export interface ImportOptions {
  help: boolean;
  file: string;
  format: InputFormat;
  concurrency: number;
  report: string;
  journal: string;
  dryRun: boolean;
  retryFailed: boolean;
  algorithm?: SignatureAlgorithm;
  encoding?: SignatureEncoding;
  /** Whether each request also carries an RFC 9421 message signature (default true). */
  messageSignatures: boolean;
}

/** Reads the arguments after `import`. */
export function parseImportArgs(args: string[]): ImportOptions {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const base = { help: values.help === true } as const;
  if (base.help) return { ...base, ...defaults('') };
  if (positionals.length !== 1) {
    throw new UsageError('import expects one file: institution-api import <file.csv|file.ndjson>');
  }
  const file = positionals[0] as string;
  const options: ImportOptions = {
    ...base,
    ...defaults(file),
    format: formatOf(file, values.format),
    concurrency: concurrencyOf(values.concurrency),
    dryRun: values['dry-run'] === true,
    retryFailed: values['retry-failed'] === true,
    ...signatureFlags(values),
    messageSignatures: messageSignaturesFlag(values),
  };
  if (values.report !== undefined) options.report = values.report;
  if (values.journal !== undefined) options.journal = values.journal;
  const same = (a: string, b: string) => a !== '-' && resolve(a) === resolve(b);
  if (
    same(options.report, file) ||
    same(options.journal, file) ||
    same(options.report, options.journal)
  ) {
    throw new UsageError('the file, the report and the journal must be three different files');
  }
  return options;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      concurrency: { type: 'string' },
      report: { type: 'string' },
      journal: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'retry-failed': { type: 'boolean' },
      ...signingFlags,
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function defaults(file: string) {
  return {
    file,
    format: 'csv' as InputFormat,
    concurrency: DEFAULT_CONCURRENCY,
    report: `${file}.report.ndjson`,
    journal: `${file}.journal`,
    dryRun: false,
    retryFailed: false,
    messageSignatures: true,
  };
}

function formatOf(file: string, flag: string | undefined): InputFormat {
  if (flag !== undefined) return oneOf('--format', flag, ['csv', 'ndjson']);
  const extension = extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.ndjson' || extension === '.jsonl') return 'ndjson';
  throw new UsageError(
    `cannot tell the format of ${file} from its extension: name it .csv or .ndjson, or pass --format csv|ndjson`,
  );
}

function concurrencyOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CONCURRENCY;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= MAX_CONCURRENCY)) {
    throw new UsageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}`);
  }
  return n;
}
