/**
 * A request sent with its request-target and `Host` exactly as written, for the tests of what a
 * server routes and what a message signature covers: `fetch` normalizes the target (dot segments,
 * `//`, absolute-form) and sets `Host` itself. Sent by `node:http`'s client, which writes the
 * target and the header lines as given (`setHost: false`), and whose parser reads the answer.
 */
import { type IncomingHttpHeaders, request } from 'node:http';

/** One request, as it goes on the wire. */
export interface RawRequest {
  method: string;
  /** The request-target: a path (`/api/v1/external/./users`), or absolute-form (`http://h/p`). */
  target: string;
  /**
   * The `Host` field lines: one value, several (each its own line), or none (`[]`); the base
   * URL's host when omitted.
   */
  host?: string | string[];
  /** The other header fields (a `Content-Length` of the body is added). */
  headers?: Record<string, string>;
  /** The exact body bytes. */
  body?: string | Uint8Array;
}

/** The answer, as the tests look at it. */
export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
}

/** Sends `raw` to the server at `baseUrl` (`http://host:port`) on a connection of its own. */
export function sendRaw(baseUrl: string, raw: RawRequest): Promise<RawAnswer> {
  const { hostname, port, host } = new URL(baseUrl);
  const hosts =
    raw.host === undefined ? [host] : typeof raw.host === 'string' ? [raw.host] : raw.host;
  const body = raw.body === undefined ? undefined : Buffer.from(raw.body);
  const lines: string[] = [];
  for (const value of hosts) lines.push('Host', value);
  for (const [name, value] of Object.entries(raw.headers ?? {})) lines.push(name, value);
  lines.push('Content-Length', String(body?.length ?? 0), 'Connection', 'close');
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        hostname: hostname.replace(/^\[|\]$/g, ''),
        port,
        method: raw.method,
        path: raw.target,
        headers: lines,
        setHost: false,
        agent: false,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: answer.statusCode ?? 0, headers: answer.headers, text, body: parsed });
        });
        answer.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}
