/**
 * What one diagnosis may spend (spec: `SignatureDiagnosis`, cause `no-known-mistake`;
 * "Assumptions", "Sandbox: why a signature failed"). A diagnosis answers a refused request, which
 * anyone who knows a public key can send, so its work is bounded by the request's shape, not only
 * by its size: a body of 16 KiB nested 32 levels deep pretty-prints to megabytes. Every candidate
 * it tries (a body written otherwise, a signature base with a component changed, a misused key)
 * is written and hashed once; the budget counts them and their bytes, and the time spent, and a
 * diagnosis whose budget is spent stops looking and says so.
 *
 * No `node:` imports here; a test enforces it.
 *
 * @module
 */

/** The bounds of one diagnosis. */
export interface DiagnosisBudget {
  /**
   * The deepest nesting of a JSON body that is written otherwise (the API's bodies nest three
   * levels); deeper, no re-serialization is tried.
   */
  maxDepth: number;
  /**
   * The most JSON values (objects, arrays, strings, numbers, literals) of a body written
   * otherwise (a user is about 30); more, no re-serialization is tried.
   */
  maxValues: number;
  /** The most candidates tried (each one MAC or digest), whatever their size. */
  maxCandidates: number;
  /** The most bytes written and hashed for the candidates, together. */
  maxBytes: number;
  /**
   * The most time from the diagnosis's start, in milliseconds: the other bounds keep a diagnosis
   * to a few milliseconds of CPU; this one ends one that waits on a busy machine.
   */
  maxMilliseconds: number;
}

/**
 * The default budget: every known mistake is tried on any body of the API's own shape and size,
 * at a cost of a few milliseconds of CPU at most, whatever the body.
 */
export const defaultDiagnosisBudget: Readonly<DiagnosisBudget> = Object.freeze({
  maxDepth: 32,
  maxValues: 1_000,
  maxCandidates: 200,
  maxBytes: 128 * 1024,
  maxMilliseconds: 100,
});

/** Why a diagnosis stopped looking: which bound it reached. */
export type BudgetLimit = 'size' | 'depth' | 'values' | 'candidates' | 'bytes' | 'time';

/** A budget being spent by one diagnosis: candidates are taken from it until it runs out. */
export class DiagnosisSpending {
  readonly budget: Readonly<DiagnosisBudget>;
  /** The bound reached, once one is: from then on nothing more is taken. */
  limit: BudgetLimit | undefined;
  private candidates = 0;
  private bytes = 0;
  private readonly clock: () => number;
  private readonly deadline: number;

  /** `clock` in milliseconds, `performance.now` by default. */
  constructor(budget: Partial<DiagnosisBudget> = {}, clock = () => performance.now()) {
    this.budget = { ...defaultDiagnosisBudget, ...budget };
    this.clock = clock;
    this.deadline = clock() + this.budget.maxMilliseconds;
  }

  /** The bytes still allowed. */
  get bytesLeft(): number {
    return this.limit === undefined ? Math.max(0, this.budget.maxBytes - this.bytes) : 0;
  }

  /**
   * Takes one candidate of `bytes` bytes: true when the budget allows it (and it is counted),
   * false when a bound is reached (and stays reached).
   */
  take(bytes: number): boolean {
    if (this.limit !== undefined) return false;
    if (this.candidates >= this.budget.maxCandidates) return this.stop('candidates');
    if (this.bytes + bytes > this.budget.maxBytes) return this.stop('bytes');
    if (this.clock() > this.deadline) return this.stop('time');
    this.candidates += 1;
    this.bytes += bytes;
    return true;
  }

  /** Records that a bound is reached; false, for {@link take}. */
  stop(limit: BudgetLimit): false {
    this.limit ??= limit;
    return false;
  }

  /** The bound reached, in words (`the body is nested deeper than 32 levels`). */
  words(): string {
    const { maxDepth, maxValues, maxCandidates, maxBytes, maxMilliseconds } = this.budget;
    switch (this.limit) {
      case 'size':
        return `the body is larger than ${maxBodyBytes / 1024} KiB`;
      case 'depth':
        return `the body is nested deeper than ${maxDepth} levels`;
      case 'values':
        return `the body holds more than ${maxValues.toLocaleString('en-US')} JSON values`;
      case 'candidates':
        return `it tried ${maxCandidates} candidates`;
      case 'bytes':
        return `it wrote and hashed ${Math.round(maxBytes / 1024)} KiB of candidates`;
      case 'time':
        return `it took ${maxMilliseconds} ms`;
      default:
        return 'it tried every known mistake';
    }
  }
}

/**
 * Above this, no re-serialization of a body is tried: the service's bodies are a few KiB, and the
 * variants of a body near the 64 KiB limit would spend the whole byte budget on a few of them.
 */
export const maxBodyBytes = 16 * 1024;
