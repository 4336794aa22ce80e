/**
 * The package as a consumer gets it: `npm pack` of signing, types and client, installed into an
 * empty project (openapi-fetch from the local npm cache), type-checked with the repo's `tsc`
 * and run against a real server. Catches what in-repo tests cannot: a missing file in the
 * tarball, an `exports` map that does not resolve, declarations that do not compile.
 * Needs the three packages built (the turbo test task depends on build).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAuthorization, verify } from '@institution-api/signing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS, userCreatedNew, userUpdated } from './support/examples.js';
import { sendJson, startServer, type TestServer } from './support/http-server.js';

const exec = promisify(execFile);
const packages = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(createRequire(import.meta.url).resolve('typescript/package.json'), '../bin/tsc');
const BUILT = [
  'signing/dist/index.js',
  'types/dist/index.js',
  'types/openapi.json',
  'types/openapi.yaml',
  'client/dist/index.js',
  'client/dist/cli.js',
];

let project: string;
let server: TestServer;

/** Runs a command, resolving with its exit code and output instead of throwing. */
async function run(file: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await exec(file, args, {
      cwd: project,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

beforeAll(async () => {
  const missing = BUILT.filter((file) => !existsSync(join(packages, file)));
  if (missing.length > 0) {
    throw new Error(
      `build first (npx turbo run build --filter=@institution-api/client...): missing ${missing.join(', ')}`,
    );
  }
  project = await mkdtemp(join(tmpdir(), 'institution-api-consumer-'));
  const tarballs: Record<string, string> = {};
  for (const name of ['signing', 'types', 'client']) {
    const { stdout } = await exec(
      'npm',
      ['pack', '--json', '--silent', '--pack-destination', project],
      { cwd: join(packages, name) },
    );
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    tarballs[`@institution-api/${name}`] = `file:./${filename}`;
  }
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: tarballs }),
  );
  await exec(
    'npm',
    ['install', '--no-audit', '--no-fund', '--offline', '--ignore-scripts', '--silent'],
    { cwd: project },
  );
  await writeConsumerFiles();

  server = await startServer(async (req, res) => {
    const header = parseAuthorization(req.headers.authorization);
    const valid =
      header?.publicKey === CREDENTIALS.publicKey &&
      (await verify(req.body, header.signature, CREDENTIALS.secretKey));
    if (!valid)
      return sendJson(res, 401, { type: 'about:blank', title: 'Unauthorized', status: 401 });
    if (req.method === 'POST') return sendJson(res, 201, userCreatedNew());
    return sendJson(res, 200, userUpdated());
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the packed packages, installed in a fresh project', { timeout: 60_000 }, () => {
  it('type-check a valid consumer with tsc', async () => {
    const { code, stdout } = await run(process.execPath, [tsc, '-p', 'tsconfig.valid.json']);
    expect(stdout).toBe('');
    expect(code).toBe(0);
  });

  it('refuse invalid calls at compile time', async () => {
    const { code, stdout } = await run(process.execPath, [tsc, '-p', 'tsconfig.invalid.json']);
    expect(code).not.toBe(0);
    expect(stdout).toMatch(/invalid\.ts\(\d+,\d+\): error TS2345:[\s\S]*'network' is missing/);
    expect(stdout).toMatch(/invalid\.ts\(\d+,\d+\): error TS2345: Argument of type 'number'/);
    expect(stdout).toMatch(/invalid\.ts\(\d+,\d+\): error TS2353:[\s\S]*'nickname'/);
    expect(stdout.match(/error TS/g)).toHaveLength(3);
  });

  it('read both response shapes into a User with the same keys', async () => {
    const { code, stdout, stderr } = await run(process.execPath, ['consumer.mjs'], {
      API_URL: server.url,
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { created: boolean; create: string[]; update: string[] };
    expect(result.created).toBe(true);
    expect(result.create).toEqual(result.update);
    expect(result.create).toContain('image');
    expect(result.create).toContain('documents');
    expect(result.create).toContain('monthlyIncome');
    expect(result.create).not.toContain('userImage');
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'PUT']);
  });

  it('install the institution-api executable', async () => {
    const { code, stdout } = await run(join(project, 'node_modules/.bin/institution-api'), [
      '--help',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/institution-api sign <file.json>/);
  });
});

async function writeConsumerFiles() {
  const compilerOptions = {
    strict: true,
    target: 'ES2022',
    lib: ['ES2023', 'DOM'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: [],
    noEmit: true,
    skipLibCheck: false,
  };
  await writeFile(
    join(project, 'tsconfig.valid.json'),
    JSON.stringify({ compilerOptions, files: ['valid.ts'] }),
  );
  await writeFile(
    join(project, 'tsconfig.invalid.json'),
    JSON.stringify({ compilerOptions, files: ['invalid.ts'] }),
  );
  await writeFile(
    join(project, 'valid.ts'),
    `import {
  createUsersClient,
  normalizeUser,
  type ClientError,
  type User,
  type UserCreated,
  type UserInput,
  type paths,
} from '@institution-api/client';

const users = createUsersClient({ baseUrl: 'http://127.0.0.1:1', publicKey: 'pk', secretKey: 'sk' });
const body: UserInput = {
  email: 'ama.mensah@example.com', firstName: 'Ama', lastName: 'Mensah',
  mobileNumber: '0241234567', ghanaCardNumber: 'GHA-123456789-0', monthlyIncome: 2500.5,
  accountType: 'MOMO', accountNumber: '0241234567', accountName: 'Ama Mensah', network: 'MTN',
};
export async function demo(): Promise<User | ClientError> {
  const { data, error } = await users.createUser(body, { signal: AbortSignal.timeout(1000) });
  if (error) {
    if (error.kind === 'http') return { ...error, detail: error.detail ?? error.title };
    return error;
  }
  const created: boolean = data.created;
  const raw: UserCreated = data.raw;
  const again = await users.updateUser(data.user.id, body);
  return again.data?.user ?? normalizeUser(created ? raw : raw);
}
export type CreatePath = keyof paths;
`,
  );
  await writeFile(
    join(project, 'invalid.ts'),
    `import { createUsersClient } from '@institution-api/client';

const users = createUsersClient({ baseUrl: 'http://127.0.0.1:1', publicKey: 'pk', secretKey: 'sk' });
const base = {
  email: 'ama.mensah@example.com', firstName: 'Ama', lastName: 'Mensah',
  mobileNumber: '0241234567', ghanaCardNumber: 'GHA-123456789-0', monthlyIncome: 2500.5,
};
users.createUser({ ...base, accountType: 'MOMO', accountNumber: '0241234567', accountName: 'Ama' });
users.updateUser(42, base);
users.createUser({ ...base, nickname: 'Ama' });
`,
  );
  await writeFile(
    join(project, 'consumer.mjs'),
    `import { createUsersClient } from '@institution-api/client';

const users = createUsersClient({
  baseUrl: process.env.API_URL,
  publicKey: ${JSON.stringify(CREDENTIALS.publicKey)},
  secretKey: ${JSON.stringify(CREDENTIALS.secretKey)},
});
const body = {
  email: 'ama.mensah@example.com', firstName: 'Ama', lastName: 'Mensah',
  mobileNumber: '0241234567', ghanaCardNumber: 'GHA-123456789-0', monthlyIncome: 2500.5,
};
const created = await users.createUser(body);
if (created.error) throw new Error(JSON.stringify(created.error));
const updated = await users.updateUser(created.data.user.id, body);
if (updated.error) throw new Error(JSON.stringify(updated.error));
console.log(JSON.stringify({
  created: created.data.created,
  create: Object.keys(created.data.user),
  update: Object.keys(updated.data.user),
}));
`,
  );
}
