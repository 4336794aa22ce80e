import type { Exchange } from '../http/exchange.js';
import type { Outcome } from './catalog.js';
import { problemSummary } from './positive-data-acceptance.js';

/**
 * `negative_data_rejection`: a validly signed request that breaks one keyword of the spec is
 * refused with 400 and a problem that names the broken field (in its `errors`, `detail` or
 * `title`): a client must be told what to fix. `field` is the property the edit touched; a broken
 * conditional rule may name any of its `ruleFields` instead; the whole body (`body`) needs only
 * a 400 problem.
 */
export function negativeDataRejection(
  exchange: Exchange,
  field: string,
  label: string,
  ruleFields: string[] = [],
): Outcome {
  const operation = exchange.operation.id;
  const check = 'negative_data_rejection';
  const answer = exchange.answer;
  if (!answer)
    return {
      check,
      operation,
      ok: false,
      message: `no answer: ${exchange.error}`,
      expected: '400',
      actual: exchange.error ?? '',
    };
  const expected = `400 with a problem naming ${field}`;
  if (answer.status !== 400) {
    return {
      check,
      operation,
      ok: false,
      message: `invalid data (${label}) was answered ${answer.status}${answer.status < 300 ? ': the service accepted it' : ''}`,
      expected,
      actual: `${answer.status} ${answer.text.slice(0, 300)}`,
    };
  }
  const problem = answer.json as
    | { errors?: unknown; detail?: unknown; title?: unknown }
    | undefined;
  const words =
    problem && typeof problem === 'object'
      ? JSON.stringify([problem.errors, problem.detail, problem.title])
      : '';
  const named = [field, ...ruleFields].some((name) => words.includes(name));
  if (field === 'body' ? words.length > 0 : named) return { check, operation, ok: true };
  return {
    check,
    operation,
    ok: false,
    message: `the 400 for invalid data (${label}) does not name ${field}: ${problemSummary(answer.json, answer.text)}`,
    expected,
    actual: answer.text.slice(0, 500),
  };
}
