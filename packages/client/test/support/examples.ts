/** The spec's named examples, from test-support's one builder of bodies. */
import { specExample } from '@institution-api/test-support/user-bodies';
import type { Problem, UserCreated, UserInput, UserUpdated } from '@institution-api/types';

const example = specExample;

export const userCreatedNew = () => example('UserCreatedNew') as UserCreated;
export const userAddedToInstitution = () => example('UserAddedToInstitution') as UserCreated;
export const userUpdated = () => example('UserUpdated') as UserUpdated;
export const momoAccountUser = () => example('MomoAccountUser') as UserInput;
export const bankAccountUser = () => example('BankAccountUser') as UserInput;
export const validationProblem = () => example('ValidationProblem') as Problem;
export const rateLimitedProblem = () => example('RateLimitedProblem') as Problem;

/** Credentials used by every test: test-support's fake key pair. */
export { testKeys as CREDENTIALS } from '@institution-api/test-support/test-keys';
