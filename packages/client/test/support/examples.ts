/** The spec's named examples, read from the bundled document the types package ships. */
import {
  openapiDocument,
  type Problem,
  type UserCreated,
  type UserInput,
  type UserUpdated,
} from '@institution-api/types';

function example(name: string): unknown {
  const entry = openapiDocument.components.examples?.[name] as { value?: unknown } | undefined;
  if (entry?.value === undefined) throw new Error(`the spec has no example ${name}`);
  return structuredClone(entry.value);
}

export const userCreatedNew = () => example('UserCreatedNew') as UserCreated;
export const userAddedToInstitution = () => example('UserAddedToInstitution') as UserCreated;
export const userUpdated = () => example('UserUpdated') as UserUpdated;
export const momoAccountUser = () => example('MomoAccountUser') as UserInput;
export const bankAccountUser = () => example('BankAccountUser') as UserInput;
export const validationProblem = () => example('ValidationProblem') as Problem;
export const rateLimitedProblem = () => example('RateLimitedProblem') as Problem;

/** Credentials used by every test; fake, and long enough to be recognizable in output. */
export const CREDENTIALS = Object.freeze({
  publicKey: 'pk_test_institution',
  secretKey: 'sk_test_do_not_print_0123456789',
});
