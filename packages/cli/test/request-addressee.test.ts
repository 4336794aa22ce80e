/**
 * The check a local listener of the CLI makes of every request (`sign-proxy`'s, and any other
 * that acts with the institution's keys): addressed to it by one of its names, from no web page
 * of another origin; an absolute-form target read as its origin-form path.
 */
import { describe, expect, it } from 'vitest';
import { addresseeCheck } from '../src/request-addressee.js';

const check = addresseeCheck({
  port: 8091,
  address: '127.0.0.1',
  allowHosts: ['signer.internal', 'tunnel.example:443'],
  allowOrigins: ['https://docs.example.com'],
});

describe('addresseeCheck', () => {
  it.each([
    // [request target, Host, Origin, the target it reads, or the status it refuses with]
    ['/api/v1/external/users?x=1', '127.0.0.1:8091', undefined, '/api/v1/external/users?x=1'],
    ['/x', '[0:0:0:0:0:0:0:1]:8091', undefined, '/x'],
    ['/x', 'signer.internal', undefined, '/x'],
    ['/x', 'signer.internal:9999', 'http://signer.internal:9999', '/x'],
    ['/x', 'tunnel.example:443', 'https://docs.example.com', '/x'],
    ['/x', 'tunnel.example', undefined, 421],
    ['/x', 'tunnel.example:444', undefined, 421],
    ['/x', undefined, undefined, 421],
    ['/x', '', undefined, 421],
    ['/x', 'localhost:8091', 'http://localhost:8091/', 403],
    ['/x', 'localhost:8091', 'https://signer.internal', 403],
    ['http://localhost:8091', 'attacker.example', undefined, '/'],
    ['HTTP://localhost:8091?x=1', undefined, undefined, '/?x=1'],
    ['http://localhost:8091/a/../b', undefined, undefined, '/a/../b'],
    ['http://127.0.0.1:8091@attacker.example/x', '127.0.0.1:8091', undefined, 421],
    ['ftp://127.0.0.1:8091/x', '127.0.0.1:8091', undefined, 421],
  ] as const)('%s, Host %s, Origin %s: %s', (url, host, origin, want) => {
    const addressed = check({ url, headers: { host, origin } });
    if (typeof want === 'string') expect(addressed).toEqual({ target: want });
    else expect(addressed.refusal?.status).toBe(want);
  });

  it.each([
    // [Sec-Fetch-Site, Origin, the target it reads, or the status it refuses with]
    // A cross-site <img> or <script>: no Origin, for any method a page can make.
    ['cross-site', undefined, 403],
    // A page of another port of this machine: the same site, another origin.
    ['same-site', undefined, 403],
    ['Cross-Site', undefined, 403],
    ['cross-site', 'http://127.0.0.1:8091', 403],
    // A page of an origin given with --allow-origin is cross-site, and allowed.
    ['cross-site', 'https://docs.example.com', '/x'],
    ['same-origin', 'http://127.0.0.1:8091', '/x'],
    // Typed in the address bar, or a bookmark.
    ['none', undefined, '/x'],
    // Tools that are not browsers send neither.
    [undefined, undefined, '/x'],
  ] as const)('Sec-Fetch-Site %s, Origin %s: %s (the method is not read)', (site, origin, want) => {
    const addressed = check({
      url: '/x',
      headers: { host: '127.0.0.1:8091', origin, 'sec-fetch-site': site },
    });
    if (typeof want === 'string') expect(addressed).toEqual({ target: want });
    else expect(addressed.refusal?.status).toBe(want);
  });

  it('names what it refused, in words for the answer and for a log line', () => {
    expect(check({ url: '/x', headers: { host: 'attacker.example' } }).refusal).toEqual({
      status: 421,
      title: 'Misdirected request',
      detail:
        'This listener answers only requests addressed to it (127.0.0.1:8091, localhost:8091 or [::1]:8091, or a name given with --allow-host); this one is addressed to "attacker.example" (its Host).',
      refused: 'Host "attacker.example"',
    });
    expect(
      check({ url: '/x', headers: { host: 'localhost:8091', origin: 'https://evil.example' } })
        .refusal?.refused,
    ).toBe('Origin "https://evil.example"');
    expect(
      check({ url: '/x', headers: { host: 'localhost:8091', 'sec-fetch-site': 'cross-site' } })
        .refusal,
    ).toEqual({
      status: 403,
      title: 'Origin not allowed',
      detail:
        'This listener answers only pages of its own origin or of an origin given with --allow-origin; this request comes from a page of another site (Sec-Fetch-Site: cross-site).',
      refused: 'Sec-Fetch-Site "cross-site"',
    });
  });
});
