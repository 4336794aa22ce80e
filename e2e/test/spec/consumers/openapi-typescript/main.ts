/**
 * A consumer of the types openapi-typescript generates, with openapi-fetch (its companion, the
 * HTTP layer of @institution-api/client): the journey create 201, the same again 200, update 200,
 * and a 400 read as the typed problem. openapi-typescript emits types only: no zod schemas, and
 * no base URL (openapi-fetch is always given one).
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/schema.js';
import { env, freshCustomer, report, signedFetch } from './shared.js';

type UserInput = components['schemas']['UserInput'];

const client = createClient<paths>({ baseUrl: env.baseUrl, fetch: signedFetch });
const customer = freshCustomer();
// `satisfies`, not `: UserInput`: openapi-fetch 0.17 types a body through `Writable<T>`, which
// drops keys whose type is only null (openapi-ts/openapi-typescript#2717), so a value of the
// schema's whole union type is refused as a body; the literal's own type is accepted.
const body = {
  ...customer,
  firstName: 'Ama',
  lastName: 'Mensah',
  monthlyIncome: 2500.5,
  accountType: 'MOMO',
  accountNumber: customer.mobileNumber,
  accountName: 'Ama Mensah',
  network: 'MTN',
} satisfies UserInput;

const created = await client.POST('/api/v1/external/users', { body });
const again = await client.POST('/api/v1/external/users', { body });
const id = created.data?.id ?? '';
const updated = await client.PUT('/api/v1/external/users/{id}', {
  params: { path: { id } },
  body: { ...customer, firstName: 'Ama', lastName: 'Owusu', monthlyIncome: 3000 },
});
const rejected = await client.POST('/api/v1/external/users', {
  body: { ...body, ghanaCardNumber: 'GHA-1' },
});

report({
  tool: 'openapi-typescript',
  create: created.response.status,
  again: again.response.status,
  sameId: again.data?.id === id,
  update: updated.response.status,
  updatedLastName: updated.data?.lastName,
  updatedAccount: updated.data?.account,
  badRequest: {
    status: rejected.response.status,
    type: rejected.error?.type,
    paths: rejected.error?.errors?.map((error) => error.path),
  },
});
