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
 * never tells a caller which part of its credentials was right (the spec's `Unauthorized`).
 */
export function sameRefusals(
  exchanges: { exchange: Exchange; cause: string }[],
): Outcome | undefined {
  const refused = exchanges.filter(({ exchange }) => exchange.answer?.status === 401);
  const first = refused[0];
  if (!first) return undefined;
  const operation = first.exchange.operation.id;
  const different = refused.find(
    ({ exchange }) => exchange.answer?.text !== first.exchange.answer?.text,
  );
  if (!different) return { check: 'auth_enforcement', operation, ok: true };
  return {
    check: 'auth_enforcement',
    operation,
    ok: false,
    message: `the 401 for ${different.cause} differs from the 401 for ${first.cause}: the answer tells the causes apart`,
    expected: first.exchange.answer?.text.slice(0, 300) ?? '',
    actual: different.exchange.answer?.text.slice(0, 300) ?? '',
  };
}
