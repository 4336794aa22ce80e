import fc from 'fast-check';
import type { Outcome } from '../checks/catalog.js';
import { responseOutcomes } from '../checks/response-checks.js';
import type { Exchange } from '../http/exchange.js';
import { BudgetExhausted } from '../http/traffic.js';
import type { RunContext } from './context.js';

/** What one example produced: the outcomes of its checks and the requests it sent. */
export interface ExampleResult {
  outcomes: Outcome[];
  exchanges: Exchange[];
  /** What the example sent, in words (the broken keyword, the sequence of commands). */
  label?: string;
  /** The requests that show an outcome, when not all of them do. */
  evidence?: Map<Outcome, Exchange[]>;
}

/** One property of the run: examples of `arbitrary`, each sent and checked by `execute`. */
export interface PropertySpec<T> {
  phase: string;
  operation: string;
  arbitrary: fc.Arbitrary<T>;
  numRuns: number;
  /** Sends one example and checks what came back; `fc.pre(false)` skips an unusable one. */
  execute(value: T): Promise<ExampleResult>;
}

/** Thrown by a stateful command whose answer breaks the contract: the sequence fails there. */
export class SequenceFailure extends Error {
  constructor(readonly outcomes: Outcome[]) {
    super(outcomes.map((outcome) => outcome.message).join('; '));
  }
}

/** The outcomes of the generic answer checks on every exchange, and the example's own. */
export function withResponseChecks(context: RunContext, result: ExampleResult): ExampleResult {
  const evidence = new Map(result.evidence);
  const answers = result.exchanges.flatMap((exchange) =>
    responseOutcomes(context.contract, exchange).map((outcome) => {
      evidence.set(outcome, [exchange]);
      return outcome;
    }),
  );
  return { ...result, outcomes: [...answers, ...result.outcomes], evidence };
}

/**
 * Runs a property with fast-check at the run's seed. The first example on which a check fails is
 * shrunk by fast-check (each smaller candidate is sent too, within the budget); the last failing
 * example it confirms is the minimal one, and that is what is recorded. The property then runs
 * again (another seed) without the checks already failed, so one failure does not hide another,
 * up to three rounds. Once the budget is spent every example passes untried, which ends the
 * shrinking with the smallest failure confirmed so far.
 */
export async function runProperty<T>(context: RunContext, spec: PropertySpec<T>): Promise<void> {
  const { results, traffic } = context;
  for (let round = 0; round < 3 && !traffic.exhausted; round++) {
    let done = 0;
    let last: { failed: Outcome[]; result: ExampleResult } | undefined;
    let firstCaughtAt: number | undefined;
    let shrinks = 0;
    const property = fc.asyncProperty(spec.arbitrary, async (value) => {
      if (traffic.exhausted) return true;
      let result: ExampleResult;
      try {
        result = withResponseChecks(context, await spec.execute(value));
      } catch (error) {
        if (error instanceof BudgetExhausted) return true;
        throw error;
      }
      if (last === undefined)
        context.progress({
          phase: spec.phase,
          operation: spec.operation,
          done: ++done,
          planned: spec.numRuns,
        });
      const failed = result.outcomes.filter(
        (outcome) => !outcome.ok && !results.hasFailed(outcome.check, outcome.operation),
      );
      results.count(
        result.outcomes.filter(
          (outcome) => outcome.ok || !results.hasFailed(outcome.check, outcome.operation),
        ),
      );
      if (failed.length === 0) return true;
      if (last === undefined) firstCaughtAt = traffic.used;
      else shrinks++;
      last = { failed, result };
      return false;
    });
    const details = await fc.check(property, { seed: context.seed + round, numRuns: spec.numRuns });
    if (!details.failed) return;
    if (!last) {
      if (details.errorInstance) throw details.errorInstance;
      // Every example was skipped: the generator cannot make what this phase needs.
      return;
    }
    const found: { failed: Outcome[]; result: ExampleResult } = last;
    for (const outcome of found.failed) {
      results.fail({
        outcome,
        exchanges: found.result.evidence?.get(outcome) ?? found.result.exchanges,
        ...(found.result.label ? { label: found.result.label } : {}),
        requestsUntilCaught: firstCaughtAt ?? traffic.used,
        shrinks,
      });
    }
  }
}
