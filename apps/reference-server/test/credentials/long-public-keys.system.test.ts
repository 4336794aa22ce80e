// A public key longer than 128 characters (spec: `InstitutionSignature`, "Keys") that an earlier
// release provisioned keeps working after the upgrade, through the built server: provisioned again
// from the same INSTITUTION_CREDENTIALS, and signing. A new one stops the start with one line.
import { execFile as execFileCallback } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  referenceServerMain,
  startReferenceServer,
  testCredentialsEncryptionKey,
} from '@institution-api/test-support/reference-server';
import { signedRequest } from '@institution-api/test-support/signed-request';
import { distinctUserBody } from '@institution-api/test-support/user-bodies';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseEncryptionKey } from '../../src/credentials/encryption-key.js';
import { openStorage } from '../../src/storage/open-storage.js';

const execFile = promisify(execFileCallback);
const legacy = {
  institution: 'Legacy Savings',
  publicKey: `pk_${'l'.repeat(197)}`,
  secretKey: 'legacy-secret-0123456789',
};

describe('a 200-character public key an earlier release stored', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'long-public-key-'));
    // What the earlier release's provisioning wrote: the storage has no bound of its own.
    const storage = await openStorage(dir, {
      defaultDataDir: '/nonexistent',
      encryptionKeys: {
        current: parseEncryptionKey('CREDENTIALS_ENCRYPTION_KEY', testCredentialsEncryptionKey),
      },
    });
    try {
      await storage.upsertCredentials([legacy]);
    } finally {
      await storage.close();
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test('is provisioned again and signs (201); one character longer is no one', async () => {
    const server = await startReferenceServer({ databaseUrl: dir, credentials: [legacy] });
    try {
      const users = `${server.url}/api/v1/external/users`;
      const request = signedRequest('POST', users, legacy, { body: distinctUserBody() });
      expect((await fetch(request.url, request)).status).toBe(201);
      const longer = { ...legacy, publicKey: `${legacy.publicKey}x` };
      const refused = signedRequest('POST', users, longer, { body: distinctUserBody() });
      expect((await fetch(refused.url, refused)).status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  test('a new key of 129 characters stops the start with one line naming its entry', async () => {
    const fresh = { ...legacy, publicKey: `pk_${'n'.repeat(126)}` };
    const started = execFile(process.execPath, [referenceServerMain()], {
      env: {
        ...process.env,
        DATABASE_URL: dir,
        PORT: '0',
        HOST: '127.0.0.1',
        CREDENTIALS_ENCRYPTION_KEY: testCredentialsEncryptionKey,
        INSTITUTION_CREDENTIALS: JSON.stringify([legacy, fresh]),
      },
    });
    const failed = (await started.catch((error: unknown) => error)) as {
      code: number;
      stderr: string;
    };
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(
      'INSTITUTION_CREDENTIALS[1].publicKey must be at most 128 characters',
    );
    expect(failed.stderr).not.toContain(legacy.secretKey);
  });
});
