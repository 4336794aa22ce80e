/**
 * `institution-api mcp` over stdio (MCP: "Transports", stdio): the SDK's `serveStdio`, which
 * decides each connection's protocol revision from its first message (2026-07-28's
 * `server/discover` and per-request `_meta`, or a 2025 `initialize`), on the SDK's
 * `StdioServerTransport`, whose input is each line the client wrote that is a JSON-RPC message.
 * A line that is not (jsonrpc-check.ts) is answered here, `-32700` or `-32600`, and logged,
 * where the SDK would drop it without a word. Empty lines are skipped, as the SDK skips them.
 *
 * @module
 */
import { type Readable, Transform, type TransformCallback, type Writable } from 'node:stream';
import {
  type McpServerFactory,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  serializeMessage,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { checkMessage, errorResponse, INVALID_REQUEST, type Unreadable } from './jsonrpc-check.js';

/** How to serve. */
export interface McpStdioOptions {
  createServer: McpServerFactory;
  /** Where the client's messages come from (`process.stdin`). */
  input: Readable;
  /** Where the answers go (`process.stdout`): nothing else is written there. */
  output: Writable;
  /** Told of each refused line and of the SDK's errors, in one line. */
  log: (line: string) => void;
}

/** A connection being served. */
export interface McpStdio {
  /** Resolves once the client has closed its end (the input ended). */
  ended: Promise<void>;
  close(): Promise<void>;
}

/** Serves one stdio connection. */
export function serveMcpStdio({ createServer, input, output, log }: McpStdioOptions): McpStdio {
  const refuse = (unreadable: Unreadable) => {
    log(`stdin: refused a message (${unreadable.code}: ${unreadable.message})`);
    output.write(serializeMessage(errorResponse(unreadable)));
  };
  const lines = new CheckedLines(refuse);
  input.pipe(lines);
  const ended = new Promise<void>((resolve) => {
    lines.once('end', resolve).once('close', resolve);
  });
  const handle = serveStdio(createServer, {
    transport: new StdioServerTransport(lines, output),
    onerror: (error) => log(`stdio: ${error.message}`),
  });
  return {
    ended,
    close: async () => {
      input.unpipe(lines);
      await handle.close();
    },
  };
}

/**
 * The client's bytes as lines, passing on each line that is a JSON-RPC message and answering
 * each that is not. A line longer than the SDK's buffer is refused without being kept whole.
 */
class CheckedLines extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The rest of a line already refused for its length, skipped up to its end. */
  private skipping = false;
  private readonly refuse: (unreadable: Unreadable) => void;

  constructor(refuse: (unreadable: Unreadable) => void) {
    super();
    this.refuse = refuse;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.keep(chunk.subarray(start, end));
      if (!this.skipping) this.line(Buffer.concat(this.pending).toString('utf8'));
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = false;
      start = end + 1;
    }
    this.keep(chunk.subarray(start));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (!this.skipping && this.pendingBytes > 0) {
      this.line(Buffer.concat(this.pending).toString('utf8'));
    }
    done();
  }

  private keep(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      this.refuse({
        code: INVALID_REQUEST,
        message: `Invalid Request: a message longer than ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes.`,
        id: null,
      });
      return;
    }
    this.pending.push(part);
  }

  private line(text: string): void {
    const line = text.replace(/\r$/, '');
    if (line.trim() === '') return;
    const checked = checkMessage(line);
    if ('unreadable' in checked) this.refuse(checked.unreadable);
    else this.push(`${line}\n`);
  }
}
