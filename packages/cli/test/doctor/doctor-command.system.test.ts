/**
 * `institution-api doctor` as a process: the built executable reads a capture piped to it, exits
 * 1 with the cause of a signature that does not verify, and prints no secret.
 */
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/main.js';

const PUBLIC = 'pk_doctor_0123';
const SECRET = 'sk_Zm9vYmFyYmF6cXV4cXV1eA';
const VALUE = { email: 'ama@example.com', firstName: 'Ámà', lastName: 'Mensah' };

/** A capture of a request whose body was re-serialized after it was signed, in LF lines. */
function resignedCapture(): string {
  const pretty = JSON.stringify(VALUE, null, 2);
  const signature = createHmac('sha256', SECRET).update(JSON.stringify(VALUE)).digest('hex');
  return [
    'POST /api/v1/external/users HTTP/1.1',
    'Host: localhost:8080',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(pretty)}`,
    `Authorization: ${PUBLIC}:${signature}`,
    '',
    pretty,
  ].join('\n');
}

describe('the built executable', () => {
  const bin = fileURLToPath(new URL('../../bin/institution-api.js', import.meta.url));

  it('reads a capture piped to it and exits 1 with the cause', async () => {
    const child = execFile(process.execPath, [bin, 'doctor', '-'], {
      env: { ...process.env, INSTITUTION_SECRET_KEY: SECRET },
    });
    child.stdin?.end(resignedCapture());
    const [code, stdout] = await new Promise<[number | null, string]>((resolve) => {
      let out = '';
      child.stdout?.on('data', (chunk: string) => {
        out += chunk;
      });
      child.on('close', (exit) => resolve([exit, out]));
    });
    expect(code).toBe(EXIT.http);
    expect(stdout).toMatch(/invalid, body-bytes-differ/);
    expect(stdout).not.toContain(SECRET);
  });
});
