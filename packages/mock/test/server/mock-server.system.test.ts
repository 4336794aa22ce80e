/**
 * `institution-api-mock` as a user starts it: keys from INSTITUTION_CREDENTIALS or a demo pair
 * printed, answering signed requests at once, SIGTERM exits 0. Its start time is printed.
 */
import { signedRequest } from '@institution-api/test-support/signed-request';
import { describe, expect, it } from 'vitest';
import { INSTITUTIONS } from '../support/institutions.js';
import { startMockProcess } from '../support/mock-process.js';

const example = {
  email: 'kofi@example.com',
  firstName: 'Kofi',
  lastName: 'Asante',
  mobileNumber: '0241234567',
  ghanaCardNumber: 'GHA-123456789-0',
  monthlyIncome: 100,
};

async function create(url: string, publicKey: string, secretKey: string) {
  const request = signedRequest(
    'POST',
    `${url}/api/v1/external/users`,
    { publicKey, secretKey },
    {
      body: example,
      messageSignature: false,
    },
  );
  return fetch(request.url, request);
}

describe('institution-api-mock', () => {
  it('serves the keys of INSTITUTION_CREDENTIALS, and exits 0 on SIGTERM', {
    timeout: 60_000,
  }, async () => {
    const started = performance.now();
    const mock = await startMockProcess(INSTITUTIONS);
    const listening = performance.now() - started;
    const [first] = INSTITUTIONS;
    expect((await create(mock.url, first.publicKey, first.secretKey)).status).toBe(201);
    const answered = performance.now() - started;
    expect((await create(mock.url, first.publicKey, first.secretKey)).status).toBe(200);
    expect((await create(mock.url, 'nobody', first.secretKey)).status).toBe(401);
    console.log(
      `institution-api-mock: listening after ${listening.toFixed(0)} ms, first answer after ${answered.toFixed(0)} ms (process start included)`,
    );
    mock.child.kill('SIGTERM');
    expect(await mock.exited).toEqual([0, null]);
  });

  it('prints a demo pair that works when no credentials are given', {
    timeout: 60_000,
  }, async () => {
    const mock = await startMockProcess();
    try {
      const publicKey = /INSTITUTION_PUBLIC_KEY=(\S+)/.exec(mock.output())?.[1] ?? '';
      const secretKey = /INSTITUTION_SECRET_KEY=(\S+)/.exec(mock.output())?.[1] ?? '';
      expect(publicKey).not.toBe('');
      expect((await create(mock.url, publicKey, secretKey)).status).toBe(201);
    } finally {
      await mock.stop();
    }
  });

  it('refuses credentials it cannot read, naming the field, exit 2', {
    timeout: 60_000,
  }, async () => {
    await expect(startMockProcess([{ institution: 'A', publicKey: 'a:b' }])).rejects.toThrow(
      /exited \(2\)[\s\S]*INSTITUTION_CREDENTIALS\[0\]\.secretKey must be a non-empty string/,
    );
  });
});
