import type { Exchange } from '../http/exchange.js';
import type { Outcome } from './catalog.js';

/**
 * `auth_enforcement` on one request whose only fault is its authentication: exactly 401. A 2xx
 * means the service let an unauthenticated caller in; a 400 means it looked at the body of a
 * request it had not authenticated (the spec checks the signature first).
 */
export function refusedAsUnauthenticated(exchange: Exchange, cause: string): Outcome {
  const operation = exchange.operation.id;
  const check = 'auth_enforcement';
  const status = exchange.answer?.status;
  if (status === 401) return { check, operation, ok: true };
  return {
    check,
    operation,
    ok: false,
    message: `a request with ${cause} was answered ${status ?? `nothing (${exchange.error})`}${status !== undefined && status < 300 ? ': the service let it in' : ''}`,
    expected: '401',
    actual: `${status ?? exchange.error} ${exchange.answer?.text.slice(0, 300) ?? ''}`,
  };
}

/**
 * `auth_enforcement` over the 401s of one path: the same body whatever the cause, so an answer
 * never tells a caller which part of its credentials was right (the spec's `Unauthorized`). A
 * sandbox adds `diagnosis` to a known key's 401 (spec: `Problem.diagnosis`): the bodies are then
 * compared without it; without one, byte for byte.
 */
export function sameRefusals(
  exchanges: { exchange: Exchange; cause: string }[],
): Outcome | undefined {
  const refused = exchanges.filter(({ exchange }) => exchange.answer?.status === 401);
  const first = refused[0];
  if (!first) return undefined;
  const operation = first.exchange.operation.id;
  const texts = refused.map(({ exchange }) => exchange.answer?.text ?? '');
  const problems = texts.map(problemOf);
  const diagnosed = problems.some((problem) => problem?.diagnosis !== undefined);
  const comparable = diagnosed
    ? problems.map((problem, i) => {
        if (problem === undefined) return texts[i];
        const { diagnosis: _, ...rest } = problem;
        return JSON.stringify(rest);
      })
    : texts;
  const index = comparable.findIndex((text) => text !== comparable[0]);
  const different = refused[index];
  if (!different) return { check: 'auth_enforcement', operation, ok: true };
  return {
    check: 'auth_enforcement',
    operation,
    ok: false,
    message: `the 401 for ${different.cause} differs from the 401 for ${first.cause}${diagnosed ? ' (their diagnosis aside)' : ''}: the answer tells the causes apart`,
    expected: first.exchange.answer?.text.slice(0, 300) ?? '',
    actual: different.exchange.answer?.text.slice(0, 300) ?? '',
  };
}

/** A 401's body as a JSON object; undefined when it is not one. */
function problemOf(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
