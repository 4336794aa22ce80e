import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as nodeEntry from '../src/node.js';
import {
  formatAuthorization,
  parseAuthorization,
  signBodySync,
  signQuerySync,
  signSync,
  verifySync,
} from '../src/node.js';
import { sign as webSign, verify as webVerify } from '../src/web-crypto.js';
import { SECRET, signingContract } from './support/contract.js';

signingContract('node:crypto (sync)', {
  sign: async (...args) => signSync(...args),
  signBody: async (...args) => signBodySync(...args),
  signQuery: async (...args) => signQuerySync(...args),
  verify: async (...args) => verifySync(...args),
});

describe('node:crypto entry point', () => {
  it('is synchronous', () => {
    expect(typeof signSync('{}', SECRET)).toBe('string');
    expect(typeof verifySync('{}', signSync('{}', SECRET), SECRET)).toBe('boolean');
    expect(typeof signBodySync({}, SECRET).signature).toBe('string');
  });

  it('re-exports the shared header helpers and defaults', () => {
    expect(nodeEntry.DEFAULT_SIGNATURE_OPTIONS).toEqual({ algorithm: 'sha256', encoding: 'hex' });
    const header = formatAuthorization('pk_test_1', signSync('{}', SECRET));
    expect(parseAuthorization(header)).toEqual({
      publicKey: 'pk_test_1',
      signature: signSync('{}', SECRET),
    });
  });

  it('verifySync accepts a Buffer holding the raw body (as express.raw provides it)', () => {
    const text = JSON.stringify({ firstName: 'Ɔsei' });
    expect(verifySync(Buffer.from(text, 'utf8'), signSync(text, SECRET), SECRET)).toBe(true);
  });

  it('agrees with the Web Crypto path on random bytes, lengths and options', async () => {
    for (let i = 0; i < 50; i++) {
      const message = new Uint8Array(randomBytes(i * 37));
      const secret = `test_secret_${randomBytes(1 + (i % 200)).toString('hex')}`;
      const options = {
        algorithm: i % 2 === 0 ? ('sha256' as const) : ('sha512' as const),
        encoding: i % 3 === 0 ? ('base64' as const) : ('hex' as const),
      };
      const signature = signSync(message, secret, options);
      expect(await webSign(message, secret, options)).toBe(signature);
      expect(await webVerify(message, signature, secret, options)).toBe(true);
    }
  });
});
