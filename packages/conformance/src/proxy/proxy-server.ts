import {
  createServer,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Outcome } from '../checks/catalog.js';
import { responseOutcomes } from '../checks/response-checks.js';
import { answerOf, type Exchange } from '../http/exchange.js';
import { type Contract, matchOperation } from '../spec/contract.js';
import { type ReceivedRequest, requestOutcome } from './request-checks.js';

/** A violation the proxy saw on one exchange. */
export interface Violation extends Outcome {
  method: string;
  path: string;
  status: number | null;
}

/** Where to listen and forward, and what to tell about each exchange. */
export interface ProxyOptions {
  contract: Contract;
  /** The service, `http(s)://host[:port][/base]`. */
  target: string;
  host: string;
  port: number;
  /** Every outcome of every exchange, passed or not. */
  onOutcome(
    outcome: Outcome,
    exchange: { method: string; path: string; status: number | null },
  ): void;
}

/** A running proxy. */
export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

/** Connection headers of one hop (RFC 9110 §7.6.1): never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

function forwardable(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) result[name] = value;
  }
  return result;
}

/**
 * A transparent validation proxy: each request is forwarded to the target with its body byte for
 * byte (so its signature stays valid) and the target's answer goes back byte for byte; meanwhile
 * both are checked against the contract (the request with `request_conformance`, the answer with
 * every answer check, and an invalid request answered 2xx as `negative_data_rejection`). Answers
 * are never changed, whatever the checks find.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.target);
  const secure = target.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const basePath = target.pathname.replace(/\/+$/, '');
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = incoming.url ?? '/';
      const forward = (secure ? httpsRequest : httpRequest)(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port || (secure ? 443 : 80),
          method: incoming.method,
          path: `${basePath}${url}`,
          headers: {
            ...forwardable(incoming.headers),
            host: target.host,
            'content-length': String(body.length),
          },
          agent,
        },
        (answer) => {
          const answerChunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
          answer.on('end', () => {
            const answerBody = Buffer.concat(answerChunks);
            const headers = forwardable(answer.headers);
            outgoing.writeHead(answer.statusCode ?? 502, {
              ...headers,
              'content-length': String(answerBody.length),
            });
            outgoing.end(answerBody);
            check(
              options,
              incoming.method ?? 'GET',
              url,
              incoming.headers,
              body,
              answer.statusCode ?? 0,
              answer.headers,
              answerBody,
            );
          });
          answer.on('error', () => outgoing.destroy());
        },
      );
      forward.on('error', (error: NodeJS.ErrnoException) => {
        const detail = `the proxy could not reach ${options.target}: ${error.code ?? error.message}`;
        outgoing.writeHead(502, { 'content-type': 'application/problem+json' });
        outgoing.end(
          JSON.stringify({
            type: 'urn:institution-api-conformance:proxy-error',
            title: 'Bad Gateway',
            status: 502,
            detail,
          }),
        );
        const path = url.split('?')[0] ?? url;
        const matched = matchOperation(options.contract.operations, incoming.method ?? 'GET', path);
        options.onOutcome(
          {
            check: 'not_a_server_error',
            operation: matched?.operation.id ?? `${incoming.method} ${path}`,
            ok: false,
            message: `no answer: ${error.code ?? error.message}`,
          },
          { method: incoming.method ?? 'GET', path, status: null },
        );
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

function check(
  options: ProxyOptions,
  method: string,
  url: string,
  requestHeaders: IncomingHttpHeaders,
  requestBody: Buffer,
  status: number,
  answerHeaders: IncomingHttpHeaders,
  answerBody: Buffer,
) {
  const path = url.split('?')[0] ?? url;
  const where = { method, path, status };
  const matched = matchOperation(options.contract.operations, method, path);
  if (!matched) {
    options.onOutcome(
      {
        check: 'request_conformance',
        operation: `${method} ${path}`,
        ok: false,
        message: `${method} ${path} is not an operation of the spec`,
      },
      where,
    );
    return;
  }
  const flat = (headers: IncomingHttpHeaders) =>
    Object.fromEntries(
      Object.entries(headers).flatMap(([name, value]) =>
        value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
      ),
    );
  const received: ReceivedRequest = {
    method,
    pathname: path,
    headers: flat(requestHeaders),
    body: requestBody,
  };
  const requestResult = requestOutcome(
    options.contract,
    matched.operation,
    matched.parameters,
    received,
  );
  const exchange: Exchange = {
    operation: matched.operation,
    request: {
      method,
      url,
      target: url,
      headers: received.headers,
      authorization: { kind: 'literal', value: '(as the client sent it)' },
    },
    answer: answerOf(status, flat(answerHeaders), new Uint8Array(answerBody)),
  };
  const outcomes = [requestResult, ...responseOutcomes(options.contract, exchange)];
  if (!requestResult.ok && requestResult.message?.includes('breaks the schema')) {
    const accepted = status >= 200 && status < 300;
    outcomes.push({
      check: 'negative_data_rejection',
      operation: matched.operation.id,
      ok: !accepted,
      ...(accepted
        ? {
            message: `a body that breaks the schema was answered ${status}: the service accepted invalid data`,
          }
        : {}),
    });
  }
  for (const outcome of outcomes) options.onOutcome(outcome, where);
}
