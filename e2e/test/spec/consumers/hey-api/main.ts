/**
 * A consumer of the client @hey-api/openapi-ts generates (its fetch client, SDK and zod plugin):
 * the journey create 201, the same again 200, update 200, a 400 read as the typed problem, and
 * every example of the spec through the generated zod schemas.
 */
import { client } from './generated/client.gen.js';
import { createUser, updateUser } from './generated/sdk.gen.js';
import type { UserInput } from './generated/types.gen.js';
import * as schemas from './generated/zod.gen.js';
import { checkExamples, env, freshCustomer, report, signedFetch } from './shared.js';

// The spec's first server, which the generated client starts with.
const defaultBaseUrl = client.getConfig().baseUrl;
client.setConfig({ baseUrl: env.baseUrl, fetch: signedFetch });

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

const created = await createUser({ body });
const again = await createUser({ body });
const id = created.data?.id ?? '';
const updated = await updateUser({
  path: { id },
  body: { ...customer, firstName: 'Ama', lastName: 'Owusu', monthlyIncome: 3000 },
});
// A body the types accept but the spec's pattern does not: the answer is the typed problem.
const rejected = await createUser({ body: { ...body, ghanaCardNumber: 'GHA-1' } });
const problem = rejected.error;

const zod: Record<string, unknown> = { ...schemas };
report({
  tool: '@hey-api/openapi-ts',
  defaultBaseUrl,
  create: created.response?.status,
  again: again.response?.status,
  sameId: again.data?.id === id,
  update: updated.response?.status,
  updatedLastName: updated.data?.lastName,
  // `account` in the update shape's camelCase; null since the update sent no account.
  updatedAccount: updated.data?.account,
  badRequest: {
    status: rejected.response?.status,
    type: problem?.type,
    paths: problem?.errors?.map((error) => error.path),
  },
  examples: checkExamples((example) => zod[`z${example.schema}`]),
  // Known gap: the generated objects are not strict, so a key the spec forbids
  // (additionalProperties: false) passes.
  unknownKeyAccepted: schemas.zUserInput.safeParse({ ...body, nickname: 'Ama' }).success,
});
