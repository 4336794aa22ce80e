/**
 * A consumer of the client orval generates (fetch client and zod): the journey create 201, the
 * same again 200, update 200, a 400 read as the typed problem (orval's answers are unions by
 * status), and every example of the spec through the generated zod schemas.
 */
import { createUser, getCreateUserUrl, type UserInput, updateUser } from './generated/api.js';
import * as schemas from './generated/zod.js';
import { checkExamples, freshCustomer, report } from './shared.js';

const customer = freshCustomer();
const body: UserInput = {
  ...customer,
  firstName: 'Ama',
  lastName: 'Mensah',
  monthlyIncome: 2500.5,
  accountType: 'MOMO',
  accountNumber: customer.mobileNumber,
  accountName: 'Ama Mensah',
  network: 'MTN',
};

const created = await createUser(body);
const again = await createUser(body);
const id = created.status === 201 ? created.data.id : '';
const updated = await updateUser(id, {
  ...customer,
  firstName: 'Ama',
  lastName: 'Owusu',
  monthlyIncome: 3000,
});
const rejected = await createUser({ ...body, ghanaCardNumber: 'GHA-1' });

// orval names its zod schemas by operation and status: CreateUserBody, CreateUser201Response.
const pascal = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
const zod: Record<string, unknown> = { ...schemas };
report({
  tool: 'orval',
  // The spec's first server, which the generated URLs start with.
  defaultBaseUrl: new URL(getCreateUserUrl()).origin,
  create: created.status,
  again: again.status,
  sameId: again.status === 200 && again.data.id === id,
  update: updated.status,
  updatedLastName: updated.status === 200 ? updated.data.lastName : undefined,
  updatedAccount: updated.status === 200 ? updated.data.account : undefined,
  // Narrowed by its status, the body is the spec's Problem.
  badRequest:
    rejected.status === 400
      ? {
          status: rejected.status,
          type: rejected.data.type,
          paths: rejected.data.errors?.map((error) => error.path),
        }
      : { status: rejected.status },
  examples: checkExamples((example) =>
    example.where === 'request'
      ? zod[`${pascal(example.operationId)}Body`]
      : zod[`${pascal(example.operationId)}${example.where}Response`],
  ),
  // With `strict`, a key the spec forbids (additionalProperties: false) is refused.
  unknownKeyAccepted: schemas.CreateUserBody.safeParse({ ...body, nickname: 'Ama' }).success,
});
