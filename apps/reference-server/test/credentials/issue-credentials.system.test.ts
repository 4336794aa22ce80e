import { execFile as execFileCallback } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openStorage } from '../../src/storage/open-storage.js';
import { type CompiledSources, compileForChild } from '../storage/compile-for-child.js';

const execFile = promisify(execFileCallback);
const command = 'src/credentials/issue-credentials.ts';
const credentialsCommand = 'src/credentials/credentials-command.ts';
const bin = 'src/bin.ts';
let compiled: CompiledSources;
let dataDir: string;

beforeAll(async () => {
  compiled = await compileForChild([command, credentialsCommand, bin]);
  dataDir = await mkdtemp(join(tmpdir(), 'reference-server-issue-'));
}, 120_000);
afterAll(async () => {
  await compiled?.remove();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Runs a compiled entry point; resolves with its exit code and output, whatever the code. */
async function run(entry: string, args: string[], databaseUrl: string) {
  try {
    const { stdout, stderr } = await execFile(process.execPath, [compiled.path(entry), ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** The alias of earlier versions, `issue-credentials`: `credentials issue` by another name. */
const issue = (args: string[], databaseUrl: string) => run(command, args, databaseUrl);

test('prints a fresh pair as JSON, which the server then finds', async () => {
  const result = await issue(['--institution', 'Bank of Test'], dataDir);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  const printed = JSON.parse(result.stdout);
  expect(Object.keys(printed)).toEqual([
    'institution',
    'publicKey',
    'secretKey',
    'signaturePolicy',
    'expiresAt',
  ]);
  expect(printed.institution).toBe('Bank of Test');
  const storage = await openStorage(dataDir, { defaultDataDir: '/nonexistent' });
  try {
    expect(await storage.findCredential(printed.publicKey)).toEqual({
      institutionId: expect.any(String),
      institution: 'Bank of Test',
      secretKey: printed.secretKey,
      expiresAt: null,
      revokedAt: null,
      signaturePolicy: 'any',
    });
  } finally {
    await storage.close();
  }
}, 60_000);

test('works while another process (the server) has the embedded database open', async () => {
  const storage = await openStorage(dataDir, { defaultDataDir: '/nonexistent' });
  try {
    const result = await issue(['--institution', 'Bank of Test'], dataDir);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(result.stdout);
    expect(await storage.findCredential(printed.publicKey)).toMatchObject({
      institution: 'Bank of Test',
      secretKey: printed.secretKey,
    });
  } finally {
    await storage.close();
  }
}, 60_000);

test('answers wrong usage with exit code 2 and the usage, and --help with 0', async () => {
  for (const args of [[], ['--institution', '  '], ['--bank', 'X']]) {
    const result = await issue(args, 'memory://');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'Usage: issue-credentials --institution NAME [--expires-in DURATION]',
    );
  }
  const help = await issue(['--help'], 'memory://');
  expect(help).toMatchObject({ code: 0, stderr: '' });
  expect(help.stdout).toContain('Usage: issue-credentials');
});

test('the credentials command and the package bin run the same subcommands, exit codes included', async () => {
  const revoked = await run(credentialsCommand, ['revoke', 'pk_nobody'], dataDir);
  expect(revoked).toMatchObject({ code: 1, stdout: '' });
  expect(revoked.stderr).toBe('credentials: No key pair has the public key pk_nobody.\n');
  const listed = await run(bin, ['credentials', 'list', '--json'], dataDir);
  expect(listed).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(listed.stdout).map((r: { institution: string }) => r.institution)).toEqual([
    'Bank of Test',
    'Bank of Test',
  ]);
  expect((await run(bin, ['credentials', 'issue'], dataDir)).code).toBe(2);
  expect((await run(bin, ['serve'], dataDir)).code).toBe(2);
  expect((await run(bin, ['--help'], dataDir)).stdout).toMatch(
    /^Usage: institution-api-server credentials <subcommand>/,
  );
});

test('reports an unusable DATABASE_URL in one line, without the URL', async () => {
  const result = await issue(['--institution', 'X'], 'mysql://admin:hunter2@db/app');
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(
    /^issue-credentials: DATABASE_URL uses the unsupported scheme "mysql:\/\/"/,
  );
  expect(result.stderr).not.toContain('hunter2');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
});
