/**
 * "Adding a field" (README): a new optional, nullable field of `UserInput` that both answers
 * carry, of the user or of the payout account, needs an edit of the spec and nothing else. A copy
 * of the repository gets both in `openapi/` alone (a user field in the three schemas; an account
 * field of BANK accounts in `UserInput`, its variants and both account objects, `AccountCreated`
 * in snake_case; and the examples) and is built as it is; then, on each database of the reference
 * server: a create answers them (`201`, and `200` again), an update carries them and clears them
 * when absent, the client's "read, change one field, update" keeps them (the account's through
 * `User.account`), an import column sets each, a user stored before the fields existed (by the
 * server built from this checkout's spec) answers them as null, and the copy's conformance suite
 * passes. The copy's mock answers both fields in both shapes, and every workspace the spec
 * reaches typechecks, type tests included.
 */
import { execFile as execFileCallback } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type RunningPostgres, startPostgres } from '@institution-api/test-support/postgres';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { describeWith } from '@institution-api/test-support/requirements';
import { buildSpecVariant, type SpecVariant } from '@institution-api/test-support/spec-variant';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedFile } from '../workspaces.js';

const execFile = promisify(execFileCallback);

/** The bundled spec of this checkout. */
const bundle = JSON.parse(
  readFileSync(exportedFile('@institution-api/openapi/openapi.json'), 'utf8'),
) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };

/** The schemas whose properties are the account's, in the request and in both answers. */
const accountSchemas = [
  'UserInput',
  'BankAccountDetails',
  'MomoAccountDetails',
  'NoAccountDetails',
  'AccountUpdated',
] as const;

/** A camelCase name in snake_case, as `AccountCreated` spells its keys. */
const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The field, as a designer adds it: `preferredName`, or another name when this checkout's spec
 * has that one already (then the test adds one more).
 */
const field =
  ['preferredName', 'nickname', 'addedField'].find((name) =>
    ['UserInput', 'UserCreated', 'UserUpdated'].every(
      (schema) => !(name in (bundle.components.schemas[schema]?.properties ?? {})),
    ),
  ) ?? 'addedFieldOfTheTest';
const schemaText = `  ${field}:
    description: The name the customer likes to be called by, up to 100 characters, or null.
    type:
      - string
      - 'null'
    maxLength: 100
`;

/**
 * The account field, as a designer adds it: `branchCode` of BANK accounts, or another name when
 * this checkout's spec has that one already; `AccountCreated` calls it in snake_case.
 */
const accountField =
  ['branchCode', 'accountAlias', 'addedAccountField'].find(
    (name) =>
      accountSchemas.every(
        (schema) => !(name in (bundle.components.schemas[schema]?.properties ?? {})),
      ) && !(snakeCase(name) in (bundle.components.schemas.AccountCreated?.properties ?? {})),
  ) ?? 'addedAccountFieldOfTheTest';
const accountKey = snakeCase(accountField);
const accountSchemaText = (name: string) => `  ${name}:
    description: The code of the bank's branch that holds the account, up to 20 characters, or null.
    type:
      - string
      - 'null'
    maxLength: 20
`;
const onlyNullText = `  ${accountField}:
    description: Must be absent or null unless the account is a bank account.
    type: 'null'
`;

/** The edit of the copy's spec: both fields in their schemas, and in the examples. */
async function addField(openapi: string) {
  const edit = async (file: string, change: (text: string) => string) => {
    const path = join(openapi, file);
    const text = await readFile(path, 'utf8');
    const changed = change(text);
    if (changed === text) throw new Error(`the edit of ${file} changed nothing`);
    await writeFile(path, changed);
  };
  for (const schema of ['UserInput', 'UserCreated', 'UserUpdated']) {
    await edit(`components/schemas/${schema}.yaml`, (text) => {
      const withProperty = text.replace('\nproperties:\n', `\nproperties:\n${schemaText}`);
      // Both answers list every key as required; the new one too.
      return schema === 'UserInput'
        ? withProperty
        : withProperty.replace('\nrequired:\n', `\nrequired:\n  - ${field}\n`);
    });
  }
  for (const [example, value] of [
    ['MomoAccountUser', 'Maa'],
    ['UserCreatedNew', 'Maa'],
    ['UserUpdated', 'Maa'],
    ['UserAddedToInstitution', 'null'],
  ]) {
    await edit(`components/examples/${example}.yaml`, (text) =>
      text.replace('\nvalue:\n', `\nvalue:\n  ${field}: ${value}\n`),
    );
  }
  // The account field: in UserInput, admitted by the BANK variant, null in the others, and in
  // both account objects, each of which lists it as required like every other key.
  const addProperty = (text: string, property: string) =>
    text.replace('\nproperties:\n', `\nproperties:\n${property}`);
  const addRequired = (text: string, key: string) =>
    text.replace('\nrequired:\n', `\nrequired:\n  - ${key}\n`);
  for (const schema of ['UserInput', 'BankAccountDetails']) {
    await edit(`components/schemas/${schema}.yaml`, (text) =>
      addProperty(text, accountSchemaText(accountField)),
    );
  }
  for (const schema of ['MomoAccountDetails', 'NoAccountDetails']) {
    await edit(`components/schemas/${schema}.yaml`, (text) => addProperty(text, onlyNullText));
  }
  for (const [schema, key] of [
    ['AccountCreated', accountKey],
    ['AccountUpdated', accountField],
  ] as const) {
    await edit(`components/schemas/${schema}.yaml`, (text) =>
      addRequired(addProperty(text, accountSchemaText(key)), key),
    );
  }
  await edit('components/examples/BankAccountUser.yaml', (text) =>
    text.replace('\nvalue:\n', `\nvalue:\n  ${accountField}: ACC-01\n`),
  );
  for (const [example, line] of [
    ['UserAddedToInstitution', `${accountKey}: ACC-01`],
    ['UserCreatedNew', `${accountKey}: null`],
    ['UserUpdated', `${accountField}: null`],
  ]) {
    await edit(`components/examples/${example}.yaml`, (text) =>
      text.replace('\n  account:\n', `\n  account:\n    ${line}\n`),
    );
  }
}

const institutions: Credential[] = [
  {
    institution: 'Field test: first',
    publicKey: 'field-test-first',
    secretKey: 'field-test-first-secret-0123456789',
  },
  {
    institution: 'Field test: other',
    publicKey: 'field-test-other',
    secretKey: 'field-test-other-secret-0123456789',
  },
];
const [first, other] = institutions as [Credential, Credential];

/** The copy's client, as far as these tests use it. */
interface Client {
  createUsersClient(options: Record<string, unknown>): UsersClient;
  toUserInput(user: object): Record<string, unknown>;
}
type User = Record<string, unknown> & { id: string; monthlyIncome: number | null };
interface UsersClient {
  createUser(
    body: object,
  ): Promise<{ data?: { user: User; created: boolean; raw: Body }; error?: unknown }>;
  updateUser(
    id: string,
    body: object,
  ): Promise<{ data?: { user: User; raw: Body }; error?: unknown }>;
}
type Body = Record<string, unknown>;

let variant: SpecVariant;
let client: Client;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'adding-a-field-'));
  variant = await buildSpecVariant(addField);
  client = (await import(variant.module('client'))) as Client;
}, 600_000);
afterAll(async () => {
  await variant?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

it("the copy's spec has the field, and only the copy's", async () => {
  const bundled = JSON.parse(
    await readFile(join(variant.root, 'openapi/dist/openapi.json'), 'utf8'),
  );
  for (const schema of ['UserInput', 'UserCreated', 'UserUpdated']) {
    expect(bundled.components.schemas[schema].properties).toHaveProperty(field);
  }
  for (const schema of accountSchemas) {
    expect(bundled.components.schemas[schema].properties).toHaveProperty(accountField);
  }
  expect(bundled.components.schemas.AccountCreated.properties).toHaveProperty(accountKey);
  expect(distinctUserBody()).not.toHaveProperty(field);
  expect(distinctUserBody({}, 'BankAccountUser')).not.toHaveProperty(accountField);
});

it("the copy typechecks as `npm run typecheck` does, type tests included, with no edit but the spec's", {
  timeout: 600_000,
}, async () => {
  // The type tests derive the user's and the account's keys from the generated types (the
  // client's users-client.test-d.ts among them), so the new fields need no edit of a test.
  for (const workspace of [
    'openapi',
    'packages/types',
    'packages/runtime',
    'packages/client',
    'packages/cli',
    'packages/conformance',
    'packages/mock',
    'apps/reference-server',
  ]) {
    await execFile('npm', ['run', 'typecheck', '--silent'], {
      cwd: join(variant.root, workspace),
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(
        `npm run typecheck of the copy's ${workspace} failed:\n${error.stdout}${error.stderr}`,
      );
    });
  }
});

it("the copy's mock answers both fields, in both shapes and in the client's User", async () => {
  const { createMockService } = (await import(variant.module('mock', 'service/index.js'))) as {
    createMockService(options: { institutions: Credential[] }): {
      handle(request: Request): Promise<Response>;
    };
  };
  const service = createMockService({ institutions: [first] });
  const mock = client.createUsersClient({
    baseUrl: 'http://mock.test',
    ...first,
    retry: false,
    fetch: (input: RequestInfo, init?: RequestInit) => service.handle(new Request(input, init)),
  });
  const sent = {
    ...distinctUserBody({}, 'BankAccountUser'),
    [field]: 'Maa',
    [accountField]: 'ACC-01',
  };
  const made = await mock.createUser(sent);
  expect(made.data?.created).toBe(true);
  expect(made.data?.raw).toMatchObject({ [field]: 'Maa', account: { [accountKey]: 'ACC-01' } });
  expect(made.data?.user).toMatchObject({ [field]: 'Maa', account: { [accountField]: 'ACC-01' } });
  const id = made.data?.user.id ?? '';
  const changed = await mock.updateUser(id, { ...sent, [accountField]: 'ACC-02' });
  expect(changed.data?.raw).toMatchObject({ account: { [accountField]: 'ACC-02' } });
  const { [accountField]: _, ...without } = sent as Body;
  const cleared = await mock.updateUser(id, without);
  expect(cleared.data?.raw.account).toHaveProperty(accountField, null);
});

/** Every step of the round trip on one database: `databaseUrl` for both servers, in turn. */
function roundTrip(databaseUrl: () => string) {
  let before: RunningServer | undefined;
  let server: RunningServer | undefined;
  let users: UsersClient;
  let storedBefore: Body;
  let storedBankBefore: Body;

  beforeAll(async () => {
    // A user stored by the server of this checkout, whose spec has no such field.
    before = await startReferenceServer({ credentials: institutions, databaseUrl: databaseUrl() });
    const { createUsersClient } = (await import('@institution-api/client')) as unknown as Client;
    const beforeUsers = createUsersClient({ baseUrl: before.url, ...first, retry: false });
    storedBefore = distinctUserBody();
    storedBankBefore = distinctUserBody({}, 'BankAccountUser');
    for (const stored of [storedBefore, storedBankBefore]) {
      const created = await beforeUsers.createUser(stored);
      expect(created.data?.created).toBe(true);
    }
    await before.stop();
    before = undefined;
    server = await startReferenceServer({
      credentials: institutions,
      databaseUrl: databaseUrl(),
      main: variant.serverMain,
    });
    users = client.createUsersClient({ baseUrl: server.url, ...first, retry: false });
  }, 120_000);
  afterAll(async () => {
    await before?.stop();
    await server?.stop();
  });

  /** The copy's MOMO request example (with the field), as a new person. */
  const body = (value: unknown = 'Maa'): Body => ({ ...distinctUserBody(), [field]: value });
  const created = async (sent: Body) => {
    const { data, error } = await users.createUser(sent);
    if (!data) throw new Error(`create failed: ${JSON.stringify(error)}`);
    return data;
  };

  it('create answers it (201), and again (200), in the answer and the User', async () => {
    const sent = body();
    const answer = await created(sent);
    expect(answer.created).toBe(true);
    expect(answer.raw[field]).toBe('Maa');
    expect(answer.user[field]).toBe('Maa');
    const again = await created({ ...sent, [field]: 'Other' });
    expect(again.created).toBe(false);
    expect(again.raw[field]).toBe('Maa');
    const absent = await created(distinctUserBody());
    expect(absent.raw).toHaveProperty(field, null);
  });

  it('update carries it, and clears it when absent', async () => {
    const sent = body();
    const { user } = await created(sent);
    const changed = await users.updateUser(user.id, { ...sent, [field]: 'Efua' });
    expect(changed.data?.raw[field]).toBe('Efua');
    expect(changed.data?.user[field]).toBe('Efua');
    const { [field]: _, ...without } = sent;
    const cleared = await users.updateUser(user.id, without);
    expect(cleared.data?.raw).toHaveProperty(field, null);
  });

  it("read, change one field, update keeps it (the client's toUserInput)", async () => {
    const sent = body('Adwoa');
    const { user } = await created(sent);
    const input = client.toUserInput({ ...user, monthlyIncome: sent.monthlyIncome });
    expect(input[field]).toBe('Adwoa');
    const updated = await users.updateUser(user.id, { ...input, firstName: 'Efua' });
    expect(updated.data?.raw).toMatchObject({ firstName: 'Efua', [field]: 'Adwoa' });
    const again = await users.updateUser(user.id, client.toUserInput(updated.data?.user as object));
    expect(again.data?.raw[field]).toBe('Adwoa');
  });

  it('a user stored before the field existed answers it as null, and takes it', async () => {
    const again = await created(storedBefore);
    expect(again.created).toBe(false);
    expect(again.raw).toHaveProperty(field, null);
    expect(again.raw.firstName).toBe(storedBefore.firstName);
    const updated = await users.updateUser(again.user.id, { ...storedBefore, [field]: 'Kobby' });
    expect(updated.data?.raw[field]).toBe('Kobby');
  });

  /** The copy's BANK request example (with the account field), as a new person. */
  const bankBody = (value: unknown = 'ACC-01'): Body => ({
    ...distinctUserBody({}, 'BankAccountUser'),
    [accountField]: value,
  });
  const account = (answer: { raw: Body } | undefined) => answer?.raw.account as Body | undefined;
  const userAccount = (answer: { user: User } | undefined) =>
    answer?.user.account as Body | undefined;

  it('an account field: create answers it in snake_case (201, 200 again), a MOMO account null', async () => {
    const sent = bankBody();
    const answer = await created(sent);
    expect(answer.created).toBe(true);
    expect(account(answer)).toHaveProperty(accountKey, 'ACC-01');
    expect(userAccount(answer)).toHaveProperty(accountField, 'ACC-01');
    const again = await created({ ...sent, [accountField]: 'ACC-09' });
    expect(again.created).toBe(false);
    expect(account(again)).toHaveProperty(accountKey, 'ACC-01');
    const momo = await created(distinctUserBody());
    expect(account(momo)).toHaveProperty(accountKey, null);
    expect(userAccount(momo)).toHaveProperty(accountField, null);
  });

  it('an account field: update answers it in camelCase, clears it when absent, toUserInput keeps it', async () => {
    const sent = bankBody();
    const { user } = await created(sent);
    const changed = await users.updateUser(user.id, { ...sent, [accountField]: 'ACC-02' });
    expect(account(changed.data)).toHaveProperty(accountField, 'ACC-02');
    expect(userAccount(changed.data)).toHaveProperty(accountField, 'ACC-02');
    const input = client.toUserInput(changed.data?.user as object);
    expect(input[accountField]).toBe('ACC-02');
    const kept = await users.updateUser(user.id, { ...input, firstName: 'Efua' });
    expect(kept.data?.raw.firstName).toBe('Efua');
    expect(account(kept.data)).toHaveProperty(accountField, 'ACC-02');
    const { [accountField]: _, ...without } = sent;
    const cleared = await users.updateUser(user.id, without);
    expect(account(cleared.data)).toHaveProperty(accountField, null);
  });

  it('an account stored before the field existed answers it as null, and takes it', async () => {
    const again = await created(storedBankBefore);
    expect(again.created).toBe(false);
    expect(account(again)).toMatchObject({ account_type: 'BANK', [accountKey]: null });
    const same = await users.updateUser(again.user.id, storedBankBefore);
    expect(account(same.data)).toHaveProperty(accountField, null);
    const updated = await users.updateUser(again.user.id, {
      ...storedBankBefore,
      [accountField]: 'ACC-03',
    });
    expect(account(updated.data)).toHaveProperty(accountField, 'ACC-03');
    expect(account(updated.data)?.id).toBe(account(again)?.id);
  });

  it('an import column sets the account field', async () => {
    const sent = bankBody('ACC-04');
    const csv = join(scratch, `import-account-${Date.now()}.csv`);
    const columns = [
      'email',
      'firstName',
      'lastName',
      'mobileNumber',
      'ghanaCardNumber',
      'monthlyIncome',
      'accountType',
      'accountNumber',
      'accountName',
      'bankName',
      accountField,
    ];
    await writeFile(
      csv,
      `${columns.join(',')}\n${columns.map((column) => String(sent[column])).join(',')}\n`,
    );
    const run = await execFile(process.execPath, [variant.bins.cli, 'import', csv], {
      env: {
        ...process.env,
        INSTITUTION_API_URL: server?.url,
        INSTITUTION_PUBLIC_KEY: first.publicKey,
        INSTITUTION_SECRET_KEY: first.secretKey,
      },
    });
    expect(run.stdout).toMatch(/created {3}1/);
    const again = await created(sent);
    expect(again.created).toBe(false);
    expect(account(again)).toHaveProperty(accountKey, 'ACC-04');
  });

  it('an import column sets it', async () => {
    const sent = body();
    const csv = join(scratch, `import-${Date.now()}.csv`);
    const columns = [
      'email',
      'firstName',
      'lastName',
      'mobileNumber',
      'ghanaCardNumber',
      'monthlyIncome',
      field,
    ];
    await writeFile(
      csv,
      `${columns.join(',')}\n${columns.map((column) => String(sent[column])).join(',')}\n`,
    );
    const run = await execFile(process.execPath, [variant.bins.cli, 'import', csv], {
      env: {
        ...process.env,
        INSTITUTION_API_URL: server?.url,
        INSTITUTION_PUBLIC_KEY: first.publicKey,
        INSTITUTION_SECRET_KEY: first.secretKey,
      },
    });
    expect(run.stdout).toMatch(/created {3}1/);
    const again = await created(sent);
    expect(again.created).toBe(false);
    expect(again.raw[field]).toBe('Maa');
  });

  it("the copy's conformance suite passes", { timeout: 300_000 }, async () => {
    const run = await conformance(server?.url ?? '').catch(
      (error: { stdout?: string; stderr?: string }) => {
        throw new Error(`the conformance suite failed:\n${error.stdout}\n${error.stderr}`);
      },
    );
    expect(run.stdout).toMatch(/no check failed/);
  });
}

/** The copy's conformance suite against `url`, as the first and the other institution. */
function conformance(url: string) {
  return execFile(
    process.execPath,
    [variant.bins.conformance, 'run', '--rate', '0', '--seed', '7'],
    {
      env: {
        ...process.env,
        INSTITUTION_API_URL: url,
        INSTITUTION_PUBLIC_KEY: first.publicKey,
        INSTITUTION_SECRET_KEY: first.secretKey,
        INSTITUTION_OTHER_PUBLIC_KEY: other.publicKey,
        INSTITUTION_OTHER_SECRET_KEY: other.secretKey,
      },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

it("the copy's conformance suite checks the field: it fails a server that does not know it", {
  timeout: 300_000,
}, async () => {
  const server = await startReferenceServer({ credentials: institutions });
  try {
    const failed = await conformance(server.url).then(
      () => undefined,
      (error: { code?: number; stdout?: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toContain(field);
  } finally {
    await server.stop();
  }
});

describe('on the embedded SQLite database', { timeout: 120_000 }, () => {
  roundTrip(() => join(scratch, 'field.sqlite'));
});

describeWith('postgres', 'on PostgreSQL', { timeout: 120_000 }, () => {
  let postgres: RunningPostgres | undefined;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterAll(() => postgres?.stop());
  roundTrip(() => postgres?.url ?? '');
});
