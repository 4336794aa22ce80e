import fc from 'fast-check';
import { negativeDataRejection } from '../../checks/negative-data-rejection.js';
import { positiveDataAcceptance } from '../../checks/positive-data-acceptance.js';
import { type Edit, editsOf, MUTATION_KEYWORDS } from '../../generate/edits.js';
import { freshIdentity } from '../../semantics/user-semantics.js';
import type { Operation } from '../../spec/contract.js';
import type { RunContext } from '../context.js';
import { bytesOf, targetOf } from '../links.js';
import { runProperty } from '../property.js';
import { subjectParameters } from '../subjects.js';

/**
 * `positive_data_acceptance` and `negative_data_rejection` on one operation. Valid bodies come
 * from the schema (with, one time in three, a boundary edit that keeps them valid: a length at its
 * bound, a null, a first or last day); invalid ones are a valid body with one labelled mutation,
 * each kind of mutation drawn equally often, each confirmed invalid by Ajv before it is sent. Both
 * are signed over the bytes sent and go to a resource of the first institution.
 */
export async function dataPhase(context: RunContext, operation: Operation): Promise<void> {
  const bodies = context.bodies.get(operation);
  if (!bodies || !operation.body) return;
  const parameters = await subjectParameters(context, operation);
  if ('missing' in parameters) {
    for (const check of ['positive_data_acceptance', 'negative_data_rejection'] as const) {
      context.results.skip(check, operation.id, parameters.missing);
    }
    return;
  }
  const validate = context.contract.validator(operation.body.schema);
  const schemas = [operation.body.schema];
  const editsFor = (body: unknown) => editsOf(body, schemas, context.arbitraryOptions);
  const send = (body: unknown) =>
    context.traffic.send(operation, {
      method: operation.method,
      target: targetOf(operation, parameters.values),
      ...(parameters.idFrom ? { idFrom: parameters.idFrom } : {}),
      body: bytesOf(body),
      authorization: { kind: 'signed', as: 'main' },
    });

  await runProperty(context, {
    phase: 'valid data',
    operation: operation.id,
    arbitrary: fc.record({ body: bodies, pick: fc.nat({ max: 1000 }), boundary: fc.boolean() }),
    numRuns: context.maxExamples,
    async execute({ body, pick, boundary }) {
      let sent = body;
      let label = 'a valid body';
      if (boundary) {
        const valid = editsFor(body).filter((edit) => edit.valid);
        const chosen = valid[pick % Math.max(valid.length, 1)];
        if (chosen) {
          sent = chosen.apply(body);
          label = `a valid body with ${chosen.label}`;
        }
      }
      sent = freshIdentity(sent);
      fc.pre(validate(sent) === true);
      const exchange = await send(sent);
      return { outcomes: [positiveDataAcceptance(exchange)], exchanges: [exchange], label };
    },
  });

  await runProperty(context, {
    phase: 'invalid data',
    operation: operation.id,
    arbitrary: fc.record({
      body: bodies,
      keyword: fc.constantFrom(
        ...mutationKinds(context, bodies, editsFor),
        ...(operation.pathParameters.length > 0 ? ['parameter'] : []),
      ),
      pick: fc.nat({ max: 1000 }),
    }),
    numRuns: context.maxExamples * 2,
    async execute({ body, keyword, pick }) {
      if (keyword === 'parameter')
        return invalidParameter(context, operation, parameters.values, freshIdentity(body), pick);
      const candidates = editsFor(freshIdentity(body)).filter(
        (edit) => !edit.valid && edit.keyword === keyword,
      );
      const edit: Edit | undefined = candidates[pick % Math.max(candidates.length, 1)];
      fc.pre(edit !== undefined);
      const sent = (edit as Edit).apply(freshIdentity(body));
      fc.pre(validate(sent) === false);
      const exchange = await send(sent);
      return {
        outcomes: [
          negativeDataRejection(
            exchange,
            (edit as Edit).field,
            (edit as Edit).label,
            (edit as Edit).ruleFields,
          ),
        ],
        exchanges: [exchange],
        label: `an invalid body: ${(edit as Edit).label}`,
      };
    },
  });
}

/**
 * The kinds of mutation the schema offers (those `editsOf` finds on a sample of valid bodies),
 * so each is drawn equally often and none is drawn for nothing.
 */
function mutationKinds(
  context: RunContext,
  bodies: fc.Arbitrary<unknown>,
  editsFor: (body: unknown) => Edit[],
): string[] {
  const found = new Set(
    fc.sample(bodies, { seed: context.seed, numRuns: 30 }).flatMap((body) =>
      editsFor(body)
        .filter((edit) => !edit.valid)
        .map((edit) => edit.keyword),
    ),
  );
  return MUTATION_KEYWORDS.filter((keyword) => found.has(keyword));
}

/** A valid body sent to a path parameter that breaks its own schema (a malformed id). */
async function invalidParameter(
  context: RunContext,
  operation: Operation,
  values: Record<string, string>,
  body: unknown,
  pick: number,
) {
  const candidates = operation.pathParameters.flatMap((parameter) =>
    editsOf(values[parameter.name], [parameter.schema], context.arbitraryOptions)
      .filter((edit) => !edit.valid && typeof edit.apply(values[parameter.name]) === 'string')
      .map((edit) => ({ parameter, edit })),
  );
  const chosen = candidates[pick % Math.max(candidates.length, 1)];
  fc.pre(chosen !== undefined);
  const { parameter, edit } = chosen as NonNullable<typeof chosen>;
  const value = String(edit.apply(values[parameter.name]));
  fc.pre(value !== '' && context.contract.validator(parameter.schema)(value) === false);
  const exchange = await context.traffic.send(operation, {
    method: operation.method,
    target: targetOf(operation, { ...values, [parameter.name]: value }),
    body: bytesOf(body),
    authorization: { kind: 'signed', as: 'main' },
  });
  const label = `the ${parameter.name} parameter ${edit.label.replace(/^the body /, '')}`;
  return {
    outcomes: [negativeDataRejection(exchange, parameter.name, label)],
    exchanges: [exchange],
    label: `an invalid parameter: ${label}`,
  };
}
