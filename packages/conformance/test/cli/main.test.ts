import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@institution-api/test-support/free-port';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { recordingIo } from '../support/io.js';

const KEYS = {
  INSTITUTION_PUBLIC_KEY: 'cli-public',
  INSTITUTION_SECRET_KEY: 'cli-secret-never-printed',
};

describe('institution-api-conformance', () => {
  it('prints its usage for --help and exits 0', async () => {
    const { io, stdout } = recordingIo();
    expect(await main(['--help'], io)).toBe(0);
    expect(stdout()).toMatch(/^Usage:\n {2}institution-api-conformance run --base-url URL/);
  });

  it.each([
    [['run'], KEYS, /--base-url \(or INSTITUTION_API_URL\) is required/],
    [
      ['run', '--base-url', 'http://127.0.0.1:1'],
      {},
      /--public-key and --secret-key \(or INSTITUTION_PUBLIC_KEY and INSTITUTION_SECRET_KEY\) are required/,
    ],
    [['run', '--base-url', 'ftp://x'], KEYS, /must be an http or https URL/],
    [
      ['run', '--base-url', 'http://x', '--rate', 'fast'],
      KEYS,
      /--rate must be a whole number >= 0/,
    ],
    [
      ['run', '--base-url', 'http://x', '--algorithm', 'md5'],
      KEYS,
      /--algorithm must be one of sha256, sha512/,
    ],
    [
      ['run', '--base-url', 'http://x', '--other-public-key', 'b'],
      KEYS,
      /--other-secret-key .* is required with the public key/,
    ],
    [
      ['run', '--base-url', 'http://x', '--spec', '/nonexistent.yaml'],
      KEYS,
      /cannot read the spec \/nonexistent.yaml \(ENOENT\)/,
    ],
    [['run', '--bogus'], KEYS, /Unknown option '--bogus'/],
    [['frobnicate'], KEYS, /unknown command 'frobnicate'/],
  ])('%j is a usage error (exit 2) naming the problem, never a key', async (args, env, message) => {
    const { io, stderr } = recordingIo(env);
    expect(await main(args, io)).toBe(2);
    expect(stderr()).toMatch(message);
    expect(stderr()).not.toContain(KEYS.INSTITUTION_SECRET_KEY);
  });

  it('exits 2 with one line naming the URL and the cause when the service cannot be reached', async () => {
    const port = await freePort();
    const { io, stderr, stdout } = recordingIo({
      ...KEYS,
      INSTITUTION_API_URL: `http://127.0.0.1:${port}`,
    });
    expect(await main(['run'], io)).toBe(2);
    expect(stderr()).toBe(
      `institution-api-conformance: cannot reach http://127.0.0.1:${port}: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
    expect(stdout()).toBe('');
  });

  it('--dry-run prints the plan and sends nothing', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests++;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { io, stdout } = recordingIo({
        ...KEYS,
        INSTITUTION_OTHER_PUBLIC_KEY: 'cli-other',
        INSTITUTION_OTHER_SECRET_KEY: 'cli-other-secret',
      });
      expect(
        await main(
          ['run', '--base-url', url, '--dry-run', '--seed', '9', '--max-examples', '4'],
          io,
        ),
      ).toBe(0);
      expect(stdout()).toContain(`service:      ${url}`);
      expect(stdout()).toContain('institutions: first cli-public; second cli-other');
      expect(stdout()).toContain('seed 9; at most 3000 requests');
      expect(stdout()).toContain(
        'invalid data:   8 examples, one labelled mutation each (negative_data_rejection)',
      );
      expect(stdout()).not.toMatch(/cli-secret|cli-other-secret/);
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });
});
