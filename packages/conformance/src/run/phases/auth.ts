import fc from 'fast-check';
import { refusedAsUnauthenticated, sameRefusals } from '../../checks/auth-enforcement.js';
import type { Outcome } from '../../checks/catalog.js';
import type { AuthorizationRecipe } from '../../http/authorization.js';
import type { Exchange } from '../../http/exchange.js';
import { freshIdentity } from '../../semantics/user-semantics.js';
import type { Operation } from '../../spec/contract.js';
import type { RunContext } from '../context.js';
import { bytesOf, targetOf } from '../links.js';
import { runProperty } from '../property.js';
import { subjectParameters } from '../subjects.js';

/** The ways a request can fail to authenticate, each with a valid body otherwise. */
function causes(
  body: Uint8Array<ArrayBuffer>,
): { cause: string; authorization: AuthorizationRecipe; body?: Uint8Array<ArrayBuffer> }[] {
  const changed = new TextEncoder().encode(`${new TextDecoder().decode(body).slice(0, -1)} }`);
  return [
    { cause: 'no Authorization header', authorization: { kind: 'none' } },
    {
      cause: 'a malformed Authorization header',
      authorization: { kind: 'literal', value: 'Bearer not-a-signature' },
    },
    {
      cause: 'an unknown public key',
      authorization: { kind: 'unknown-key', publicKey: 'conformance-unknown-public-key' },
    },
    {
      cause: 'a signature made with a wrong secret',
      authorization: { kind: 'wrong-secret', secret: 'conformance-wrong-secret' },
    },
    // The body sent is not the body signed: one space before the closing brace, same meaning.
    {
      cause: 'a body changed after signing',
      authorization: { kind: 'signed-text', text: body },
      body: changed,
    },
    { cause: 'a truncated signature', authorization: { kind: 'truncated' } },
  ];
}

/**
 * `auth_enforcement` on one operation: a valid body (to a resource of the first institution) sent
 * once per way of failing authentication; each must answer exactly 401, and all the 401s the same
 * body. A property too, so a failure shrinks to its smallest body.
 */
export async function authPhase(context: RunContext, operation: Operation): Promise<void> {
  const bodies = context.bodies.get(operation);
  if (!operation.secured || !bodies) return;
  const parameters = await subjectParameters(context, operation);
  if ('missing' in parameters) {
    context.results.skip('auth_enforcement', operation.id, parameters.missing);
    return;
  }
  const validate = context.contract.validator(operation.body?.schema ?? {});
  await runProperty(context, {
    phase: 'authentication',
    operation: operation.id,
    arbitrary: bodies,
    numRuns: 2,
    async execute(generated) {
      const body = freshIdentity(generated);
      fc.pre(validate(body) === true);
      const bytes = bytesOf(body);
      const sent: { exchange: Exchange; cause: string }[] = [];
      for (const { cause, authorization, body: other } of causes(bytes)) {
        const exchange = await context.traffic.send(operation, {
          method: operation.method,
          target: targetOf(operation, parameters.values),
          ...(parameters.idFrom ? { idFrom: parameters.idFrom } : {}),
          body: other ?? bytes,
          authorization,
        });
        sent.push({ exchange, cause });
      }
      const evidence = new Map<Outcome, Exchange[]>();
      const outcomes = sent.map(({ exchange, cause }) => {
        const outcome = refusedAsUnauthenticated(exchange, cause);
        evidence.set(outcome, [exchange]);
        return outcome;
      });
      const same = sameRefusals(sent);
      if (same && !same.ok) {
        // The evidence is the first 401 and the first that differs from it.
        const refused = sent.filter(({ exchange }) => exchange.answer?.status === 401);
        const first = refused[0]?.exchange;
        const other = refused.find(
          ({ exchange }) => exchange.answer?.text !== first?.answer?.text,
        )?.exchange;
        if (first && other) evidence.set(same, [first, other]);
      }
      return {
        outcomes: [...outcomes, ...(same ? [same] : [])],
        exchanges: sent.map(({ exchange }) => exchange),
        evidence,
        label: 'one valid body sent with each way of failing authentication',
      };
    },
  });
}
