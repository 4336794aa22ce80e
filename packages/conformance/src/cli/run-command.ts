import { randomInt } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type {
  SignatureAlgorithm,
  SignatureEncoding,
  SignatureOptions,
} from '@institution-api/signing';
import { UnsupportedSchemaError } from '../generate/unsupported-schema.js';
import type { Credentials } from '../http/authorization.js';
import { failureText } from '../report/failure-text.js';
import { junitXml } from '../report/junit.js';
import { ndjsonLines } from '../report/ndjson.js';
import { progressPrinter } from '../report/progress.js';
import { summaryText } from '../report/summary.js';
import { planText } from '../run/plan.js';
import { type RunReport, runConformance, ServiceUnreachable } from '../run/run-conformance.js';
import { readContract } from '../spec/contract.js';
import { loadSpec, SpecError } from '../spec/load-spec.js';
import type { CliIo } from './io.js';
import { baseUrl, oneOf, UsageError, wholeNumber } from './usage-error.js';

const OPTIONS = {
  'base-url': { type: 'string' },
  'public-key': { type: 'string' },
  'secret-key': { type: 'string' },
  'other-public-key': { type: 'string' },
  'other-secret-key': { type: 'string' },
  spec: { type: 'string' },
  seed: { type: 'string' },
  'max-examples': { type: 'string' },
  'time-budget': { type: 'string' },
  'max-requests': { type: 'string' },
  rate: { type: 'string' },
  junit: { type: 'string' },
  report: { type: 'string' },
  algorithm: { type: 'string' },
  encoding: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'message-signatures': { type: 'boolean' },
  'fail-fast': { type: 'boolean' },
} as const;

/** `institution-api-conformance run`: resolves to the exit code (0 passed, 1 failed, 2 usage). */
export async function runCommand(args: string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(args);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { env } = io;
  const credentials = credentialsOf(values, env);
  const signature: SignatureOptions = {};
  const algorithm = oneOf<SignatureAlgorithm>('--algorithm', values.algorithm, [
    'sha256',
    'sha512',
  ]);
  const encoding = oneOf<SignatureEncoding>('--encoding', values.encoding, ['hex', 'base64']);
  if (algorithm) signature.algorithm = algorithm;
  if (encoding) signature.encoding = encoding;
  const options = {
    baseUrl: baseUrl(
      '--base-url (or INSTITUTION_API_URL)',
      values['base-url'] ?? env.INSTITUTION_API_URL,
    ),
    credentials,
    seed: wholeNumber('--seed', values.seed, { allowZero: true }) ?? randomInt(2 ** 31),
    signature,
    maxExamples: wholeNumber('--max-examples', values['max-examples']),
    maxRequests: wholeNumber('--max-requests', values['max-requests']),
    timeBudgetSeconds: wholeNumber('--time-budget', values['time-budget']),
    rate: wholeNumber('--rate', values.rate, { allowZero: true }),
    messageSignatures: values['message-signatures'] === true ? true : undefined,
    failFast: values['fail-fast'] === true ? true : undefined,
  };
  const defined = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as typeof options;
  let document: Awaited<ReturnType<typeof loadSpec>>;
  try {
    document = await loadSpec(values.spec);
  } catch (error) {
    if (error instanceof SpecError) throw new UsageError(error.message);
    throw error;
  }

  if (values['dry-run']) {
    try {
      io.stdout(
        planText(
          readContract(document),
          defined,
          values.spec ?? 'the bundled spec of @institution-api/types',
        ),
      );
    } catch (error) {
      if (error instanceof UnsupportedSchemaError) throw new UsageError(error.message);
      throw error;
    }
    return 0;
  }

  const progress = progressPrinter(io.stderr, io.terminal ?? false);
  let report: RunReport;
  try {
    report = await runConformance({ ...defined, document, onProgress: progress.update });
  } catch (error) {
    progress.done();
    if (error instanceof ServiceUnreachable || error instanceof UnsupportedSchemaError) {
      io.stderr(`institution-api-conformance: ${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    progress.done();
  }
  for (const result of report.results) {
    if (result.failure) io.stdout(`${failureText(result.failure, signature)}\n`);
  }
  io.stdout(`${summaryText(report)}\n`);
  if (values.report) await writeFile(values.report, ndjsonLines(report, signature));
  if (values.junit) {
    const cases = report.results.map((result) => ({
      check: result.check,
      operation: result.operation,
      ...(result.failure
        ? {
            failure: {
              message: result.failure.outcome.message ?? 'failed',
              details: failureText(result.failure, signature),
            },
          }
        : {}),
      ...(result.skipped !== undefined ? { skipped: result.skipped } : {}),
    }));
    await writeFile(values.junit, junitXml(cases, report.durationMs / 1000));
  }
  return report.results.some((result) => result.failure) ? 1 : 0;
}

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true }).values;
}

/** The keys from the flags, else the environment; both halves of a pair, or neither. */
function credentialsOf(values: ReturnType<typeof parse>, env: CliIo['env']): Credentials {
  const pair = (prefix: string, envPrefix: string) => {
    const publicKey =
      values[`${prefix}public-key` as 'public-key'] ?? env[`${envPrefix}PUBLIC_KEY`];
    const secretKey =
      values[`${prefix}secret-key` as 'secret-key'] ?? env[`${envPrefix}SECRET_KEY`];
    if (!publicKey && !secretKey) return undefined;
    if (!publicKey)
      throw new UsageError(
        `--${prefix}public-key (or ${envPrefix}PUBLIC_KEY) is required with the secret key`,
      );
    if (!secretKey)
      throw new UsageError(
        `--${prefix}secret-key (or ${envPrefix}SECRET_KEY) is required with the public key`,
      );
    return { publicKey, secretKey };
  };
  const main = pair('', 'INSTITUTION_');
  if (!main)
    throw new UsageError(
      '--public-key and --secret-key (or INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY) are required',
    );
  const other = pair('other-', 'INSTITUTION_OTHER_');
  if (other && other.publicKey === main.publicKey)
    throw new UsageError('the second institution must have other keys than the first');
  return other ? { main, other } : { main };
}
