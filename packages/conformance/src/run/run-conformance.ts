import type { SignatureOptions } from '@institution-api/signing';
import type { OpenApiDocument } from '@institution-api/types';
import type { Credentials } from '../http/authorization.js';
import type { Exchange } from '../http/exchange.js';
import { networkError, Traffic } from '../http/traffic.js';
import { readContract } from '../spec/contract.js';
import { arbitraryOptionsOf, bodyArbitraries } from './bodies.js';
import type { Progress, RunContext } from './context.js';
import { authPhase } from './phases/auth.js';
import { byteExactnessPhase } from './phases/byte-exactness.js';
import { dataPhase } from './phases/data.js';
import { messageSignaturePhase } from './phases/message-signatures.js';
import { statefulPhase } from './phases/stateful.js';
import { type CheckResult, Results } from './results.js';

/** Defaults of `run` (README, "Budget"). */
export const RUN_DEFAULTS = Object.freeze({
  maxExamples: 25,
  maxRequests: 3000,
  timeBudgetSeconds: 600,
  rate: 50,
});

/** Everything one run needs. */
export interface RunOptions {
  baseUrl: string;
  credentials: Credentials;
  /** The contract to check against (the bundled spec of `@institution-api/types` by default). */
  document: OpenApiDocument;
  seed: number;
  /** Examples per property (valid data; invalid data draws twice as many; sequences half). */
  maxExamples?: number;
  maxRequests?: number;
  timeBudgetSeconds?: number;
  /** Requests per second at most; 0 for no pacing. */
  rate?: number;
  signature?: SignatureOptions;
  /**
   * Also check that the service refuses what a key pair requiring RFC 9421 message signatures
   * must refuse (a replay, a stale `created`, a body or a path changed under the signature, no
   * `content-digest` covered): `--message-signatures`, for the keys of such a pair.
   */
  messageSignatures?: boolean;
  /**
   * Stop at the first failure (once shrunk): `--fail-fast`, for a loop of "fix, run again" where
   * the first finding is all one needs. Off by default: a run reports every check.
   */
  failFast?: boolean;
  onProgress?: (progress: Progress) => void;
  /** Every request and its answer, as they happen. */
  onExchange?: (exchange: Exchange) => void;
}

/** What a run found. */
export interface RunReport {
  seed: number;
  baseUrl: string;
  results: CheckResult[];
  /** Requests sent, retries and shrinking included. */
  requests: number;
  durationMs: number;
  /** Why the run stopped before its plan was done (budget, time, the service gone), if it did. */
  stopped?: string;
}

/** The service could not be reached at all: a usage error of the run (exit 2), not a finding. */
export class ServiceUnreachable extends Error {}

/**
 * Checks the service at `baseUrl` against the contract: for each operation, valid and invalid
 * data, authentication (with `messageSignatures`, the message-signature checks too) and byte
 * exactness; then stateful sequences. Every validly signed request is signed both ways: the
 * `Authorization` header and an RFC 9421 message signature. Generators are built (and an
 * unsupported schema keyword fails) before anything is sent.
 */
export async function runConformance(options: RunOptions): Promise<RunReport> {
  const started = Date.now();
  const contract = readContract(options.document);
  const arbitraryOptions = arbitraryOptionsOf(contract);
  const bodies = bodyArbitraries(contract);
  await probe(options.baseUrl);
  const traffic: Traffic = new Traffic(
    options.baseUrl,
    {
      maxRequests: options.maxRequests ?? RUN_DEFAULTS.maxRequests,
      rate: options.rate ?? RUN_DEFAULTS.rate,
      deadline: started + (options.timeBudgetSeconds ?? RUN_DEFAULTS.timeBudgetSeconds) * 1000,
    },
    options.credentials,
    options.signature ?? {},
    options.onExchange,
  );
  const results = new Results(
    options.failFast
      ? ({ outcome }) =>
          traffic.stop(`${outcome.check} failed on ${outcome.operation} (--fail-fast)`)
      : undefined,
  );
  const context: RunContext = {
    contract,
    traffic,
    results,
    credentials: options.credentials,
    signature: options.signature ?? {},
    seed: options.seed,
    maxExamples: options.maxExamples ?? RUN_DEFAULTS.maxExamples,
    bodies,
    arbitraryOptions,
    progress: (progress) =>
      options.onProgress?.({
        ...progress,
        requests: traffic.used,
        failures: results.failures().length,
      }),
  };
  for (const operation of contract.operations) {
    if (traffic.exhausted) break;
    await dataPhase(context, operation);
    await authPhase(context, operation);
    if (options.messageSignatures) await messageSignaturePhase(context, operation);
    await byteExactnessPhase(context, operation);
  }
  if (!traffic.exhausted) await statefulPhase(context);
  return {
    seed: options.seed,
    baseUrl: options.baseUrl,
    results: results.all(),
    requests: traffic.used,
    durationMs: Date.now() - started,
    ...(traffic.stopped ? { stopped: traffic.stopped } : {}),
  };
}

/** One request to the base URL: any HTTP answer means the service is there. */
async function probe(baseUrl: string): Promise<void> {
  try {
    const response = await fetch(baseUrl, {
      method: 'GET',
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
  } catch (error) {
    throw new ServiceUnreachable(`cannot reach ${baseUrl}: ${networkError(error)}`);
  }
}
