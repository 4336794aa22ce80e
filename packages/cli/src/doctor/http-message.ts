/**
 * A raw HTTP/1.1 request message (request line, header fields, an empty line, the body), as a
 * capture or a proxy's log holds it, read by Node's own HTTP parser (llhttp, the one every Node
 * server reads requests with): `Content-Length` and chunked bodies, and the body's bytes exactly.
 * Line ends of the header section may be bare LF, as text files and logs often write them.
 *
 * @module
 */
import { createServer, type IncomingMessage } from 'node:http';
import { Duplex } from 'node:stream';

/** A request as read from its message. */
export interface HttpRequestMessage {
  method: string;
  /** The request-target as written (`/api/v1/external/users`, or absolute-form). */
  target: string;
  /** Each field line's name (lower case) and value, in order. */
  fields: [name: string, value: string][];
  /** The body's bytes, as sent (decoded from chunks when chunked). */
  body: Uint8Array;
  /** Line ends (CR, LF) after the message that were left out, as an editor adds them. */
  ignoredTrailingBytes: number;
}

/** The message cannot be read; the message says why, in one line. */
export class UnreadableMessage extends Error {
  override readonly name = 'UnreadableMessage';
}

/** What llhttp's error codes mean, for a person reading a capture. */
const parserErrors: Record<string, string> = {
  HPE_INVALID_METHOD: 'it does not start with a request line (METHOD /path HTTP/1.1)',
  HPE_INVALID_URL: 'the request line has no valid request target',
  HPE_INVALID_VERSION: 'the request line does not end with HTTP/1.1 (or HTTP/1.0)',
  HPE_INVALID_HEADER_TOKEN: 'a header line is not "Name: value"',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'it has both Content-Length and Transfer-Encoding',
  HPE_INVALID_CHUNK_SIZE: 'a chunk of the chunked body has no valid size',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is not one this reader knows (chunked)',
  HPE_CR_EXPECTED: 'a line ends with CR without LF',
  HPE_LF_EXPECTED: 'a line ends with CR without LF',
  HPE_HEADER_OVERFLOW: 'the header section is larger than 16 KiB',
};

/**
 * Reads `bytes` as one HTTP/1.1 request message; throws {@link UnreadableMessage} saying why
 * when they are not one: no request line, a header line without `:`, a body shorter than its
 * `Content-Length`, bytes after the message's end (a body without `Content-Length`), or nothing
 * at all.
 */
export async function readHttpRequest(bytes: Uint8Array): Promise<HttpRequestMessage> {
  if (bytes.length === 0) throw new UnreadableMessage('the input is empty');
  const headerEnd = endOfHeaderSection(bytes);
  if (headerEnd === undefined) {
    throw new UnreadableMessage(
      'no empty line ends the header section: a request message is a request line, header lines, an empty line, then the body',
    );
  }
  const head = Buffer.from(bytes.subarray(0, headerEnd.start))
    .toString('latin1')
    .replace(/\r?\n/g, '\r\n');
  const rest = bytes.subarray(headerEnd.end);
  const trailing = /[\r\n]*$/.exec(Buffer.from(rest).toString('latin1'))?.[0].length ?? 0;
  const normalized = Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), rest]);
  let parsed = await parse(normalized);
  let cut = 0;
  // Line ends after the body (an editor's final newline) are not part of it: left out, and said.
  while (parsed.leftover && cut < Math.min(trailing, 8)) {
    cut++;
    const shorter = await parse(normalized.subarray(0, normalized.length - cut)).catch(
      () => undefined,
    );
    if (shorter === undefined) break;
    parsed = shorter;
  }
  const fields: [string, string][] = [];
  for (let i = 0; i + 1 < parsed.request.rawHeaders.length; i += 2) {
    fields.push([
      (parsed.request.rawHeaders[i] as string).toLowerCase(),
      parsed.request.rawHeaders[i + 1] as string,
    ]);
  }
  if (parsed.leftover) {
    const framed = fields.some(
      ([name]) => name === 'content-length' || name === 'transfer-encoding',
    );
    // What follows a message's end can only be a body its header section did not announce.
    throw new UnreadableMessage(
      framed
        ? `bytes follow the end of the message, after the ${parsed.body.length} bytes of body it announces: is Content-Length right?`
        : `${rest.length} bytes follow the header section, but no Content-Length (or Transfer-Encoding: chunked) says there is a body: add Content-Length: ${rest.length - trailing}`,
    );
  }
  return {
    method: parsed.request.method ?? '',
    target: parsed.request.url ?? '',
    fields,
    body: new Uint8Array(parsed.body),
    // An editor's final newline after a body framed by Content-Length: read past, and said.
    ignoredTrailingBytes:
      cut +
      (fields.some(([name]) => name === 'transfer-encoding')
        ? 0
        : rest.length - cut - parsed.body.length),
  };
}

/** Where the empty line that ends the header section is: its first byte, and the byte after it. */
function endOfHeaderSection(bytes: Uint8Array): { start: number; end: number } | undefined {
  const text = Buffer.from(bytes).toString('latin1');
  const found = /\r?\n\r?\n/.exec(text);
  return found ? { start: found.index, end: found.index + found[0].length } : undefined;
}

/**
 * Feeds `message` to a Node HTTP server (never listening) through an in-memory connection, and
 * resolves with the request it read and its body, or rejects with the parser's reason.
 */
function parse(
  message: Buffer,
): Promise<{ request: IncomingMessage; body: Buffer; leftover: boolean }> {
  return new Promise((resolve, reject) => {
    const server = createServer({ requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 0 });
    const connection = new Duplex({
      read() {},
      write(_chunk, _encoding, done) {
        done();
      },
    });
    let request: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let ended = false;
    let leftover = false;
    let failed = false;
    const fail = (why: string) => {
      failed = true;
      reject(new UnreadableMessage(why));
    };
    const finish = () => {
      if (failed) return;
      if (request && ended) resolve({ request, body: Buffer.concat(chunks), leftover });
      else fail('the body ends before the Content-Length it announces');
    };
    server.on('request', (received: IncomingMessage) => {
      request ??= received;
      if (received !== request) return;
      received.on('data', (chunk: Buffer) => chunks.push(chunk));
      received.on('end', () => {
        ended = true;
      });
    });
    server.on('clientError', (error: { code?: string }) => {
      // After a whole request, the parser read on into what it took for a second one.
      if (request?.complete) {
        leftover = true;
        return;
      }
      fail(
        error.code === 'HPE_INVALID_EOF_STATE' || request
          ? 'the body ends before the Content-Length it announces (or a chunked body has no last chunk)'
          : (parserErrors[error.code ?? ''] ?? `it is not an HTTP/1.1 request (${error.code})`),
      );
    });
    connection.once('close', () => setImmediate(finish));
    server.emit('connection', connection);
    connection.push(message);
    connection.push(null);
  });
}
