/**
 * Sockets for the tests of the import's `node:http` transport: listeners on loopback, and the
 * attempt they are sent.
 */
import type { AddressInfo, Server } from 'node:net';

/** A signal that never aborts. */
export const signal = () => new AbortController().signal;

/** An attempt that POSTs `{}` to `url` with no headers of its own. */
export const emptyPost = (url: string) => ({
  method: 'POST' as const,
  url,
  headers: {},
  body: '{}',
});

/** Listens on 127.0.0.1 and a free port; resolves to the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Resolves once `server` has closed. */
export function closed(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
