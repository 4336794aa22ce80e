/**
 * `institution-api mcp`: the API's operations as tools of a Model Context Protocol server, so an
 * AI agent can call the signed API without ever holding the secret key. The keys come from the
 * environment, as for every command of the CLI; the server signs each request inside (the seed's
 * `Authorization` and an RFC 9421 message signature, through the users client) and sends it to
 * INSTITUTION_API_URL only: a model chooses a body and an id, never a URL, a header or a key.
 * Over stdio by default (the MCP client starts it); `--http` serves Streamable HTTP at `/mcp`
 * on loopback (mcp-http.ts).
 *
 * @module
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createUsersClient, DEFAULT_RETRY, DEFAULT_TIMEOUT_MS } from '@institution-api/client';
import { parseShutdownDrainMs, stopRequested } from '@institution-api/runtime/server-stop';
import { openapiDocument } from '@institution-api/types';
import { type CliIo, DEFAULT_API_URL, EXIT, SIGNING_HELP } from '../cli-io.js';
import {
  checkedApiUrl,
  flagValue,
  httpUrl,
  localListenerFlags,
  messageSignaturesFlag,
  portFlag,
  signatureFlags,
  signingFlags,
  UsageError,
} from '../command-line.js';
import { isLoopback, parseAllowedHost, parseAllowedOrigin } from '../request-addressee.js';
import { resolveToken } from './bearer-token.js';
import { startMcpHttp } from './mcp-http.js';
import { mcpServerFactory } from './mcp-server.js';
import { serveMcpStdio } from './mcp-stdio.js';
import { docResources } from './resources.js';
import { argumentChecks } from './tool-arguments.js';
import { type ToolCall, toolCalls } from './tool-calls.js';
import { deriveOperationTools } from './tool-definitions.js';

/** What `mcp` needs beyond the other commands' outside world. */
export interface McpIo extends CliIo {
  /** Where the stdio transport reads messages; `process.stdin` by default. */
  stdin?: Readable;
  /** Where the stdio transport writes messages; `process.stdout` by default. */
  messages?: Writable;
  /** Settles when the server should stop; by default the first SIGTERM or SIGINT. */
  stop?: Promise<unknown>;
}

/** The keys a server needs, named in the one line it prints without them. */
const keyVariables = ['INSTITUTION_PUBLIC_KEY', 'INSTITUTION_SECRET_KEY'] as const;

/** The `mcp --help` text; it names the environment variables, never their values. */
export function mcpUsage(): string {
  return `Usage:
  institution-api mcp [--strict-schemas]      an MCP server over stdio (an MCP client starts it)
  institution-api mcp --http [--port N] [--host ADDRESS] [--token-file FILE]
                      [--allow-host NAME[:PORT]]... [--allow-origin ORIGIN]... [--strict-schemas]
                                              the same over Streamable HTTP at /mcp

Offers the API's operations as tools named by their operationId (createUser, updateUser), their
schemas read from the spec, and the spec and the docs for agents (llms.txt) as resources. Speaks
MCP 2026-07-28 and the 2025 revisions (2025-11-25 and earlier), as each client asks. A call's
arguments are checked against the spec first: one that breaks a rule is a tool error naming the
field, and nothing is sent. Each call is signed inside the server with INSTITUTION_PUBLIC_KEY and
INSTITUTION_SECRET_KEY (Authorization and an RFC 9421 message signature) and sent to
INSTITUTION_API_URL only; a problem the service answers is a tool error. A call the client
cancels stops at once, its request and any retry; while it retries, a client that asked for
progress is told of each attempt. The secret key is in no tool, result, error or log line. Logs
go to stderr, one line per call.
Over HTTP it listens on 127.0.0.1, prints "listening on http://127.0.0.1:PORT/mcp", and requires
a bearer token on every request ("Authorization: Bearer <token>"; 401 without it): the one in
INSTITUTION_MCP_TOKEN or in --token-file, or else a new one it prints once, before that line, and
never again. It answers only requests addressed to it (Host 127.0.0.1:PORT, localhost:PORT,
[::1]:PORT, or a name given with --allow-host): another Host gets a 421, a web page of another
origin a 403 (DNS rebinding).
SIGTERM or Ctrl-C stops it after the calls in flight (at most SHUTDOWN_DRAIN_MS, default 10000);
a call still running then is cut and answered with an error saying so. Over stdio, the end of its
input stops it too.

Options:
  --http                      serve Streamable HTTP at /mcp instead of stdio
  --port N                    with --http: port to listen on (default: any free port)
  --host ADDRESS              with --http: address to listen on (default 127.0.0.1); any other
                              address lets whoever reaches it and has the token call the API
                              with your keys
  --token-file FILE           with --http: the bearer token, the first line of FILE (instead of
                              INSTITUTION_MCP_TOKEN or a new one)
  --allow-host NAME[:PORT]    with --http: a further name it answers to; repeatable
  --allow-origin ORIGIN       with --http: a web page's origin that may call it; repeatable
  --strict-schemas            input schemas in the strict subset of JSON Schema that OpenAI's
                              strict function calling takes: every property required, null for
                              one left out, rules in the descriptions (the server checks them)
${SIGNING_HELP}  INSTITUTION_MCP_TOKEN       with --http: the bearer token (at least 22 characters)
`;
}

/**
 * Runs `institution-api mcp <args>` and resolves to its exit code once the server has stopped:
 * 0, or 2 for a usage error, missing keys or an address it cannot listen on. It never rejects.
 */
export async function mcp(args: string[], io: McpIo): Promise<number> {
  try {
    return await run(args, io);
  } catch (error) {
    // Messages name the bad setting, never its value, so the secret cannot leak through them.
    const message = error instanceof Error ? error.message : String(error);
    const hint = error instanceof UsageError ? 'Run institution-api mcp --help for usage.\n' : '';
    io.stderr(`institution-api mcp: ${message}\n${hint}`);
    return EXIT.usage;
  }
}

async function run(args: string[], io: McpIo): Promise<number> {
  const values = parse(args);
  if (values.help) {
    io.stdout(mcpUsage());
    return EXIT.ok;
  }
  const missing = keyVariables.filter((name) => !io.env[name]);
  if (missing.length > 0) {
    io.stderr(
      `institution-api mcp: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: set ${keyVariables.join(' and ')} (the institution's key pair) and INSTITUTION_API_URL (the service; default ${DEFAULT_API_URL}) in the environment the MCP client starts it with (its "env").\n`,
    );
    return EXIT.usage;
  }
  if (!values.http) {
    for (const flag of ['port', 'host', 'allow-host', 'allow-origin', 'token-file'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} is an option of --http`);
    }
  }
  const signature = signatureFlags(values);
  const messageSignatures = messageSignaturesFlag(values);
  const baseUrl = checkedApiUrl(io.env.INSTITUTION_API_URL || DEFAULT_API_URL);
  const service = httpUrl('INSTITUTION_API_URL', baseUrl);
  const drainMs = parseShutdownDrainMs(io.env.SHUTDOWN_DRAIN_MS?.trim() || undefined);
  const token = values.http ? await resolveToken(io.env, values['token-file']) : undefined;
  const client = createUsersClient({
    baseUrl,
    publicKey: io.env.INSTITUTION_PUBLIC_KEY ?? '',
    secretKey: io.env.INSTITUTION_SECRET_KEY ?? '',
    signature,
    messageSignatures,
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  const log = (line: string) => io.stderr(`institution-api mcp: ${line}\n`);
  const tools = deriveOperationTools(openapiDocument, { strictSchemas: values['strict-schemas'] });
  // Aborted once the drain is over: the calls still running are cut, each answered with an error.
  const stopping = new AbortController();
  const calls = inFlight(
    toolCalls({
      client,
      baseUrl,
      tools,
      check: argumentChecks(openapiDocument, tools),
      budget: { attempts: DEFAULT_RETRY.retries + 1, timeoutMs: DEFAULT_TIMEOUT_MS },
      log,
      stopping: stopping.signal,
    }),
  );
  const names = tools.map(({ tool }) => tool.name).join(', ');
  const { info } = openapiDocument;
  const createServer = mcpServerFactory({
    tools,
    call: calls.call,
    resources: docResources(),
    title: info.title,
    instructions: `${String(info.summary ?? info.title)} The tools ${names} send each request to ${service.origin}, signed inside this server with one institution's keys, which no tool shows. Read each tool's description: updateUser replaces every detail of the user. The resources are the spec and the docs for agents (start with llms.txt).`,
  });
  const signed = `signed (${signature.algorithm ?? 'sha256'}, ${signature.encoding ?? 'hex'}${messageSignatures ? ', and an RFC 9421 message signature' : ''})`;
  const schemas = values['strict-schemas'] ? ', strict input schemas' : '';
  const stop = io.stop ?? stopRequested(io.env);
  /** Lets the calls in flight finish within the drain, then cuts the rest, answered. */
  const settle = async () => {
    await calls.settled(drainMs);
    stopping.abort();
    await calls.settled(1_000);
  };

  if (values.http && token) {
    const host = values.host ?? '127.0.0.1';
    const port = portFlag(values.port);
    const allowHosts = (values['allow-host'] ?? []).map((value) =>
      flagValue(parseAllowedHost, value),
    );
    const allowOrigins = (values['allow-origin'] ?? []).map((value) =>
      flagValue(parseAllowedOrigin, value),
    );
    if (token.warning) log(token.warning);
    if (!isLoopback(host)) {
      log(
        `warning: listening on ${host}, not on a loopback address: anyone who can reach it and has the token can call the API with your keys.`,
      );
    }
    const http = await startMcpHttp({
      createServer,
      token,
      host,
      port,
      allowHosts,
      allowOrigins,
      log,
    }).catch((error: { code?: string; message?: string }) => {
      const why =
        error.code === 'EADDRINUSE'
          ? 'the port is in use (EADDRINUSE)'
          : (error.code ?? error.message);
      throw new Error(`cannot listen on ${host}:${port}: ${why}`);
    });
    if (token.source === 'generated') {
      io.stdout(
        `token ${token.value}\n  (send it as "Authorization: Bearer <token>"; it is not shown again: set INSTITUTION_MCP_TOKEN or --token-file to keep one)\n`,
      );
    }
    io.stdout(`listening on ${http.url}\n`);
    log(
      `tools ${names} for ${service.origin}, ${signed}${schemas}, over Streamable HTTP; bearer token ${token.source === 'generated' ? 'generated' : `from ${token.source}`}; SIGTERM or Ctrl-C stops it.`,
    );
    await stop;
    const closed = http.stopAccepting(drainMs + 2_000);
    await settle();
    await http.close();
    await closed;
    return EXIT.ok;
  }

  const stdio = serveMcpStdio({
    createServer,
    input: io.stdin ?? process.stdin,
    output: io.messages ?? process.stdout,
    log,
  });
  log(
    `tools ${names} for ${service.origin}, ${signed}${schemas}, over stdio; SIGTERM or the end of its input stops it.`,
  );
  // The end of the input is the client gone: the SDK aborts what is in flight, as it should.
  await Promise.race([stop, stdio.ended]);
  await settle();
  await stdio.close();
  return EXIT.ok;
}

/** The calls, counted while they run, so a stop can wait for those in flight. */
function inFlight(call: ToolCall): { call: ToolCall; settled(ms: number): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  return {
    call: (name, args, context) => {
      const result = call(name, args, context);
      running.add(result);
      result.finally(() => running.delete(result)).catch(() => {});
      return result;
    },
    settled: async (ms) => {
      if (running.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, ms);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        http: { type: 'boolean' },
        'token-file': { type: 'string' },
        'strict-schemas': { type: 'boolean' },
        ...localListenerFlags,
        ...signingFlags,
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
