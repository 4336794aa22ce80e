/**
 * `auth_enforcement` over the 401s of one path (src/checks/auth-enforcement.ts): one body whatever
 * the cause, except a sandbox's `diagnosis` of a known key's refusal (spec: `Problem.diagnosis`).
 */
import { describe, expect, it } from 'vitest';
import { sameRefusals } from '../../src/checks/auth-enforcement.js';
import { example, exchange, PROBLEM } from '../support/exchanges.js';

const uniform = example('UnauthorizedProblem');
const diagnosed = example('UnauthorizedDiagnosedProblem');
const refusal = (body: unknown, cause: string) => ({
  exchange: exchange('createUser', 401, body, PROBLEM),
  cause,
});

describe('sameRefusals', () => {
  it.each([
    ['the same body for every cause', [uniform, uniform, uniform], true],
    ["a sandbox's diagnosis of one cause, the rest alike", [uniform, diagnosed, uniform], true],
    ['another detail for one cause', [uniform, { ...uniform, detail: 'Wrong secret.' }], false],
    [
      'another detail beside a diagnosis',
      [uniform, { ...diagnosed, detail: 'Wrong secret.' }],
      false,
    ],
    [
      'another spelling of the same body, without diagnosis',
      [uniform, JSON.stringify(uniform, null, 1)],
      false,
    ],
  ])('%s: ok %s', (_, bodies, ok) => {
    const causes = ['no Authorization header', 'a wrong secret', 'an unknown key'];
    const outcome = sameRefusals(bodies.map((body, i) => refusal(body, causes[i] ?? '')));
    expect(outcome?.ok).toBe(ok);
  });
});
