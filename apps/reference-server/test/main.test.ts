import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { formatAuthorization, signBodySync } from '@institution-api/signing/node';
import { describe, expect, test } from 'vitest';
import { mainJs, startBuiltServer } from './crash/built-server.js';

const credential = {
  institution: 'Main Test Bank',
  publicKey: 'pk_main_test',
  secretKey: 'sk_main_test_0123456789abcdef',
};

describe('node dist/main.js', () => {
  test('a fresh database gets a demo institution whose printed curl line works', async () => {
    const server = await startBuiltServer({ DATABASE_URL: 'memory://' });
    try {
      const banner = server.stdout();
      expect(banner).toMatch(/docs: http:\/\/localhost:\d+\/docs/);
      const publicKey = /public key: (\S+)/.exec(banner)?.[1];
      const secretKey = /secret key: (\S+)/.exec(banner)?.[1];
      const body = /--data-binary '([^']+)'/.exec(banner)?.[1];
      const authorization = /-H 'Authorization: ([^']+)'/.exec(banner)?.[1];
      expect(publicKey && secretKey && body && authorization).toBeTruthy();
      const answer = await fetch(`${server.baseUrl}/api/v1/external/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: authorization ?? '' },
        body,
      });
      expect(answer.status).toBe(201);
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  test('INSTITUTION_CREDENTIALS are provisioned and no demo is made', async () => {
    const server = await startBuiltServer({
      DATABASE_URL: 'memory://',
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
    });
    try {
      expect(server.stdout()).not.toContain('demo institution');
      const { text, signature } = signBodySync(
        {
          email: 'main.test@example.com',
          firstName: 'Main',
          lastName: 'Test',
          mobileNumber: '0241234567',
          ghanaCardNumber: 'GHA-111222333-4',
          monthlyIncome: 1,
        },
        credential.secretKey,
      );
      const answer = await fetch(`${server.baseUrl}/api/v1/external/users`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: formatAuthorization(credential, signature),
        },
        body: text,
      });
      expect(answer.status).toBe(201);
      // The secret reaches neither stdout nor stderr (the logs).
      expect(server.stdout() + server.stderr()).not.toContain(credential.secretKey);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('SIGTERM drains an in-flight request, then exits 0', async () => {
    const server = await startBuiltServer({
      DATABASE_URL: 'memory://',
      INSTITUTION_CREDENTIALS: JSON.stringify([credential]),
      LOG_LEVEL: 'info',
    });
    const { port } = new URL(server.baseUrl);
    // A request whose body has not fully arrived is in flight when the signal comes.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let response = '';
    socket.on('data', (chunk) => {
      response += chunk;
    });
    socket.write(
      'POST /api/v1/external/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.child.exitCode).toBeNull(); // still draining
    socket.write('}');
    expect(await server.exited).toBe(0);
    expect(response).toMatch(/^HTTP\/1\.1 401 /);
    expect(response).toMatch(/connection: close/i);
    expect(server.stdout()).toContain('"msg":"stopped"');
  });

  test('an invalid variable is a clear start-up error, exit 1, no stack trace', () => {
    const result = spawnSync(process.execPath, [mainJs], {
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', SIGNATURE_ENCODING: 'hexadecimal' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('PORT must be an integer from 0 to 65535, not "eighty".');
    expect(result.stderr).toContain('SIGNATURE_ENCODING must be one of hex, base64');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
