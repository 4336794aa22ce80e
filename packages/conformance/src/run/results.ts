import type { CheckId, Outcome } from '../checks/catalog.js';
import type { Exchange } from '../http/exchange.js';

/** A check that failed on one operation, with the minimal request (or sequence) that shows it. */
export interface Failure {
  outcome: Outcome;
  /** The shrunk request, or the shrunk sequence of requests, in the order sent. */
  exchanges: Exchange[];
  /** What was sent, in words (the broken keyword, the command sequence). */
  label?: string;
  /** How many requests the run had sent when this check first failed. */
  requestsUntilCaught: number;
  /** How many smaller examples fast-check tried and confirmed while shrinking. */
  shrinks: number;
}

/** Everything a run found about one check on one operation. */
export interface CheckResult {
  check: CheckId;
  operation: string;
  /** How many times the check was evaluated. */
  evaluations: number;
  failure?: Failure;
  /** Why it could not be evaluated at all, when it was not. */
  skipped?: string;
}

/**
 * The run's findings, by check and operation. The first failure of a check on an operation is
 * the one reported (after shrinking); later ones of the same pair are not looked for again.
 */
export class Results {
  private readonly byKey = new Map<string, CheckResult>();

  /** `onFailure` is told of each failure recorded (a run that stops at the first). */
  constructor(private readonly onFailure: (failure: Failure) => void = () => {}) {}

  private entry(check: CheckId, operation: string): CheckResult {
    const key = `${check} ${operation}`;
    let result = this.byKey.get(key);
    if (!result) {
      result = { check, operation, evaluations: 0 };
      this.byKey.set(key, result);
    }
    return result;
  }

  /** Counts each outcome's evaluation. */
  count(outcomes: Outcome[]) {
    for (const outcome of outcomes) this.entry(outcome.check, outcome.operation).evaluations++;
  }

  /** Whether this check already failed on this operation (and so is not looked at again). */
  hasFailed(check: CheckId, operation: string): boolean {
    return this.byKey.get(`${check} ${operation}`)?.failure !== undefined;
  }

  /** Records a failure, unless one of the same check and operation is already recorded. */
  fail(failure: Failure) {
    const entry = this.entry(failure.outcome.check, failure.outcome.operation);
    if (entry.failure) return;
    entry.failure = failure;
    this.onFailure(failure);
  }

  /** Marks a check as not evaluated on an operation, with the reason (kept if it ran elsewhere). */
  skip(check: CheckId, operation: string, reason: string) {
    const entry = this.entry(check, operation);
    if (entry.evaluations === 0 && !entry.failure) entry.skipped = reason;
  }

  /** Every result, in a stable order (check, then operation). */
  all(): CheckResult[] {
    return [...this.byKey.values()]
      .map(({ skipped, ...rest }) =>
        skipped !== undefined && rest.evaluations === 0 && !rest.failure
          ? { ...rest, skipped }
          : rest,
      )
      .sort((a, b) => a.check.localeCompare(b.check) || a.operation.localeCompare(b.operation));
  }

  /** The failures, in the order of {@link all}. */
  failures(): Failure[] {
    return this.all().flatMap((result) => (result.failure ? [result.failure] : []));
  }
}
