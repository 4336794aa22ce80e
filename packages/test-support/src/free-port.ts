import { createServer } from 'node:net';

/**
 * A TCP port of 127.0.0.1 that was free a moment ago. Another process can take it before the
 * caller binds it, so a caller that cannot afford that retries (see `startPostgres`).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
