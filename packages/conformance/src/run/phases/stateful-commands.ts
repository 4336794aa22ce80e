import type { User } from '@institution-api/client';
import {
  type CreateOutcome,
  type ModelUser,
  outcomeStatus,
  type UpdateOutcome,
  type UserDirectory,
} from '@institution-api/runtime/model';
import type { UserDetailsModel } from '@institution-api/runtime/user-details';
import type { UserInput } from '@institution-api/types';
import type fc from 'fast-check';
import type { CheckId, Outcome } from '../../checks/catalog.js';
import type { Institution } from '../../http/authorization.js';
import type { Exchange } from '../../http/exchange.js';
import {
  answerDifferences,
  asPerson,
  CARD_FIELD,
  detailDifferences,
  freshIdentity,
  MOBILE_FIELD,
  otherMobile,
  readUser,
  revealedValues,
} from '../../semantics/user-semantics.js';
import type { Operation } from '../../spec/contract.js';
import type { RunContext } from '../context.js';
import type { Link } from '../links.js';
import { bytesOf, targetOf } from '../links.js';
import { SequenceFailure } from '../property.js';

type Body = Record<string, unknown>;

/** A person the sequence created: the model's user and what the service under test answered. */
export interface Person {
  /** The id the model gave the user. */
  modelId: string;
  /** The id the service answered. */
  id: string;
  /** Bumped by every change of the stored details. */
  version: number;
  /** Index, in the sequence's exchanges, of the create that answered the id. */
  createdBy: number;
  /** The last answer about the person and its shape, for the tolerant-reading comparison. */
  lastAnswer?: { shape: 'create' | 'update'; version: number; user: User };
}

/**
 * What the model knows: the one model of the service's semantics (`@institution-api/runtime/model`,
 * which the mock answers with), the institutions named `main` and `other`, and the people the
 * sequence created. Each command asks the directory what the service must do, then checks that
 * the service did it.
 */
export interface Model {
  directory: UserDirectory;
  persons: Person[];
}

/** The system under test as the commands reach it, and what they saw. */
export interface Real {
  context: RunContext;
  /** A user's details as the spec under test describes them (storedDetails, answerDifferences). */
  details: UserDetailsModel;
  create: Operation;
  update: Operation;
  link: Link;
  exchanges: Exchange[];
  outcomes: Outcome[];
  /** The commands run, in words. */
  steps: string[];
}

type Command = fc.AsyncCommand<Model, Real, boolean>;

/** The user the model holds for a person. */
const userOf = (model: Model, person: Person): ModelUser => {
  const user = model.directory.find(person.modelId);
  if (!user) throw new Error(`The model lost person ${person.modelId}.`);
  return user;
};
const owned = (model: Model, institution: Institution) =>
  model.persons.filter((person) => userOf(model, person).members.has(institution));
const notOwned = (model: Model, institution: Institution) =>
  model.persons.filter((person) => !userOf(model, person).members.has(institution));
const personWith = (model: Model, user: ModelUser) =>
  model.persons.find((person) => person.modelId === user.id);

function pass(real: Real, check: CheckId, operation: Operation) {
  real.outcomes.push({ check, operation: operation.id, ok: true });
}

function fail(
  check: CheckId,
  operation: Operation,
  message: string,
  expected: string,
  exchange: Exchange,
): never {
  throw new SequenceFailure([
    {
      check,
      operation: operation.id,
      ok: false,
      message,
      expected,
      actual: exchange.answer
        ? `${exchange.answer.status} ${exchange.answer.text.slice(0, 400)}`
        : (exchange.error ?? 'no answer'),
    },
  ]);
}

async function send(
  real: Real,
  operation: Operation,
  body: unknown,
  as: Institution,
  person?: { id: string; createdBy: number },
  id?: string,
) {
  const parameters =
    operation === real.update ? { [real.link.parameter]: person?.id ?? id ?? '' } : {};
  const exchange = await real.context.traffic.send(operation, {
    method: operation.method,
    target: targetOf(operation, parameters),
    body: bytesOf(body),
    authorization: { kind: 'signed', as },
    ...(person && operation === real.update
      ? {
          idFrom: {
            parameter: real.link.parameter,
            property: real.link.property,
            value: person.id,
            exchange: person.createdBy,
          },
        }
      : {}),
  });
  real.exchanges.push(exchange);
  return exchange;
}

const json = (exchange: Exchange) => exchange.answer?.json as Body | undefined;
const statusOf = (exchange: Exchange) => exchange.answer?.status ?? exchange.error;

/**
 * The answer has the status the model gives the outcome (`outcomeStatus`); `what` says what was
 * sent, for the failure's message.
 */
function expectStatus(
  check: CheckId,
  operation: Operation,
  exchange: Exchange,
  outcome: CreateOutcome | UpdateOutcome,
  what: string,
) {
  const expected = outcomeStatus[outcome.outcome];
  if (exchange.answer?.status !== expected) {
    fail(
      check,
      operation,
      `${what} answered ${statusOf(exchange)}`,
      outcome.outcome === 'exists-with-other-details'
        ? '409, revealing nothing stored'
        : String(expected),
      exchange,
    );
  }
}

/** The answer carries the details the model holds for the user (what was sent, normalized). */
function expectDetails(
  real: Real,
  check: CheckId,
  operation: Operation,
  exchange: Exchange,
  user: ModelUser,
  words: string,
  expected: string,
) {
  const shape = operation === real.update ? 'updated' : 'created';
  const stored = user.details as unknown as Body;
  const differences = answerDifferences(stored, json(exchange), shape, real.details);
  if (differences.length > 0) {
    fail(check, operation, `${words}: ${differences.slice(0, 3).join('; ')}`, expected, exchange);
  }
}

/**
 * A create that recognized an existing user (spec: createUser, "200 OK ... Its stored details are
 * returned unchanged"): 200 with that user's id, and the stored details, not the request's.
 * `words` says what happened, for the failure's message.
 */
function expectExistingUser(
  real: Real,
  check: CheckId,
  exchange: Exchange,
  person: Person,
  user: ModelUser,
  words: { answered: string; changed: string },
) {
  const id = json(exchange)?.[real.link.property];
  if (exchange.answer?.status !== 200 || String(id) !== person.id) {
    fail(
      check,
      real.create,
      `${words.answered} answered ${statusOf(exchange)} with ${real.link.property} ${JSON.stringify(id)}`,
      `200 with ${real.link.property} ${person.id}`,
      exchange,
    );
  }
  expectDetails(
    real,
    check,
    real.create,
    exchange,
    user,
    words.changed,
    'the stored details, unchanged',
  );
}

/** Create a person nobody has: 201 with an id and what was sent. */
export class CreateNew implements Command {
  constructor(readonly body: unknown) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const body = freshIdentity(this.body) as Body;
    real.steps.push('create a new person');
    const predicted = model.directory.create('main', body as unknown as UserInput);
    const exchange = await send(real, real.create, body, 'main');
    const check = 'stateful_create_update';
    expectStatus(check, real.create, exchange, predicted, 'creating a new person');
    if (predicted.outcome !== 'created') {
      pass(real, check, real.create);
      return;
    }
    const id = json(exchange)?.[real.link.property];
    if (typeof id !== 'string' && typeof id !== 'number') {
      fail(
        check,
        real.create,
        `creating a new person answered 201 without an ${real.link.property}`,
        `201 with an ${real.link.property}`,
        exchange,
      );
    }
    expectDetails(
      real,
      check,
      real.create,
      exchange,
      predicted.user,
      'the 201 answer does not carry what was sent',
      'the details sent',
    );
    pass(real, check, real.create);
    const user = readUser(json(exchange));
    model.persons.push({
      modelId: predicted.user.id,
      id: String(id),
      version: 0,
      createdBy: real.exchanges.length - 1,
      ...(user ? { lastAnswer: { shape: 'create' as const, version: 0, user } } : {}),
    });
  }
  toString = () => 'CreateNew';
}

/** Update a person (of the calling institution, or not): 200 with what was sent, or 404. */
export class Update implements Command {
  constructor(
    readonly pick: number,
    readonly body: unknown,
    readonly as: Institution = 'main',
  ) {}
  check = (model: Model) =>
    model.persons.length > 0 && (this.as === 'other' || owned(model, 'main').length > 0);
  async run(model: Model, real: Real) {
    const candidates = this.as === 'main' ? owned(model, 'main') : model.persons;
    const person = candidates[this.pick % candidates.length] as Person;
    const body = freshIdentity(this.body) as Body;
    const allowed = userOf(model, person).members.has(this.as);
    real.steps.push(
      `update person ${model.persons.indexOf(person) + 1} as the ${this.as === 'main' ? 'first' : 'second'} institution${allowed ? '' : ', which it does not belong to'}`,
    );
    const predicted = model.directory.update(this.as, person.modelId, body as unknown as UserInput);
    const exchange = await send(real, real.update, body, this.as, person);
    const check = this.as === 'main' ? 'stateful_create_update' : 'stateful_institution_scope';
    expectStatus(
      check,
      real.update,
      exchange,
      predicted,
      allowed
        ? 'an update of a user of the calling institution'
        : "the second institution's update of a user of the first",
    );
    if (predicted.outcome !== 'updated') {
      pass(real, check, real.update);
      return;
    }
    expectDetails(
      real,
      check,
      real.update,
      exchange,
      predicted.user,
      'the update answer does not carry what was sent',
      'the details sent',
    );
    pass(real, check, real.update);
    person.version++;
    const user = readUser(json(exchange));
    if (user) person.lastAnswer = { shape: 'update', version: person.version, user };
    else delete person.lastAnswer;
  }
  toString = () => `Update(${this.as})`;
}

/**
 * Create again a person of the calling institution (its card, respelled; other details): 200, the
 * same id, the stored details unchanged. When the last answer about the person was an update's,
 * the two shapes of the same stored user are compared as the client reads them.
 */
export class CreateAgain implements Command {
  constructor(
    readonly pick: number,
    readonly body: unknown,
    readonly spelling: number,
  ) {}
  check = (model: Model) => owned(model, 'main').length > 0;
  async run(model: Model, real: Real) {
    const candidates = owned(model, 'main');
    const person = candidates[this.pick % candidates.length] as Person;
    const body = asPerson(
      freshIdentity(this.body),
      { card: String(userOf(model, person).details[CARD_FIELD]) },
      this.spelling,
    );
    real.steps.push(`create person ${model.persons.indexOf(person) + 1} again (same card)`);
    const predicted = model.directory.create('main', body as unknown as UserInput);
    const exchange = await send(real, real.create, body, 'main');
    const check = 'stateful_create_again';
    const words = {
      answered: 'creating again a user of the calling institution',
      changed: 'creating again changed or misreported the stored details',
    };
    expectStatus(check, real.create, exchange, predicted, words.answered);
    if (predicted.outcome === 'existing') {
      expectExistingUser(real, check, exchange, person, predicted.user, words);
    }
    pass(real, check, real.create);
    const user = readUser(json(exchange));
    const last = person.lastAnswer;
    if (user && last && last.shape === 'update' && last.version === person.version) {
      const { monthlyIncome: _a, ...fromCreate } = user;
      const { monthlyIncome: _b, ...fromUpdate } = last.user;
      const differences = detailDifferences(fromUpdate as Body, fromCreate as Body);
      if (differences.length > 0) {
        fail(
          'tolerant_reading',
          real.create,
          `the create and update answers of one stored user read as different Users: ${differences.slice(0, 3).join('; ').replaceAll('sent', 'update')}`,
          'the same User from both shapes',
          exchange,
        );
      }
      pass(real, 'tolerant_reading', real.create);
    }
    if (user) person.lastAnswer = { shape: 'create', version: person.version, user };
  }
  toString = () => 'CreateAgain';
}

/** Update an id no create answered: 404. */
export class UpdateUnknown implements Command {
  constructor(
    readonly id: string,
    readonly body: unknown,
  ) {}
  check = (model: Model) => !model.persons.some((person) => person.id === this.id);
  async run(model: Model, real: Real) {
    real.steps.push('update an id never created');
    const body = freshIdentity(this.body);
    // The model's ids are its own: an id of the service's that no create answered is none of them.
    const predicted = model.directory.update('main', `unknown:${this.id}`, body as UserInput);
    const exchange = await send(real, real.update, body, 'main', undefined, this.id);
    expectStatus(
      'stateful_unknown_id',
      real.update,
      exchange,
      predicted,
      'an update of an id never created',
    );
    pass(real, 'stateful_unknown_id', real.update);
  }
  toString = () => 'UpdateUnknown';
}

/**
 * The second institution creates a person of the first only: with the same card and another
 * mobile, 409 revealing nothing stored; with the same card and mobile, 200 with the same id and
 * the stored details, after which the person belongs to it too.
 */
export class OtherCreate implements Command {
  constructor(
    readonly pick: number,
    readonly body: unknown,
    readonly spelling: number,
    readonly sameMobile: boolean,
  ) {}
  check = (model: Model) => notOwned(model, 'other').length > 0;
  async run(model: Model, real: Real) {
    const candidates = notOwned(model, 'other');
    const person = candidates[this.pick % candidates.length] as Person;
    const stored = userOf(model, person).details as unknown as Body;
    const mobile = String(stored[MOBILE_FIELD]);
    const body = asPerson(
      freshIdentity(this.body),
      {
        card: String(stored[CARD_FIELD]),
        mobile: this.sameMobile ? mobile : otherMobile(mobile),
      },
      this.spelling,
    );
    real.steps.push(
      `the second institution creates person ${model.persons.indexOf(person) + 1} with the same card and ${this.sameMobile ? 'the same' : 'another'} mobile`,
    );
    const predicted = model.directory.create('other', body as unknown as UserInput);
    const exchange = await send(real, real.create, body, 'other');
    const check = 'stateful_institution_scope';
    expectStatus(
      check,
      real.create,
      exchange,
      predicted,
      this.sameMobile
        ? "another institution's create with the same card and mobile"
        : "another institution's create with a known card and another mobile",
    );
    if (predicted.outcome === 'existing') {
      const joined = personWith(model, predicted.user) ?? person;
      expectExistingUser(real, check, exchange, joined, predicted.user, {
        answered: "another institution's create with the same card and mobile",
        changed: 'joining a person changed or misreported its stored details',
      });
    } else {
      const revealed = revealedValues(exchange.answer?.text ?? '', JSON.stringify(body), {
        ...stored,
        id: person.id,
      });
      if (revealed.length > 0) {
        fail(
          check,
          real.create,
          `the 409 reveals what the service stores about another institution's customer: ${revealed.join(', ')}`,
          'nothing stored revealed',
          exchange,
        );
      }
    }
    pass(real, check, real.create);
  }
  toString = () => `OtherCreate(${this.sameMobile ? 'same mobile' : 'other mobile'})`;
}
