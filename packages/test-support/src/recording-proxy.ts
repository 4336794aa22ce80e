import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as it reached the proxy: its request line, header lines and body, as sent. */
export interface CapturedRequest {
  method: string;
  /** The request-target as written on the request line. */
  target: string;
  /** `1.1` or `1.0`. */
  httpVersion: string;
  /** Each header line's name (as sent) and value, in order, flat (`node:http`'s `rawHeaders`). */
  rawHeaders: string[];
  /** The body's bytes (decoded from chunks when chunked). */
  body: Buffer;
  /** When the proxy had read the whole request (ms since the epoch). */
  receivedAt: number;
}

/** One exchange the proxy saw: what a sample sent and what the server answered. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  /** The request as sent, to replay or to give a tool that reads captures. */
  request: CapturedRequest;
  /** The answer's header lines (flat, as `rawHeaders`) and body bytes. */
  answer: { rawHeaders: string[]; body: Buffer };
}

/** Options of {@link startRecordingProxy}. */
export interface RecordingProxyOptions {
  /**
   * Forward the `Host` lines as sent (the proxy's own address), instead of the target's: the
   * server then sees the request byte for byte as the program sent it, as a capture shows it.
   */
  keepHost?: boolean;
}

/**
 * The request as an HTTP/1.1 message, as a capture or a proxy's log holds it: the request line,
 * the header lines as sent, an empty line, the body (one chunk and the last chunk when it was
 * sent chunked). `institution-api doctor` reads this form.
 */
export function requestMessage(captured: CapturedRequest): Buffer {
  const lines = [`${captured.method} ${captured.target} HTTP/${captured.httpVersion}`];
  let chunked = false;
  for (let i = 0; i + 1 < captured.rawHeaders.length; i += 2) {
    const name = captured.rawHeaders[i] as string;
    const value = captured.rawHeaders[i + 1] as string;
    if (name.toLowerCase() === 'transfer-encoding' && /chunked/i.test(value)) chunked = true;
    lines.push(`${name}: ${value}`);
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (!chunked) return Buffer.concat([head, captured.body]);
  const size = Buffer.from(`${captured.body.length.toString(16)}\r\n`, 'latin1');
  const chunk =
    captured.body.length === 0 ? [] : [size, captured.body, Buffer.from('\r\n', 'latin1')];
  return Buffer.concat([head, ...chunk, Buffer.from('0\r\n\r\n', 'latin1')]);
}

/**
 * A reverse proxy in front of the reference server that records each exchange (the request as
 * sent, and the answer), so the tests assert what the server really answered, whatever a sample
 * prints, and can give a captured request to the doctor. Bytes pass through untouched (the
 * signature covers them); the header lines too, in order and case, but for `Host` unless
 * `keepHost`.
 */
export async function startRecordingProxy(
  target: URL,
  options: RecordingProxyOptions = {},
): Promise<{
  url: string;
  exchanges: Exchange[];
  close: () => Promise<void>;
}> {
  const exchanges: Exchange[] = [];
  const server = createServer(async (incoming, outgoing) => {
    const body = await readBody(incoming);
    const captured: CapturedRequest = {
      method: incoming.method ?? '',
      target: incoming.url ?? '/',
      httpVersion: incoming.httpVersion,
      rawHeaders: [...incoming.rawHeaders],
      body,
      receivedAt: Date.now(),
    };
    const headers: string[] = [];
    for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
      const name = incoming.rawHeaders[i] as string;
      const value = incoming.rawHeaders[i + 1] as string;
      if (name.toLowerCase() === 'host' && !options.keepHost) headers.push(name, target.host);
      else headers.push(name, value);
    }
    const forward = request(
      {
        hostname: target.hostname,
        port: target.port,
        method: captured.method,
        path: captured.target,
        headers,
        setHost: false,
        agent: false,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const answerBody = Buffer.concat(chunks);
          exchanges.push({
            method: captured.method,
            path: captured.target,
            status: answer.statusCode ?? 0,
            request: captured,
            answer: { rawHeaders: [...answer.rawHeaders], body: answerBody },
          });
          const { 'transfer-encoding': _, ...answerHeaders } = answer.headers;
          outgoing.writeHead(answer.statusCode ?? 502, {
            ...answerHeaders,
            'content-length': String(answerBody.length),
          });
          outgoing.end(answerBody);
        });
      },
    );
    forward.on('error', (error) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`recording proxy: ${error.message}`);
    });
    forward.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function readBody(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', reject);
  });
}
