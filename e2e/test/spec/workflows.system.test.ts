/**
 * The journeys of the spec (its Journeys section) as Arazzo workflows (workflows/*.arazzo.yaml), run by
 * Redocly Respect against the reference server, each institution's requests signed by its own
 * `institution-api sign-proxy`: every step passes, with the answer checked against the spec and
 * the workflow's success criteria. Respect's own JSON report is kept in reports/ (git-ignored) as
 * the evidence. Then once against a server whose update answers in the create's shape: Respect,
 * with this spec, fails that step.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startListeningProcess } from '@institution-api/test-support/listening-process';
import {
  type Credential,
  type RunningServer,
  startReferenceServer,
} from '@institution-api/test-support/reference-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repository, workspaceDir } from '../workspaces.js';
import { startUpdateAsCreateProxy } from './broken-server.js';

const openapi = workspaceDir('@institution-api/openapi');
const redocly = join(repository, 'node_modules', '.bin', 'redocly');
const cli = join(workspaceDir('@institution-api/cli'), 'bin', 'institution-api.js');
const reports = fileURLToPath(new URL('../../reports', import.meta.url));
const workflowFiles = readdirSync(join(openapi, 'workflows'))
  .filter((file) => file.endsWith('.arazzo.yaml'))
  .sort()
  .map((file) => `workflows/${file}`);

const first: Credential = {
  institution: 'Respect: first institution',
  publicKey: 'respect-first-institution',
  secretKey: 'respect-first-institution-secret-0123456789',
};
const other: Credential = {
  institution: 'Respect: other institution',
  publicKey: 'respect-other-institution',
  secretKey: 'respect-other-institution-secret-0123456789',
};

/** The journeys of the issue, their workflow, and the steps each must pass, in order. */
const journeys = {
  'workflows/register-customer.arazzo.yaml': ['registerCustomer', ['createCustomer']],
  'workflows/same-customer-again.arazzo.yaml': [
    'registerSameCustomerAgain',
    ['createCustomer', 'createCustomerAgain'],
  ],
  'workflows/another-institution-adds-customer.arazzo.yaml': [
    'anotherInstitutionAddsCustomer',
    ['registerWithFirstInstitution', 'addAtOtherInstitution', 'otherInstitutionUpdates'],
  ],
  'workflows/update-details.arazzo.yaml': [
    'updateCustomerDetails',
    ['createCustomer', 'updateCustomer'],
  ],
  'workflows/conflicting-details.arazzo.yaml': [
    'conflictingDetails',
    [
      'registerWithFirstInstitution',
      'otherInstitutionWithAnotherMobile',
      'newUserWithTakenEmail',
      'otherInstitutionWithTheRightMobile',
    ],
  ],
  'workflows/unknown-id.arazzo.yaml': [
    'updateUnknownId',
    ['updateNoSuchUser', 'registerWithFirstInstitution', 'otherInstitutionUpdatesThatUser'],
  ],
} as const;

/** What Respect's `-J` report holds, as far as these tests read it. */
interface RespectReport {
  status: string;
  files: Record<
    string,
    {
      executedWorkflows: {
        workflowId: string;
        status: string;
        executedSteps: {
          stepId: string;
          status: string;
          checks: { name: string; passed: boolean; message: string }[];
        }[];
      }[];
    }
  >;
}

/** A sign-proxy process of the built CLI, and the lines it logged (one per request). */
interface SignProxy {
  url: string;
  requests(): string[];
  stop(): Promise<void>;
}

/** `institution-api sign-proxy` with `credential`'s keys, forwarding to `target`. */
async function startSignProxy(credential: Credential, target: string): Promise<SignProxy> {
  const proxy = await startListeningProcess([cli, 'sign-proxy'], {
    ...process.env,
    INSTITUTION_PUBLIC_KEY: credential.publicKey,
    INSTITUTION_SECRET_KEY: credential.secretKey,
    INSTITUTION_API_URL: target,
  });
  return {
    url: proxy.url,
    requests: () =>
      proxy
        .output()
        .split('\n')
        .filter((line) => / -> /.test(line)),
    stop: proxy.stop,
  };
}

/**
 * Runs `redocly respect` on `files` with `servers` for the source descriptions (and `inputs`, if
 * any); resolves with its exit code, its output and its JSON report. The report and the output
 * stay in reports/ (`<name>.json`, `<name>.txt`).
 */
async function respect(
  files: string[],
  servers: Record<string, string>,
  name: string,
  inputs?: Record<string, unknown>,
) {
  mkdirSync(reports, { recursive: true });
  const reportPath = join(reports, `${name}.json`);
  const args = ['respect', ...files, '-S', JSON.stringify(servers), '-J', reportPath];
  if (inputs) args.push('-i', JSON.stringify(inputs));
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      redocly,
      args,
      { cwd: openapi, env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const status = (error as { code?: unknown } | null)?.code;
        resolve({ code: typeof status === 'number' ? status : 0, output: stdout + stderr });
      },
    );
  });
  writeFileSync(join(reports, `${name}.txt`), output);
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as RespectReport;
  return { code, output, report, reportPath };
}

let server: RunningServer;
const proxies: SignProxy[] = [];
let broken: { url: string; close(): Promise<void> } | undefined;

beforeAll(async () => {
  server = await startReferenceServer({ credentials: [first, other] });
}, 60_000);
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await broken?.close();
  await server?.stop();
});

describe('the journeys, run by Redocly Respect through sign-proxy', () => {
  it('names one workflow file per journey', () => {
    expect(workflowFiles).toEqual(Object.keys(journeys).sort());
  });

  it('passes every step of every workflow, each answer checked against the spec', async () => {
    const firstProxy = await startSignProxy(first, server.url);
    const otherProxy = await startSignProxy(other, server.url);
    proxies.push(firstProxy, otherProxy);
    const run = await respect(
      workflowFiles,
      { institution: firstProxy.url, otherInstitution: otherProxy.url },
      'respect',
    );
    expect(run.code, run.output).toBe(0);
    expect(run.report.status).toBe('success');

    for (const [file, [workflowId, stepIds]] of Object.entries(journeys)) {
      const [workflow, ...more] = run.report.files[file]?.executedWorkflows ?? [];
      expect(more).toEqual([]);
      expect(workflow?.workflowId).toBe(workflowId);
      expect(workflow?.status, `${workflowId}`).toBe('success');
      expect(workflow?.executedSteps.map((step) => step.stepId)).toEqual(stepIds);
      for (const step of workflow?.executedSteps ?? []) {
        expect(step.status, `${workflowId}/${step.stepId}`).toBe('success');
        const checks = step.checks.map((check) => [check.name, check.passed]);
        // Respect's own checks of the answer against the spec, beside the workflow's criteria.
        expect(checks).toEqual(
          expect.arrayContaining([
            ['status code check', true],
            ['content-type check', true],
            ['schema check', true],
            ['success criteria check', true],
          ]),
        );
        expect(checks.filter(([, passed]) => !passed)).toEqual([]);
      }
    }
    // Each institution's steps went through its own proxy, signed with its own keys.
    expect(firstProxy.requests()).toHaveLength(10);
    expect(otherProxy.requests()).toHaveLength(5);
    expect(run.output).not.toContain(first.secretKey);
    expect(readFileSync(run.reportPath, 'utf8')).not.toContain(first.secretKey);
  }, 120_000);
});

describe('a server that breaks the contract', () => {
  it("fails the update's step when the update answers in the create's shape", async () => {
    broken = await startUpdateAsCreateProxy(server.url);
    const proxy = await startSignProxy(first, broken.url);
    proxies.push(proxy);
    const run = await respect(
      ['workflows/update-details.arazzo.yaml'],
      { institution: proxy.url },
      'respect-broken-server',
      // a customer this server has not seen yet (the run above registered the defaults)
      { email: 'yaw.broken@example.com', ghanaCardNumber: 'GHA-270000094-4' },
    );
    expect(run.code).not.toBe(0);
    expect(run.report.status).toBe('error');
    const [workflow] =
      run.report.files['workflows/update-details.arazzo.yaml']?.executedWorkflows ?? [];
    const [create, update] = workflow?.executedSteps ?? [];
    expect(create?.stepId).toBe('createCustomer');
    expect(create?.status).toBe('success');
    expect(update?.stepId).toBe('updateCustomer');
    expect(update?.status).toBe('error');
    const schemaCheck = update?.checks.find((check) => check.name === 'schema check');
    expect(schemaCheck?.passed).toBe(false);
    expect(schemaCheck?.message).toContain("must have required property 'monthlyIncome'");
    // Respect's output names the failed step.
    expect(run.output).toMatch(/✗ PUT \/api\/v1\/external\/users\/\{id\} - step updateCustomer/);
  }, 120_000);
});
