/**
 * The contract in the generators its users already have. For each of @hey-api/openapi-ts (fetch
 * client, SDK and zod plugin), orval (fetch client and zod) and openapi-typescript (types, called
 * with openapi-fetch), in a clean consumer directory of its own (the bundle, the generator's
 * config, a consumer program from test/consumers/, and only zod, openapi-fetch and @types/node
 * beside it): the generator runs on dist/openapi.json, `tsc --strict` compiles what it generated
 * with the program, and the program calls the reference server: create 201, the same again 200
 * with the same id, update 200 in the update's shape, and a 400 read as the typed problem. The
 * generated zod schemas must accept every example of the spec. Generated clients must start from
 * the spec's first server, the local sandbox (Assumptions, "Base URL").
 *
 * The programs run against a fresh reference server on a free port, so they take their base URL
 * from INSTITUTION_API_URL as every sample of the spec does; orval's, whose URLs are absolute,
 * through its fetch mutator.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedFile, repository, bundledSpec as spec } from '../workspaces.js';

const consumers = fileURLToPath(new URL('consumers', import.meta.url));
const bin = (name: string) => join(repository, 'node_modules', '.bin', name);

/** The tools under test, pinned in this workspace's devDependencies. */
const generators = {
  'hey-api': { tool: '@hey-api/openapi-ts', generate: [bin('openapi-ts')] },
  orval: {
    tool: 'orval',
    generate: [bin('orval'), '--config', 'orval.config.mjs', '--fail-on-warnings'],
  },
  'openapi-typescript': {
    tool: 'openapi-typescript',
    // As the types package runs it: a field with a `default` stays optional in a request body.
    generate: [
      bin('openapi-typescript'),
      'openapi.json',
      '--default-non-nullable=false',
      '--output',
      'generated/schema.ts',
    ],
  },
} as const;
type Consumer = keyof typeof generators;

/** What a consumer program wants at run time, and no more: its imports and the Node types. */
const consumerDependencies = ['zod', 'openapi-fetch', '@types/node'];

const credential: Credential = {
  institution: 'Generated clients',
  publicKey: 'generated-clients',
  secretKey: 'generated-clients-secret-0123456789',
};

const versionOf = (name: string): string =>
  JSON.parse(readFileSync(join(repository, 'node_modules', name, 'package.json'), 'utf8')).version;

interface SpecExample {
  operationId: string;
  where: string;
  name: string;
  schema: string;
  value: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: the bundled document, read as JSON
type Json = any;

/**
 * Every named example of the bundle with the component schema its media type names: request
 * bodies (`request`) and answers (by status), `$ref`s to components resolved.
 */
function examplesOf(document: Json): SpecExample[] {
  const resolve = (value: Json): Json => {
    const ref = value?.$ref;
    if (typeof ref !== 'string') return value;
    const [, section = '', name = ''] = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref) ?? [];
    return resolve(document.components[section][name]);
  };
  const fromContent = (operationId: string, where: string, content: Json) =>
    Object.values<Json>(content ?? {}).flatMap((media) => {
      const schema = /^#\/components\/schemas\/(.+)$/.exec(media.schema?.$ref ?? '')?.[1];
      if (!schema) throw new Error(`${operationId} ${where}: the schema is not a named component`);
      return Object.entries<Json>(media.examples ?? {}).map(([name, example]) => ({
        operationId,
        where,
        name,
        schema,
        value: resolve(example).value,
      }));
    });
  return Object.values<Json>(document.paths).flatMap((item) =>
    Object.values<Json>(item)
      .filter((operation) => operation?.operationId)
      .flatMap((operation) => [
        ...fromContent(operation.operationId, 'request', resolve(operation.requestBody)?.content),
        ...Object.entries<Json>(operation.responses).flatMap(([status, response]) =>
          fromContent(operation.operationId, status, resolve(response).content),
        ),
      ]),
  );
}

function run(command: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const [file = '', ...args] = command;
  return new Promise<{ code: number; output: string; stdout: string; ms: number }>((resolve) => {
    const started = performance.now();
    execFile(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = (error as { code?: unknown } | null)?.code;
      resolve({
        code: typeof status === 'number' ? status : error ? 1 : 0,
        output: `${stdout}${stderr}`,
        stdout,
        ms: Math.round(performance.now() - started),
      });
    });
  });
}

/** A clean directory holding what an integrator has: the bundle, the config, the program. */
function consumerDirectory(consumer: Consumer): string {
  const dir = mkdtempSync(join(tmpdir(), `institution-api-consumer-${consumer}-`));
  cpSync(join(consumers, consumer), dir, { recursive: true });
  cpSync(join(consumers, 'shared.ts'), join(dir, 'shared.ts'));
  cpSync(join(consumers, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  cpSync(exportedFile('@institution-api/openapi/openapi.json'), join(dir, 'openapi.json'));
  writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  writeFileSync(join(dir, 'examples.json'), JSON.stringify(examplesOf(spec)));
  for (const name of consumerDependencies) {
    const link = join(dir, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(repository, 'node_modules', name), link, 'dir');
  }
  return dir;
}

interface Outcome {
  consumer: Consumer;
  dir: string;
  generate: Awaited<ReturnType<typeof run>>;
  compile: Awaited<ReturnType<typeof run>>;
  program: Awaited<ReturnType<typeof run>>;
  // biome-ignore lint/suspicious/noExplicitAny: the program's one JSON line
  report: any;
}

async function generateCompileRun(consumer: Consumer, server: RunningServer): Promise<Outcome> {
  const dir = consumerDirectory(consumer);
  const generate = await run([...generators[consumer].generate], dir);
  const compile =
    generate.code === 0
      ? await run(
          [
            process.execPath,
            join(repository, 'node_modules', 'typescript', 'bin', 'tsc'),
            '-p',
            '.',
            '--strict',
          ],
          dir,
        )
      : { code: -1, output: 'not compiled', stdout: '', ms: 0 };
  const program =
    compile.code === 0
      ? await run([process.execPath, 'dist/main.js'], dir, {
          PATH: process.env.PATH,
          INSTITUTION_API_URL: server.url,
          INSTITUTION_PUBLIC_KEY: credential.publicKey,
          INSTITUTION_SECRET_KEY: credential.secretKey,
        })
      : { code: -1, output: 'not run', stdout: '', ms: 0 };
  let report: unknown;
  try {
    report = JSON.parse(program.stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    report = undefined;
  }
  return { consumer, dir, generate, compile, program, report };
}

let server: RunningServer;
const outcomes = new Map<Consumer, Outcome>();
const started = performance.now();

beforeAll(async () => {
  server = await startReferenceServer({ credentials: [credential] });
  // Each generator and tsc is one process: all three at once take about as long as the slowest.
  const all = await Promise.all(
    (Object.keys(generators) as Consumer[]).map((consumer) => generateCompileRun(consumer, server)),
  );
  for (const outcome of all) outcomes.set(outcome.consumer, outcome);
  console.log(
    `${all
      .map(
        ({ consumer, generate, compile, program }) =>
          `${generators[consumer].tool} ${versionOf(generators[consumer].tool)}: generate ${generate.ms} ms, tsc --strict ${compile.ms} ms, run ${program.ms} ms`,
      )
      .join('\n')}\nall three: ${Math.round(performance.now() - started)} ms`,
  );
}, 180_000);

afterAll(async () => {
  await server?.stop();
  for (const { dir } of outcomes.values()) rmSync(dir, { recursive: true, force: true });
});

const sandbox = (spec as unknown as { servers: { url: string }[] }).servers[0]?.url;

describe.each(Object.keys(generators) as Consumer[])('a client generated by %s', (consumer) => {
  const outcome = () => {
    const found = outcomes.get(consumer);
    if (!found) throw new Error(`${consumer} did not run`);
    return found;
  };

  it('generates from the bundle and compiles under tsc --strict', () => {
    const { generate, compile } = outcome();
    expect(generate.code, generate.output).toBe(0);
    expect(generate.output).not.toMatch(/\bwarn(ing)?\b/i);
    expect(compile.code, compile.output).toBe(0);
  });

  it('calls the reference server: create 201, again 200 (same id), update 200, a typed 400', () => {
    const { program, report } = outcome();
    expect(program.code, program.output).toBe(0);
    expect(report).toMatchObject({
      create: 201,
      again: 200,
      sameId: true,
      update: 200,
      updatedLastName: 'Owusu',
      updatedAccount: null,
      badRequest: {
        status: 400,
        type: 'urn:institution-api:problem:validation-error',
        paths: ['/body/ghanaCardNumber'],
      },
    });
  });
});

describe('generated clients start from the spec’s first server, the local sandbox', () => {
  it.each(['hey-api', 'orval'] as const)('%s', (consumer) => {
    expect(sandbox).toBe('http://localhost:8080');
    expect(outcomes.get(consumer)?.report?.defaultBaseUrl).toBe(sandbox);
  });
});

describe('the generated zod schemas', () => {
  const examples = examplesOf(spec);

  it('are given every example of the spec, requests and answers', () => {
    expect(examples.filter(({ where }) => where === 'request').length).toBeGreaterThanOrEqual(6);
    expect(new Set(examples.map(({ where }) => where))).toEqual(
      new Set([
        'request',
        '200',
        '201',
        '400',
        '401',
        '404',
        '408',
        '409',
        '413',
        '415',
        '429',
        '500',
        '503',
      ]),
    );
  });

  it.each(['hey-api', 'orval'] as const)('of %s accept every example of the spec', (consumer) => {
    const report = outcomes.get(consumer)?.report;
    expect(report?.examples.checked).toBe(examples.length);
    expect(report?.examples.rejected).toEqual([]);
  });

  // The gaps the compatibility table (openapi/README.md) names, checked so it stays true.
  it('of @hey-api/openapi-ts let an unknown key through (additionalProperties: false ignored)', () => {
    expect(outcomes.get('hey-api')?.report?.unknownKeyAccepted).toBe(true);
  });

  it('of orval, with its `strict` option, refuse an unknown key', () => {
    expect(outcomes.get('orval')?.report?.unknownKeyAccepted).toBe(false);
  });
});
