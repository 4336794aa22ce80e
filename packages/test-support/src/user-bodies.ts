/**
 * The one builder of valid user bodies for tests and benchmarks: the spec's own named examples,
 * read from the bundle every workspace builds from (`@institution-api/openapi/openapi.json`), so a field the
 * spec adds to them is in every body, and no test types out a user that a change of the contract
 * would have to find.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { requestExamples } from '@institution-api/runtime/spec';
import type { UserCreated, UserInput, UserUpdated } from '@institution-api/types';

/** The bundled spec, as the spec's workspace publishes it to the others. */
const openapiDocument = JSON.parse(
  readFileSync(
    createRequire(import.meta.url).resolve('@institution-api/openapi/openapi.json'),
    'utf8',
  ),
) as {
  paths: Record<string, unknown>;
  components: { examples?: Record<string, unknown> };
};

type Schema = Record<string, unknown>;

/** The spec's named example `name` (`components.examples`), a fresh copy each call. */
export function specExample<T = unknown>(name: string): T {
  const entry = (openapiDocument.components.examples as Record<string, Schema> | undefined)?.[name];
  if (entry?.value === undefined) throw new Error(`the spec has no example ${name}`);
  return structuredClone(entry.value) as T;
}

/**
 * The names of the request examples of createUser, in the spec's order (a MOMO account, a BANK
 * account, no account).
 */
export const userBodyExamples: readonly string[] = requestExamples(
  openapiDocument,
  'createUser',
).map(({ name, component }) => component ?? name);

/** The spec's request example `name` (default the first: a user with a MOMO account), as sent. */
export function userBody(name = userBodyExamples[0] as string): UserInput {
  return specExample<UserInput>(name);
}

/** The create answer the spec shows for a new user (`UserCreatedNew`). */
export const userCreatedExample = () => specExample<UserCreated>('UserCreatedNew');
/** The create answer the spec shows for a user added to an institution (`UserAddedToInstitution`). */
export const userAddedExample = () => specExample<UserCreated>('UserAddedToInstitution');
/** The update answer the spec shows (`UserUpdated`). */
export const userUpdatedExample = () => specExample<UserUpdated>('UserUpdated');

// Random per process, then counted: bodies of processes sharing a database do not meet.
let serial = randomInt(100_000_000, 900_000_000);

/**
 * A person no other call built: the spec's request example `example` (default the MOMO one) with a
 * Ghana Card number and an email of its own (the card's 10 digits, in the email too), then
 * `overrides`. Valid against `UserInput` as long as the overrides are.
 */
export function distinctUserBody(
  overrides: Partial<Record<keyof UserInput, unknown>> = {},
  example?: string,
): UserInput {
  serial += 1;
  const digits = String(serial).padStart(9, '0').slice(-9);
  const check = serial % 10;
  const body = userBody(example) as Record<string, unknown>;
  const email = String(body.email);
  const at = email.lastIndexOf('@');
  return {
    ...body,
    ghanaCardNumber: `GHA-${digits}-${check}`,
    email: `${email.slice(0, at)}.${digits}${check}${email.slice(at)}`,
    ...overrides,
  } as UserInput;
}
