/**
 * The published vectors' signatures recomputed with the `openssl` command line (another program
 * of the machine, so the system tier), independently of the code under test and of node:crypto
 * (test-vectors.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bodyBytes, vectors } from './support/vectors.js';

describe('test-vectors.json', () => {
  it.each(vectors.map((v) => [v.name, v] as const))(
    '%s: recomputed with the openssl command line',
    (_, v) => {
      const mac = execFileSync(
        'openssl',
        ['dgst', `-${v.algorithm}`, '-hmac', v.secretKey, '-binary'],
        {
          input: bodyBytes(v),
        },
      );
      expect(mac.toString(v.encoding)).toBe(v.signature);
    },
  );
});
