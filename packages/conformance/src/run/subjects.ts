import fc from 'fast-check';
import type { Exchange, SentRequest } from '../http/exchange.js';
import { freshIdentity } from '../semantics/user-semantics.js';
import type { Operation } from '../spec/contract.js';
import type { RunContext } from './context.js';
import { bytesOf, linksOf, targetOf } from './links.js';
import { withResponseChecks } from './property.js';

/** The path parameters of an operation, or why the run has none to use. */
export type Parameters =
  | {
      values: Record<string, string>;
      /** Where a value came from, so a reproduction creates the resource first. */
      idFrom?: SentRequest['idFrom'];
    }
  | { missing: string };

const made = new WeakMap<RunContext, Map<Operation, Promise<Parameters>>>();

/**
 * Path parameters for `operation` that name a resource of the first institution, made once per
 * run: each linked producer (`POST /users` for `PUT /users/{id}`) is called with a fresh valid
 * body, and the answer's property is the value. Phases that need a resource that exists (valid
 * data, authentication, byte exactness) use these.
 */
export function subjectParameters(context: RunContext, operation: Operation): Promise<Parameters> {
  let perRun = made.get(context);
  if (!perRun) {
    perRun = new Map();
    made.set(context, perRun);
  }
  let found = perRun.get(operation);
  if (!found) {
    found = makeParameters(context, operation);
    perRun.set(operation, found);
  }
  return found;
}

/** Path parameters of a new resource of the first institution, every call (not kept). */
export function freshParameters(context: RunContext, operation: Operation): Promise<Parameters> {
  return makeParameters(context, operation);
}

async function makeParameters(context: RunContext, operation: Operation): Promise<Parameters> {
  const values: Record<string, string> = {};
  let idFrom: SentRequest['idFrom'];
  const links = linksOf(context.contract, operation);
  for (const { name } of operation.pathParameters) {
    const link = links.find((candidate) => candidate.parameter === name);
    if (!link)
      return { missing: `no operation of the spec creates the ${name} of ${operation.id}` };
    const exchange = await produce(context, link.producer);
    const value = (exchange?.answer?.json as Record<string, unknown> | undefined)?.[link.property];
    if (typeof value !== 'string' && typeof value !== 'number') {
      return {
        missing: `${link.producer.id} did not answer a ${link.property} to use as the ${name} of ${operation.id} (${exchange?.answer?.status ?? exchange?.error ?? 'no request'})`,
      };
    }
    values[name] = String(value);
    if (exchange)
      idFrom = {
        parameter: name,
        property: link.property,
        value: String(value),
        exchange: -1,
        producer: exchange,
      };
  }
  return idFrom ? { values, idFrom } : { values };
}

async function produce(context: RunContext, producer: Operation): Promise<Exchange | undefined> {
  const arbitrary = context.bodies.get(producer);
  if (!arbitrary || producer.pathParameters.length > 0) return undefined;
  const validate = context.contract.validator(producer.body?.schema ?? {});
  const body = fc
    .sample(arbitrary, { seed: context.seed, numRuns: 50 })
    .map(freshIdentity)
    .find((candidate) => validate(candidate));
  if (body === undefined) return undefined;
  const exchange = await context.traffic.send(producer, {
    method: producer.method,
    target: targetOf(producer, {}),
    body: bytesOf(body),
    authorization: { kind: 'signed', as: 'main' },
  });
  // Its answer is checked like any other.
  const { outcomes } = withResponseChecks(context, { outcomes: [], exchanges: [exchange] });
  context.results.count(outcomes.filter((outcome) => outcome.ok));
  return exchange;
}
