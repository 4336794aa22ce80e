import { UserDirectory } from '@institution-api/runtime/model';
import {
  deriveUserDetailsModel,
  type UserDetailsModel,
} from '@institution-api/runtime/user-details';
import fc from 'fast-check';
import { schemaArbitrary } from '../../generate/schema-arbitrary.js';
import type { Contract, Operation } from '../../spec/contract.js';
import type { RunContext } from '../context.js';
import { type Link, linksOf } from '../links.js';
import { type ExampleResult, runProperty, SequenceFailure } from '../property.js';
import {
  CreateAgain,
  CreateNew,
  type Model,
  OtherCreate,
  type Real,
  Update,
  UpdateUnknown,
} from './stateful-commands.js';

/** The create operation and the update operation it links to (`POST /users` → `PUT /users/{id}`). */
export function statefulPair(
  context: RunContext,
): { create: Operation; update: Operation; link: Link } | undefined {
  for (const update of context.contract.operations) {
    const [link] = linksOf(context.contract, update);
    if (
      link &&
      update.pathParameters.length === 1 &&
      context.bodies.has(update) &&
      context.bodies.has(link.producer)
    ) {
      return { create: link.producer, update, link };
    }
  }
  return undefined;
}

/** What the stateful phase would run, in words, for the plan of `--dry-run`. */
export function statefulPlanned(contract: Contract, maxExamples: number, second: boolean): string {
  const pair = contract.operations
    .map((update) => ({ update, link: linksOf(contract, update)[0] }))
    .find(({ update, link }) => link && update.body && link.producer.body);
  if (!pair?.link) return 'none (no create operation linked to an update of what it creates)';
  const commands = second
    ? "creates, creates again, updates, updates of unknown ids, the second institution's updates and creates"
    : 'creates, creates again, updates, updates of unknown ids';
  return `1 fixed (create, update, create again) and ${sequences(maxExamples)} random sequences of up to 11 commands (${commands}) on ${pair.link.producer.id} and ${pair.update.id} (stateful_*, tolerant_reading)`;
}

/** How many random sequences a run tries. */
const sequences = (maxExamples: number) => Math.max(1, Math.ceil(maxExamples / 2));

/** Runs commands against a fresh model; a broken expectation ends the sequence as its failure. */
async function runSequence(
  context: RunContext,
  pair: NonNullable<ReturnType<typeof statefulPair>> & { details: UserDetailsModel },
  commands: Iterable<fc.AsyncCommand<Model, Real, boolean>>,
): Promise<ExampleResult> {
  const real: Real = { context, ...pair, exchanges: [], outcomes: [], steps: [] };
  const result = (outcomes = real.outcomes): ExampleResult => ({
    outcomes,
    exchanges: real.exchanges,
    label: `the sequence: ${real.steps.map((step, index) => `${index + 1}. ${step}`).join('; ')}`,
  });
  try {
    await fc.asyncModelRun(
      () => ({
        model: { directory: new UserDirectory({ details: real.details }), persons: [] },
        real,
      }),
      commands,
    );
  } catch (error) {
    if (error instanceof SequenceFailure) return result([...real.outcomes, ...error.outcomes]);
    throw error;
  }
  return result();
}

/**
 * The stateful checks, with fast-check's model-based commands: random sequences of creates,
 * creates again, updates, updates of unknown ids and, with a second institution, its updates and
 * creates of the first's people, each answer compared with what the model expects. A failing
 * sequence shrinks to the fewest commands that still fail.
 */
export async function statefulPhase(context: RunContext): Promise<void> {
  const pair = statefulPair(context);
  const ids = [
    'stateful_create_update',
    'stateful_create_again',
    'stateful_unknown_id',
    'stateful_institution_scope',
    'tolerant_reading',
  ] as const;
  if (!pair) {
    for (const check of ids)
      context.results.skip(
        check,
        '(run)',
        'the spec has no create operation linked to an update of what it creates',
      );
    return;
  }
  // What the service must store and answer is read from the spec under test.
  let details: UserDetailsModel;
  try {
    details = deriveUserDetailsModel(context.contract.document);
  } catch (error) {
    for (const check of ids) context.results.skip(check, '(run)', (error as Error).message);
    return;
  }
  const { create, update, link } = pair;
  const createBodies = context.bodies.get(create) as fc.Arbitrary<unknown>;
  const updateBodies = context.bodies.get(update) as fc.Arbitrary<unknown>;
  const parameter = update.pathParameters.find((candidate) => candidate.name === link.parameter);
  const unknownIds = schemaArbitrary(parameter?.schema ?? {}, context.arbitraryOptions).map(String);
  const pick = fc.nat({ max: 1000 });
  const spelling = fc.nat({ max: 2 });
  const commands: fc.Arbitrary<fc.AsyncCommand<Model, Real, boolean>>[] = [
    createBodies.map((body) => new CreateNew(body)),
    fc.tuple(pick, updateBodies).map(([index, body]) => new Update(index, body)),
    fc
      .tuple(pick, createBodies, spelling)
      .map(([index, body, how]) => new CreateAgain(index, body, how)),
    fc.tuple(unknownIds, updateBodies).map(([id, body]) => new UpdateUnknown(id, body)),
  ];
  if (context.credentials.other) {
    commands.push(
      fc.tuple(pick, updateBodies).map(([index, body]) => new Update(index, body, 'other')),
      fc
        .tuple(pick, createBodies, spelling, fc.boolean())
        .map(([index, body, how, same]) => new OtherCreate(index, body, how, same)),
    );
  } else {
    context.results.skip(
      'stateful_institution_scope',
      create.id,
      'no second institution: give --other-public-key and --other-secret-key',
    );
  }

  // One fixed sequence first, so the tolerant-reading comparison always runs: create, update,
  // create again (the create shape and the update shape of one stored user).
  await runProperty(context, {
    phase: 'tolerant reading',
    operation: create.id,
    arbitrary: fc.tuple(createBodies, updateBodies, createBodies),
    numRuns: 1,
    execute: ([first, second, third]) =>
      runSequence(context, { ...pair, details }, [
        new CreateNew(first),
        new Update(0, second),
        new CreateAgain(0, third, 1),
      ]),
  });

  // Every sequence starts with a create, so the commands about existing people apply at once.
  await runProperty(context, {
    phase: 'sequences',
    operation: `${create.id}+${update.id}`,
    arbitrary: fc.tuple(createBodies, fc.commands(commands, { maxCommands: 10, size: 'medium' })),
    numRuns: sequences(context.maxExamples),
    execute: ([first, sequence]) =>
      runSequence(context, { ...pair, details }, [new CreateNew(first), ...sequence]),
  });
}
