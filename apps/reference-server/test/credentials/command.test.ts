import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runCredentialsCommand } from '../../src/credentials/command/run.js';
import {
  keyFileOf,
  parseEncryptionKey,
  randomEncryptionKey,
} from '../../src/credentials/encryption-key.js';
import { openStorage, sqliteFileName } from '../../src/storage/open-storage.js';

let scratch: string;
let dataDir: string;
let round = 0;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'reference-server-command-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  round += 1;
  dataDir = join(scratch, `db-${round}`);
});

/** A fixed clock: 2030-01-01T00:00:00Z. */
const now = Date.parse('2030-01-01T00:00:00.000Z');

/** Runs the command in this process on `dataDir`; its exit code and what it wrote. */
async function credentials(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCredentialsCommand(args, {
    io: {
      env: { DATABASE_URL: dataDir, ...env },
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      now: () => now,
    },
  });
  const logs = stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, stdout, stderr, logs };
}

/** Issues a pair; the printed JSON. */
async function issued(institution: string, ...more: string[]) {
  const result = await credentials(['issue', '--institution', institution, ...more]);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as {
    institution: string;
    publicKey: string;
    secretKey: string;
    signaturePolicy: string;
    expiresAt: string | null;
  };
}

const me = userInfo().username;

describe('issue', () => {
  test('prints a fresh pair as JSON, the one time its secret is shown, and logs the event without it', async () => {
    const result = await credentials(['issue', '--institution', '  Alpha Savings ']);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(Object.keys(printed)).toEqual([
      'institution',
      'publicKey',
      'secretKey',
      'signaturePolicy',
      'expiresAt',
    ]);
    expect(printed).toMatchObject({
      institution: 'Alpha Savings',
      signaturePolicy: 'any',
      expiresAt: null,
    });
    expect(result.logs).toEqual([
      expect.objectContaining({
        level: 'info',
        event: 'issued',
        publicKey: printed.publicKey,
        institution: 'Alpha Savings',
        actor: me,
      }),
    ]);
    expect(result.stderr).not.toContain(printed.secretKey);
    const storage = await openStorage(dataDir, { defaultDataDir: '/nonexistent' });
    try {
      expect(await storage.findCredential(printed.publicKey)).toMatchObject({
        institution: 'Alpha Savings',
        secretKey: printed.secretKey,
        expiresAt: null,
        revokedAt: null,
        signaturePolicy: 'any',
      });
    } finally {
      await storage.close();
    }
    // The key file beside the database, created by this first start: the secret is not in clear.
    expect(readFileSync(keyFileOf(join(dataDir, sqliteFileName)), 'utf8')).toMatch(/=\n$/);
    expect(readFileSync(join(dataDir, sqliteFileName)).includes(printed.secretKey)).toBe(false);
  });

  test('--expires-in sets when the pair expires', async () => {
    for (const [duration, ms] of [
      ['90s', 90_000],
      ['15m', 900_000],
      ['24h', 86_400_000],
      ['7d', 604_800_000],
    ] as const) {
      const printed = await issued('Alpha Savings', '--expires-in', duration);
      expect(printed.expiresAt).toBe(new Date(now + ms).toISOString());
    }
  });

  test.each([
    [[], '--institution is required.'],
    [['--institution', '  '], '--institution needs a value.'],
    [['--institution', 'A', '--expires-in', '10'], '--expires-in must be a duration above zero'],
    [['--institution', 'A', '--expires-in', '0s'], '--expires-in must be a duration above zero'],
    [['--institution', 'A', '--expires-in', '1w'], '--expires-in must be a duration above zero'],
    [['--institution', 'A', 'extra'], 'Unexpected argument "extra".'],
    [['--bank', 'A'], "Unknown option '--bank'"],
  ])('wrong usage %j: exit 2, why, and the usage', async (args, why) => {
    const result = await credentials(['issue', ...args]);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(why);
    expect(result.stderr).toContain(
      'Usage: credentials issue --institution NAME [--expires-in DURATION]',
    );
  });
});

describe('rotate', () => {
  test('issues a pair and sets the other active pairs to expire after the grace (24 h by default)', async () => {
    const first = await issued('Alpha Savings');
    const other = await issued('Beta Bank');
    const result = await credentials(['rotate', '--institution', 'Alpha Savings']);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({
      institution: 'Alpha Savings',
      publicKey: expect.stringMatching(/^pk_/),
      secretKey: expect.stringMatching(/^sk_/),
      expiresAt: null,
      others: [{ publicKey: first.publicKey, expiresAt: '2030-01-02T00:00:00.000Z' }],
    });
    expect(result.logs.map((line) => [line.event, line.publicKey])).toEqual([
      ['rotated', printed.publicKey],
      ['expiry-set', first.publicKey],
    ]);
    const again = await credentials(['rotate', '--institution', 'Alpha Savings', '--grace', '90s']);
    expect(JSON.parse(again.stdout).others).toEqual([
      // Never later than it was set to expire before.
      { publicKey: first.publicKey, expiresAt: '2030-01-01T00:01:30.000Z' },
      { publicKey: printed.publicKey, expiresAt: '2030-01-01T00:01:30.000Z' },
    ]);
    const list = JSON.parse((await credentials(['list', '--json'])).stdout);
    expect(list.find((r: { publicKey: string }) => r.publicKey === other.publicKey).expiresAt).toBe(
      null,
    );
  });

  test('--require-message-signature gives the new pair that policy, on record; without it, any', async () => {
    const first = await issued('Alpha Savings');
    expect(first.signaturePolicy).toBe('any');
    const result = await credentials([
      'rotate',
      '--institution',
      'Alpha Savings',
      '--require-message-signature',
    ]);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed.signaturePolicy).toBe('message-signature');
    const storage = await openStorage(dataDir, { defaultDataDir: '/nonexistent' });
    try {
      expect((await storage.findCredential(printed.publicKey))?.signaturePolicy).toBe(
        'message-signature',
      );
      expect((await storage.findCredential(first.publicKey))?.signaturePolicy).toBe('any');
    } finally {
      await storage.close();
    }
    const events = JSON.parse((await credentials(['log', '--json'])).stdout);
    expect(events.find((e: { what: string }) => e.what === 'rotated')).toMatchObject({
      publicKey: printed.publicKey,
      reason: expect.stringMatching(/^requires message signatures; /),
    });
    expect(events.find((e: { what: string }) => e.what === 'issued').reason).toBeNull();
  });

  test('an institution that does not exist: exit 1, one line; a bad grace: exit 2', async () => {
    await issued('Alpha Savings');
    const missing = await credentials(['rotate', '--institution', 'Nobody']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe(
      'credentials: No institution is named "Nobody" (credentials issue creates one).\n',
    );
    const bad = await credentials(['rotate', '--institution', 'Alpha Savings', '--grace', '1 day']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--grace must be a duration, a whole number and a unit');
  });
});

describe('revoke', () => {
  test('revokes once, with the reason; again or an unknown key: exit 1 and why', async () => {
    const pair = await issued('Alpha Savings');
    const result = await credentials(['revoke', pair.publicKey, '--reason', 'leaked in a ticket']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^Revoked ${pair.publicKey} \\(Alpha Savings\\) at \\S+: every server refuses it within 5 s\\.\\n$`,
      ),
    );
    expect(result.logs).toEqual([
      expect.objectContaining({ event: 'revoked', reason: 'leaked in a ticket', actor: me }),
    ]);
    const again = await credentials(['revoke', pair.publicKey]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/was revoked already, at \d{4}-/);
    const unknown = await credentials(['revoke', 'pk_nobody']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe('credentials: No key pair has the public key pk_nobody.\n');
    expect((await credentials(['revoke'])).code).toBe(2);
    expect((await credentials(['revoke', 'pk_a', 'pk_b'])).code).toBe(2);
  });
});

describe('list', () => {
  test('a table of the pairs (UTC, to the minute), or JSON; never a secret', async () => {
    const alpha = await issued('Alpha Savings', '--expires-in', '7d');
    const beta = await issued('Beta Bank', '--require-message-signature');
    expect(beta.signaturePolicy).toBe('message-signature');
    await credentials(['revoke', beta.publicKey, '--reason', 'closed']);
    const storage = await openStorage(dataDir, { defaultDataDir: '/nonexistent' });
    await storage.recordCredentialUse(alpha.publicKey);
    await storage.close();

    const table = await credentials(['list']);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'PUBLIC KEY',
      'INSTITUTION',
      'POLICY',
      'CREATED',
      'EXPIRES',
      'REVOKED',
      'LAST USED',
    ]);
    const minute = /\d{4}-\d\d-\d\d \d\d:\d\d/.source;
    expect(rows[0]).toMatch(
      new RegExp(
        `^${alpha.publicKey} +Alpha Savings +any +${minute} +2030-01-08 00:00 +- +${minute}$`,
      ),
    );
    expect(rows[1]).toMatch(
      new RegExp(`^${beta.publicKey} +Beta Bank +message-signature +${minute} +- +${minute} +-$`),
    );

    const json = await credentials(['list', '--json']);
    const listed = JSON.parse(json.stdout);
    expect(listed).toEqual([
      {
        publicKey: alpha.publicKey,
        institution: 'Alpha Savings',
        signaturePolicy: 'any',
        createdAt: expect.any(String),
        expiresAt: '2030-01-08T00:00:00.000Z',
        revokedAt: null,
        revokedReason: null,
        lastUsedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/),
      },
      expect.objectContaining({
        publicKey: beta.publicKey,
        signaturePolicy: 'message-signature',
        revokedReason: 'closed',
      }),
    ]);
    for (const output of [table.stdout, json.stdout]) {
      expect(output).not.toContain(alpha.secretKey);
      expect(output).not.toContain(beta.secretKey);
    }
    const one = JSON.parse(
      (await credentials(['list', '--json', '--institution', 'Beta Bank'])).stdout,
    );
    expect(one.map((r: { publicKey: string }) => r.publicKey)).toEqual([beta.publicKey]);
    const none = await credentials(['list', '--institution', 'Gamma']);
    expect(none).toMatchObject({
      code: 1,
      stderr: 'credentials: No institution is named "Gamma".\n',
    });
  });
});

describe('log', () => {
  test('every change, oldest first, with who did it and why', async () => {
    const alpha = await issued('Alpha Savings');
    await credentials(['rotate', '--institution', 'Alpha Savings', '--grace', '1h']);
    await credentials(['revoke', alpha.publicKey, '--reason', 'rotated out early']);
    const json = JSON.parse((await credentials(['log', '--json'])).stdout);
    expect(json.map((e: { what: string }) => e.what)).toEqual([
      'issued',
      'rotated',
      'expiry-set',
      'revoked',
    ]);
    expect(json[3]).toEqual({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      publicKey: alpha.publicKey,
      institution: 'Alpha Savings',
      what: 'revoked',
      reason: 'rotated out early',
      actor: me,
    });
    const table = await credentials(['log', '--institution', 'Alpha Savings']);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual([
      'TIME',
      'WHAT',
      'PUBLIC KEY',
      'INSTITUTION',
      'WHO',
      'REASON',
    ]);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^\\S+ \\S+ +revoked +${alpha.publicKey} +Alpha Savings +${me} +rotated out early$`,
      ),
    );
    expect((await credentials(['log', '--institution', 'Nobody'])).code).toBe(1);
  });
});

describe('the encryption key', () => {
  test('reencrypt moves every secret to CREDENTIALS_ENCRYPTION_KEY from the previous key, on record', async () => {
    const alpha = await issued('Alpha Savings');
    const beta = await issued('Beta Bank');
    const keyFile = readFileSync(keyFileOf(join(dataDir, sqliteFileName)), 'utf8').trim();
    const next = randomEncryptionKey().key.toString('base64');

    const noPrevious = await credentials(['reencrypt'], { CREDENTIALS_ENCRYPTION_KEY: next });
    expect(noPrevious.code).toBe(1);
    expect(noPrevious.stderr).toBe(
      'credentials: CREDENTIALS_ENCRYPTION_KEY_PREVIOUS is not set: reencrypt moves the secrets encrypted with it to the current key.\n',
    );
    // The new key alone does not open the secrets: refused in one line, nothing changed.
    const wrong = await credentials(['list'], { CREDENTIALS_ENCRYPTION_KEY: next });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /^credentials: The stored secret keys are encrypted with key id [0-9a-f]{16}, but CREDENTIALS_ENCRYPTION_KEY has key id [0-9a-f]{16}: /,
    );
    expect(wrong.stderr.trimEnd().split('\n')).toHaveLength(1);

    const both = { CREDENTIALS_ENCRYPTION_KEY: next, CREDENTIALS_ENCRYPTION_KEY_PREVIOUS: keyFile };
    const moved = await credentials(['reencrypt'], both);
    expect(moved).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Re-encrypted 2 secret keys;/),
    });
    expect(moved.logs.map((line) => line.event)).toEqual(['reencrypted', 'reencrypted']);
    expect((await credentials(['reencrypt'], both)).stdout).toMatch(/^Re-encrypted 0 secret keys;/);

    const storage = await openStorage(dataDir, {
      defaultDataDir: '/nonexistent',
      encryptionKeys: { current: parseEncryptionKey('CREDENTIALS_ENCRYPTION_KEY', next) },
    });
    try {
      expect((await storage.findCredential(alpha.publicKey))?.secretKey).toBe(alpha.secretKey);
      expect((await storage.findCredential(beta.publicKey))?.secretKey).toBe(beta.secretKey);
    } finally {
      await storage.close();
    }
    // The key file alone is the old key now: refused.
    expect((await credentials(['list'])).code).toBe(1);
  });

  test('PostgreSQL without a key: refused in one line saying how to make one, before connecting', async () => {
    const result = await credentials(['list'], {
      DATABASE_URL: 'postgres://admin:hunter2@127.0.0.1:1/none',
    });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      'credentials: CREDENTIALS_ENCRYPTION_KEY is required with PostgreSQL (every server process and the credentials command on one database need the same key): make one with `openssl rand -base64 32`.\n',
    );
    const bad = await credentials(['list'], { CREDENTIALS_ENCRYPTION_KEY: 'c2hvcnQ=' });
    expect(bad.stderr).toBe(
      'credentials: CREDENTIALS_ENCRYPTION_KEY must be 32 bytes in base64 (44 characters); make one with `openssl rand -base64 32`.\n',
    );
  });
});

describe('the command', () => {
  test('--help lists every subcommand (exit 0); no or another subcommand is wrong usage (exit 2)', async () => {
    const help = await credentials(['--help']);
    expect(help.code).toBe(0);
    for (const usage of [
      'credentials issue --institution NAME [--expires-in DURATION]',
      'credentials list [--institution NAME] [--json]',
      'credentials rotate --institution NAME [--grace DURATION]',
      'credentials revoke PUBLIC_KEY [--reason TEXT]',
      'credentials log [--institution NAME] [--json]',
      'credentials reencrypt',
    ]) {
      expect(help.stdout).toContain(usage);
    }
    expect(help.stdout).toContain('Exit status: 0 done, 1 not found or refused, 2 wrong usage.');
    expect((await credentials([])).code).toBe(2);
    const other = await credentials(['delete']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^credentials: "delete" is not a subcommand\./);
    expect((await credentials(['list', '--help'])).stdout).toMatch(
      /^Usage: credentials list \[--institution NAME\] \[--json\]/,
    );
  });
});
