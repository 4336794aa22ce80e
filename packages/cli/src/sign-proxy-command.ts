/**
 * `institution-api sign-proxy`: a local proxy that signs every request with the institution's
 * keys and forwards it to the service, so HTTP tools that cannot compute the signature (Redocly
 * Respect, Postman and Newman, curl without openssl) can call the API through it. The server is
 * `sign-proxy-server.ts`; this module reads the command line and the environment, prints where it
 * listens, and runs until SIGTERM or SIGINT (or, started by npm, until npm has gone), when it
 * finishes the requests in flight.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { createRequestSigning } from '@institution-api/client';
import { stopRequested } from '@institution-api/runtime/server-stop';
import { type CliIo, DEFAULT_API_URL, EXIT, SIGNING_HELP } from './cli-io.js';
import {
  flagValue,
  httpUrl,
  localListenerFlags,
  messageSignaturesFlag,
  portFlag,
  requiredEnv,
  signatureFlags,
  signingFlags,
  UsageError,
} from './command-line.js';
import { isLoopback, parseAllowedHost, parseAllowedOrigin } from './request-addressee.js';
import { startSigningProxy } from './sign-proxy-server.js';

/** What `sign-proxy` needs beyond the other commands' outside world. */
export interface SignProxyIo extends CliIo {
  /**
   * Settles when the proxy should stop; by default the first SIGTERM or SIGINT the process
   * receives (tests stop it themselves).
   */
  stop?: Promise<unknown>;
}

/** The `sign-proxy --help` text; it names the environment variables, never their values. */
export function signProxyUsage(): string {
  return `Usage:
  institution-api sign-proxy [--port N] [--host ADDRESS] [--target URL]
                             [--allow-host NAME[:PORT]]... [--allow-origin ORIGIN]...

Listens on http://127.0.0.1 and forwards every request it receives to the service, signed:
Authorization: <INSTITUTION_PUBLIC_KEY>:<HMAC of the body's exact bytes> (GET and HEAD: of the
JSON-stringified query) and an RFC 9421 message signature (Content-Digest, Signature-Input,
Signature) for the method and the service's URL replace any the request carries. The answer
comes back unchanged. Point any HTTP tool at the address it prints:
  listening on http://127.0.0.1:PORT
It signs only requests addressed to it: a Host other than 127.0.0.1:PORT, localhost:PORT,
[::1]:PORT (or the --host address, or an --allow-host name) gets a 421 problem, so that a web page
whose name resolves to this machine (DNS rebinding) cannot have requests signed; a request from a
web page of another origin (its Origin header) gets a 403. Neither is signed or forwarded.
It sends to the service only: the request's path is appended to the service's. A request target
that is not such a path (//host/..., '..' above the service's path, CONNECT) gets a 400 problem;
one in absolute-form (http://127.0.0.1:PORT/...) is read as its path when it names the proxy
itself, and gets a 421 otherwise. A request it cannot forward gets a 502 naming the cause.
SIGTERM or Ctrl-C stops it after the requests in flight.

Options:
  --port N                    port to listen on (default: any free port)
  --host ADDRESS              address to listen on (default 127.0.0.1); any other address lets
                              whoever reaches it send requests signed with your keys
  --target URL                the service's address (default INSTITUTION_API_URL)
  --allow-host NAME[:PORT]    a further name it answers to, as tools send it in Host (a
                              container's or a tunnel's name): NAME at any port, NAME:PORT at
                              that port only; repeatable
  --allow-origin ORIGIN       a web page's origin that may call it (https://docs.example.com);
                              repeatable; pages of its own origin may by default
${SIGNING_HELP}`;
}

/**
 * Runs `institution-api sign-proxy <args>` (the arguments after the command's name) and
 * resolves to its exit code once the proxy has stopped: 0, or 2 for a usage error or an address
 * it cannot listen on. It never rejects.
 */
export async function signProxy(args: string[], io: SignProxyIo): Promise<number> {
  try {
    return await run(args, io);
  } catch (error) {
    // Messages name the bad setting, never its value, so the secret cannot leak through them.
    const message = error instanceof Error ? error.message : String(error);
    const hint =
      error instanceof UsageError ? 'Run institution-api sign-proxy --help for usage.\n' : '';
    io.stderr(`institution-api sign-proxy: ${message}\n${hint}`);
    return EXIT.usage;
  }
}

async function run(args: string[], io: SignProxyIo): Promise<number> {
  const values = parse(args);
  if (values.help) {
    io.stdout(signProxyUsage());
    return EXIT.ok;
  }
  const signature = signatureFlags(values);
  const port = portFlag(values.port);
  const host = values.host ?? '127.0.0.1';
  const target = targetOf(values.target ?? (io.env.INSTITUTION_API_URL || DEFAULT_API_URL));
  const messageSignatures = messageSignaturesFlag(values);
  const allowHosts = (values['allow-host'] ?? []).map((value) =>
    flagValue(parseAllowedHost, value),
  );
  const allowOrigins = (values['allow-origin'] ?? []).map((value) =>
    flagValue(parseAllowedOrigin, value),
  );
  const signing = createRequestSigning({
    publicKey: requiredEnv(io.env, 'INSTITUTION_PUBLIC_KEY'),
    secretKey: requiredEnv(io.env, 'INSTITUTION_SECRET_KEY'),
    signature,
    messageSignatures,
  });

  if (!isLoopback(host)) {
    io.stderr(
      `institution-api sign-proxy: warning: listening on ${host}, not on a loopback address: anyone who can reach it can send requests signed with your keys.\n`,
    );
  }
  const proxy = await startSigningProxy({
    target,
    signing,
    host,
    port,
    allowHosts,
    allowOrigins,
    log: (line) => io.stderr(`institution-api sign-proxy: ${line}\n`),
  }).catch((error: { code?: string; message?: string }) => {
    const why =
      error.code === 'EADDRINUSE'
        ? 'the port is in use (EADDRINUSE)'
        : (error.code ?? error.message);
    throw new Error(`cannot listen on ${host}:${port}: ${why}`);
  });
  io.stdout(`listening on ${proxy.url}\n`);
  io.stderr(
    `institution-api sign-proxy: forwarding to ${target.origin}${target.pathname}, signed (${signature.algorithm ?? 'sha256'}, ${signature.encoding ?? 'hex'}${messageSignatures ? ', and an RFC 9421 message signature' : ''}); SIGTERM or Ctrl-C stops it.\n`,
  );
  const why = await (io.stop ?? stopRequested(io.env));
  if (why === 'orphaned') {
    io.stderr(
      'institution-api sign-proxy: npm, which started it, has exited (SIGTERM to npx?): stopping.\n',
    );
  }
  await proxy.close();
  return EXIT.ok;
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        ...localListenerFlags,
        target: { type: 'string' },
        ...signingFlags,
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The service's address, http or https; its credentials, if any, are never echoed. */
function targetOf(value: string): URL {
  return httpUrl('--target (or INSTITUTION_API_URL)', value);
}
