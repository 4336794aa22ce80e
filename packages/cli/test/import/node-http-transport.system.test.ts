/**
 * The import's `node:http` transport against an https service whose certificate openssl made
 * (another program of the machine, so the system tier): a self-signed certificate is refused, as
 * `fetch` refuses it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createNodeHttpTransport,
  type NodeHttpTransport,
} from '../../src/import/node-http-transport.js';
import { closed, emptyPost, listenOnLoopback, signal } from './sockets.js';

let transport: NodeHttpTransport | undefined;
afterEach(() => {
  transport?.close();
  transport = undefined;
});

describe('the import transport on node:http, over TLS', () => {
  it('checks the certificate of an https service: a self-signed one is refused, as fetch refuses it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'transport-tls-'));
    try {
      // openssl is installed by .ci/run (the docs' curl samples need it too).
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const tls = createHttpsServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (_request, response) => response.end('{}'),
      );
      const port = await listenOnLoopback(tls);
      transport = createNodeHttpTransport({ sockets: 1 });
      try {
        await expect(
          transport.send(emptyPost(`https://127.0.0.1:${port}/`), signal()),
        ).rejects.toMatchObject({
          message: 'fetch failed',
          cause: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
        });
      } finally {
        await closed(tls);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
