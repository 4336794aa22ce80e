/**
 * Code a consumer of `@institution-api/client` writes, compiled by test/package.system.test.ts against
 * the packed packages installed in an empty project. At each release, `npm run release:version`
 * copies this file to released/client-consumer.ts, and the same test compiles that copy against
 * the packages of the next release: client code that compiled against the last release and no
 * longer does is a breaking change of the client, whatever the spec's diff says.
 *
 * So this file uses the public surface the way applications do (create and update, each account
 * variant, every field of the results read into a declared type, each error kind, the raw client,
 * the signing middleware, a transport of its own, the request signers, normalizeUser,
 * toUserInput); it asserts assignability, not exact types, so that
 * compatible additions (a new optional field, a new export) keep it compiling.
 */
import {
  type AccountType,
  type Answer,
  type ClientError,
  type CreateUserData,
  createRequestSigning,
  createSigningMiddleware,
  createUsersClient,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type Exchange,
  type FieldError,
  fetchTransport,
  type HttpProblem,
  type MobileNetwork,
  normalizeUser,
  type Problem,
  parseRetryAfter,
  type paths,
  type RequestSigning,
  type Transport,
  toUserInput,
  type UpdateUserData,
  type User,
  type UserCreated,
  type UserId,
  type UserInput,
  type UsersClient,
  UsersClientError,
  type UsersClientErrorKind,
  type UserUpdated,
  type UserWithIncome,
  usersUrl,
} from '@institution-api/client';

export const users: UsersClient = createUsersClient({
  baseUrl: 'https://institution.example.com',
  publicKey: 'pk_live_institution',
  secretKey: 'sk_example_not_a_real_secret',
  timeoutMs: DEFAULT_TIMEOUT_MS,
  retry: { retries: DEFAULT_RETRY.retries, baseDelayMs: 250, maxDelayMs: 5000 },
  signature: { algorithm: 'sha256', encoding: 'hex' },
  headers: { 'User-Agent': 'my-integration/1.0' },
  fetch: (input, init) => fetch(input, init),
});

const required = {
  email: 'ama.mensah@example.com',
  firstName: 'Ama',
  lastName: 'Mensah',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 2500.5,
};
export const noAccount: UserInput = { ...required, accountType: null, accountNumber: null };
export const momo: UserInput = {
  ...required,
  otherName: 'Serwaa',
  gender: 'female',
  dateOfBirth: '1990-05-17',
  isGhanaCardVerified: true,
  image: 'https://cdn.example.com/users/ama.jpg',
  ghanaCardImage: null,
  kyc: {
    occupation: 'Trader',
    address: null,
    validFrom: '2021-01-01',
    validTo: null,
    refNumber: null,
  },
  accountType: 'MOMO',
  accountNumber: '0241234567',
  accountName: 'Ama Mensah',
  network: 'MTN',
};
export const bank = {
  ...required,
  accountType: 'BANK',
  accountNumber: '1021130012345',
  accountName: 'Ama Mensah',
  bankName: 'GCB Bank',
  network: null,
} satisfies UserInput;

/** Reads every field of a user into the type an application would store it as. */
export function store(user: User) {
  const id: string = user.id;
  const names: [string, string, string | null] = [user.firstName, user.lastName, user.otherName];
  const email: string = user.email;
  const gender: string | null = user.gender;
  const dateOfBirth: string | null = user.dateOfBirth;
  const mobileNumber: string | null = user.mobileNumber;
  const ghanaCard: [string | null, string | null, boolean] = [
    user.ghanaCardNumber,
    user.ghanaCardImage,
    user.isGhanaCardVerified,
  ];
  const image: string | null = user.image;
  const documents: string[] = user.documents;
  const monthlyIncome: number | null = user.monthlyIncome;
  const createdAt: string | null = user.createdAt;
  const kyc: Record<
    'occupation' | 'address' | 'validFrom' | 'validTo' | 'refNumber',
    string | null
  > = user.kyc;
  const account = user.account
    ? {
        id: user.account.id,
        type: user.account.accountType satisfies AccountType,
        number: user.account.accountNumber satisfies string,
        name: user.account.accountName satisfies string,
        network: user.account.network satisfies MobileNetwork | null,
        bankName: user.account.bankName satisfies string | null,
        createdAt: user.account.createdAt,
      }
    : null;
  return {
    ...{ id, names, email, gender, dateOfBirth, mobileNumber, ghanaCard, image, documents },
    ...{ monthlyIncome, createdAt, kyc, account },
  };
}

/** Handles every kind of failure, as the README's "Errors" section shows. */
export function report(error: ClientError, response: Response | undefined): string {
  if (error.kind === 'http') {
    const problem: HttpProblem = error;
    const base: Problem = problem;
    const fields: FieldError[] = problem.errors ?? [];
    const retryAfter = response?.headers.get('Retry-After');
    return `${base.status} ${base.title} ${problem.detail ?? ''} ${fields.map((e) => `${e.path}: ${e.message}`).join(', ')} ${retryAfter ?? ''}`;
  }
  const kind: UsersClientErrorKind = error.kind;
  const asError: Error = error;
  return `${kind}: ${asError.message} ${String(error.cause ?? '')} ${error instanceof UsersClientError}`;
}

export async function createThenUpdate(signal: AbortSignal): Promise<User | string> {
  const created = await users.createUser(momo, { signal, headers: { 'X-Request-Id': '1' } });
  if (created.error) return report(created.error, created.response);
  const data: CreateUserData = created.data;
  const isNew: boolean = data.created;
  const raw: UserCreated = data.raw;
  const status: number = created.response.status;
  const rawAccountType: AccountType | undefined = raw.account?.account_type;
  const rawImage: string | null = raw.userImage;

  const id: UserId = data.user.id;
  const updated = await users.updateUser(id, { ...bank, monthlyIncome: 3000 });
  if (updated.error) return report(updated.error, updated.response);
  const updateData: UpdateUserData = updated.data;
  const rawUpdated: UserUpdated = updateData.raw;
  const rawNetwork: MobileNetwork | null | undefined = rawUpdated.account?.network;
  store(normalizeUser(raw));
  store(normalizeUser(rawUpdated));
  return `${isNew} ${status} ${rawAccountType} ${rawImage} ${rawNetwork} ${store(updateData.user).id}`;
}

export async function withTheRawClient(): Promise<UserCreated | undefined> {
  // openapi-fetch's request body type drops keys whose type is only null (see the README's note
  // on the raw client), so the raw calls send the BANK body without `network: null`.
  const { network: _network, ...bankBody } = bank;
  const { data, error } = await users.raw.POST('/api/v1/external/users', { body: bankBody });
  if (error) return undefined;
  const updated = await users.raw.PUT('/api/v1/external/users/{id}', {
    params: { path: { id: data.id } },
    body: bankBody,
  });
  const image: string | null | undefined = updated.data?.image;
  return image === undefined ? undefined : data;
}

export const middleware = createSigningMiddleware({
  publicKey: 'pk_live_institution',
  secretKey: 'sk_example_not_a_real_secret',
  signature: { algorithm: 'sha512', encoding: 'base64' },
});

export type CreateOperation = paths['/api/v1/external/users']['post'];

/** Read, change one field, update: a create's user has no income, so the caller supplies it. */
export async function changeEmail(
  user: User,
  monthlyIncome: number,
): Promise<UserWithIncome | string> {
  const input: UserInput = toUserInput({ ...user, monthlyIncome, email: 'ama.m@example.com' });
  const updated = await users.updateUser(user.id, input);
  if (updated.error) return report(updated.error, updated.response);
  return toUserInput(updated.data.user) && updated.data.user;
}

/** A transport of one's own: the default one, watching each attempt's answer (retries included). */
export const waits: number[] = [];
const watched: Transport = async (exchange: Exchange, signal: AbortSignal): Promise<Answer> => {
  const answer = await fetchTransport((input, init) => fetch(input, init))(exchange, signal);
  const wait = parseRetryAfter(answer.response.headers.get('Retry-After'));
  if (wait !== undefined) waits.push(wait);
  return answer;
};
export const watchedUsers: UsersClient = createUsersClient({
  baseUrl: 'https://institution.example.com',
  publicKey: 'pk_live_institution',
  secretKey: 'sk_example_not_a_real_secret',
  transport: watched,
});

/** The headers that sign a request built by hand, for the URL `createUser` posts to. */
export async function signedHeaders(body: string): Promise<Record<string, string>> {
  const signing: RequestSigning = createRequestSigning({
    publicKey: 'pk_live_institution',
    secretKey: 'sk_example_not_a_real_secret',
  });
  const url = usersUrl('https://institution.example.com/');
  const headers: Record<string, string> = { Authorization: await signing.authorize(body) };
  if (signing.signMessage) {
    Object.assign(headers, await signing.signMessage({ method: 'POST', url, body }));
  }
  return headers;
}
