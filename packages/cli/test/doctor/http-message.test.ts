/**
 * Reading a raw HTTP/1.1 request message as a capture or a proxy log holds it
 * (src/doctor/http-message.ts): CRLF or bare LF, Content-Length or chunked, the body's bytes
 * exactly, an editor's final newline left out; and one clear reason for what is not a request.
 */
import { describe, expect, it } from 'vitest';
import { readHttpRequest } from '../../src/doctor/http-message.js';

const body = '{"email":"ama@example.com","firstName":"Ámà"}';
const length = Buffer.byteLength(body);
const bytes = (text: string) => new Uint8Array(Buffer.from(text));
const text = (read: { body: Uint8Array }) => Buffer.from(read.body).toString();

describe('readHttpRequest', () => {
  it.each([
    [
      'CRLF',
      `POST /api/v1/external/users HTTP/1.1\r\nHost: localhost:8080\r\nContent-Length: ${length}\r\n\r\n${body}`,
      0,
    ],
    [
      'bare LF',
      `POST /api/v1/external/users HTTP/1.1\nHost: localhost:8080\nContent-Length: ${length}\n\n${body}`,
      0,
    ],
    [
      'a final newline after the body',
      `POST /api/v1/external/users HTTP/1.1\nHost: localhost:8080\nContent-Length: ${length}\n\n${body}\n`,
      1,
    ],
    [
      'a final CRLF after the body',
      `POST /api/v1/external/users HTTP/1.1\r\nHost: localhost:8080\r\nContent-Length: ${length}\r\n\r\n${body}\r\n`,
      2,
    ],
    [
      'a chunked body',
      `POST /api/v1/external/users HTTP/1.1\r\nHost: localhost:8080\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n${body.slice(0, 5)}\r\n${(length - 5).toString(16)}\r\n${body.slice(5)}\r\n0\r\n\r\n`,
      0,
    ],
  ])('%s', async (_, message, ignored) => {
    const read = await readHttpRequest(bytes(message));
    expect(read.method).toBe('POST');
    expect(read.target).toBe('/api/v1/external/users');
    expect(read.fields).toContainEqual(['host', 'localhost:8080']);
    expect(text(read)).toBe(body);
    expect(read.ignoredTrailingBytes).toBe(ignored);
  });

  it('keeps a body that ends with a newline Content-Length counts', async () => {
    const read = await readHttpRequest(
      bytes(
        `PUT /api/v1/external/users/x HTTP/1.1\nHost: h\nContent-Length: ${length + 1}\n\n${body}\n`,
      ),
    );
    expect(text(read)).toBe(`${body}\n`);
    expect(read.ignoredTrailingBytes).toBe(0);
  });

  it('keeps repeated fields in order, and an absolute-form target as written', async () => {
    const read = await readHttpRequest(
      bytes(
        'POST http://api.example.test/api/v1/external/users HTTP/1.1\nHost: a\nX-Note: 1\nX-Note: 2\nContent-Length: 0\n\n',
      ),
    );
    expect(read.target).toBe('http://api.example.test/api/v1/external/users');
    expect(read.fields.filter(([name]) => name === 'x-note')).toEqual([
      ['x-note', '1'],
      ['x-note', '2'],
    ]);
    expect(read.body).toHaveLength(0);
  });

  it.each([
    ['nothing', '', /^the input is empty$/],
    [
      'no empty line after the header section',
      'POST / HTTP/1.1\nHost: h\n',
      /no empty line ends the header section/,
    ],
    [
      'not a request line',
      'hello world\n\n',
      /does not start with a request line|does not end with HTTP\/1\.1/,
    ],
    [
      'a header line without a colon',
      'POST / HTTP/1.1\nHost h\n\n',
      /header line is not "Name: value"/,
    ],
    [
      'a body shorter than Content-Length',
      `POST / HTTP/1.1\nHost: h\nContent-Length: ${length + 10}\n\n${body}`,
      /body ends before the Content-Length/,
    ],
    [
      'a body without Content-Length',
      `POST / HTTP/1.1\nHost: h\n\n${body}\n`,
      new RegExp(`no Content-Length .* says there is a body: add Content-Length: ${length}$`),
    ],
    [
      'a body longer than Content-Length',
      `POST / HTTP/1.1\nHost: h\nContent-Length: 5\n\n${body}`,
      /bytes follow the end of the message, after the 5 bytes/,
    ],
  ])('refuses %s, saying why in one line', async (_, message, reason) => {
    const error = await readHttpRequest(bytes(message)).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(reason);
    expect((error as Error).message).not.toContain('\n');
  });
});
