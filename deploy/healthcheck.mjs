// @ts-check
// The image's HEALTHCHECK (deploy/Dockerfile): GET /healthz of the server in this container, exit
// 0 on 200 and 1 otherwise. A slim image has no curl; node's fetch does the same. The server
// answers 200 once its database answers within 2 s, else 503 (its README, "Endpoints").
// The server's own defaults; an empty variable counts as unset, as for the server.
const { PORT, HOST } = process.env;
const port = PORT || '8080';
const host = HOST || '127.0.0.1';
// A server listening on every interface is reached on the loopback one; one bound to a single
// address, on that address.
const address = ['0.0.0.0', '::'].includes(host)
  ? '127.0.0.1'
  : host.includes(':')
    ? `[${host}]`
    : host;
try {
  const response = await fetch(`http://${address}:${port}/healthz`, {
    signal: AbortSignal.timeout(4_000),
  });
  if (response.status !== 200) {
    console.error(`healthcheck: /healthz answered ${response.status}`);
    process.exit(1);
  }
} catch (caught) {
  const error = /** @type {Error & { cause?: { code?: string } }} */ (caught);
  console.error(`healthcheck: /healthz did not answer: ${error.cause?.code ?? error.message}`);
  process.exit(1);
}
