import type { SignatureOptions } from '@institution-api/signing';
import type fc from 'fast-check';
import type { Credentials } from '../http/authorization.js';
import type { Traffic } from '../http/traffic.js';
import type { Contract, Operation } from '../spec/contract.js';
import type { Results } from './results.js';

/** What the run reports while it works. */
export interface Progress {
  phase: string;
  operation: string;
  /** Examples (or sequences) done in this phase, and how many it plans. */
  done: number;
  planned: number;
  /** Requests sent by the run so far. */
  requests: number;
  /** Checks failed so far, over the whole run. */
  failures: number;
}

/** The state one run shares between its phases. */
export interface RunContext {
  contract: Contract;
  traffic: Traffic;
  results: Results;
  credentials: Credentials;
  signature: SignatureOptions;
  seed: number;
  maxExamples: number;
  /** A generator of valid bodies for each operation that takes one. */
  bodies: Map<Operation, fc.Arbitrary<unknown>>;
  /** The options of the JSON-Schema → fast-check converter. */
  arbitraryOptions: { document: unknown; textUnit: fc.Arbitrary<string> };
  progress(progress: Omit<Progress, 'requests' | 'failures'>): void;
}
