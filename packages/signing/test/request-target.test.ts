/**
 * The target URI a received request is routed by, which a message signature's derived
 * components are checked against (spec: `InstitutionSignature`; "Assumptions", message
 * signatures): the path and query as routed, the authority never from a `Host` that is not one.
 */
import { describe, expect, it } from 'vitest';
import {
  type MessageSignatureHeaders,
  type ReceivedTarget,
  type RoutedTarget,
  routedTarget,
  signatureBaseFor,
} from '../src/index.js';
import { signMessageSync, verifyMessageSignatureSync } from '../src/node.js';

const users = '/api/v1/external/users';
const received = (change: Partial<ReceivedTarget>): ReceivedTarget => ({
  method: 'POST',
  target: users,
  host: '127.0.0.1:8080',
  scheme: 'http',
  ...change,
});
/** The components of a routed target, or why it was refused. */
const componentsOf = (routed: RoutedTarget) =>
  routed.refused
    ? routed.refused
    : {
        href: routed.target.href,
        host: routed.target.host,
        pathname: routed.target.pathname,
        search: routed.target.search,
        originForm: routed.originForm,
      };

describe('routedTarget: the target a request is routed by', () => {
  const routed: [string, Partial<ReceivedTarget>, ReturnType<typeof componentsOf>][] = [
    [
      'origin-form: the path and query as received, the Host as authority',
      { target: `${users}?a=1&b` },
      {
        href: `http://127.0.0.1:8080${users}?a=1&b`,
        host: '127.0.0.1:8080',
        pathname: users,
        search: '?a=1&b',
        originForm: `${users}?a=1&b`,
      },
    ],
    [
      'dot segments and `//` stay as routed: a router matches them literally',
      { target: '//api/v1/external/./users/../users' },
      {
        href: 'http://127.0.0.1:8080//api/v1/external/./users/../users',
        host: '127.0.0.1:8080',
        pathname: '//api/v1/external/./users/../users',
        search: '',
        originForm: '//api/v1/external/./users/../users',
      },
    ],
    [
      'an empty query is no query, as WHATWG URL has it',
      { target: `${users}?` },
      {
        href: `http://127.0.0.1:8080${users}?`,
        host: '127.0.0.1:8080',
        pathname: users,
        search: '',
        originForm: `${users}?`,
      },
    ],
    [
      'a Host in capitals with the default port written out: normalized (RFC 9110 §4.2.3)',
      { host: 'API.Example.COM:80' },
      {
        href: `http://api.example.com${users}`,
        host: 'api.example.com',
        pathname: users,
        search: '',
        originForm: users,
      },
    ],
    [
      'an IPv6 Host',
      { host: '[::1]:8080' },
      {
        href: `http://[::1]:8080${users}`,
        host: '[::1]:8080',
        pathname: users,
        search: '',
        originForm: users,
      },
    ],
    [
      'absolute-form: the target names path, query, scheme and authority; the Host is ignored',
      { target: `HTTPS://API.example.com:443${users}?x=1`, host: 'other.example:8080' },
      {
        href: `https://api.example.com${users}?x=1`,
        host: 'api.example.com',
        pathname: users,
        search: '?x=1',
        originForm: `${users}?x=1`,
      },
    ],
    [
      'absolute-form without a path: `/`',
      { target: 'http://api.example.com?x', method: 'GET' },
      {
        href: 'http://api.example.com/?x',
        host: 'api.example.com',
        pathname: '/',
        search: '?x',
        originForm: '/?x',
      },
    ],
    [
      'a configured public origin is the scheme and authority, whatever Host says',
      { host: 'internal:8080', publicOrigin: 'https://api.example.com' },
      {
        href: `https://api.example.com${users}`,
        host: 'api.example.com',
        pathname: users,
        search: '',
        originForm: users,
      },
    ],
    [
      'and whatever an absolute-form target says',
      { target: `http://elsewhere.example${users}`, publicOrigin: 'https://api.example.com' },
      {
        href: `https://api.example.com${users}`,
        host: 'api.example.com',
        pathname: users,
        search: '',
        originForm: users,
      },
    ],
    [
      'HTTP/1.0 without Host: the connection’s authority',
      {
        host: undefined,
        hostRequired: false,
        connection: { localAddress: '::1', localPort: 8080 },
      },
      {
        href: `http://[::1]:8080${users}`,
        host: '[::1]:8080',
        pathname: users,
        search: '',
        originForm: users,
      },
    ],
    [
      'OPTIONS *',
      { method: 'OPTIONS', target: '*' },
      {
        href: 'http://127.0.0.1:8080',
        host: '127.0.0.1:8080',
        pathname: '*',
        search: '',
        originForm: '*',
      },
    ],
  ];
  it.each(routed)('%s', (_, change, want) => {
    expect(componentsOf(routedTarget(received(change)))).toEqual(want);
  });

  const a = `${users}/01a21589-05e1-7046-97a8-6dd393cd6e93`;
  const connection = { localAddress: '127.0.0.1', localPort: 8080 };
  const malformedHosts: [string, Partial<ReceivedTarget>][] = [
    ['a path in Host, cut off by #', { host: `127.0.0.1:8080${a}#` }],
    ['a path in Host, cut off by ?', { host: `127.0.0.1:8080${a}?` }],
    ['a path in Host, its # percent-encoded', { host: `127.0.0.1:8080${a}%23` }],
    ['a path in Host, its ? percent-encoded', { host: `127.0.0.1:8080${a}%3F` }],
    ['a path in Host, every / percent-encoded', { host: `127.0.0.1%2F${a.slice(1)}%23` }],
    ['a Host with a path', { host: '127.0.0.1:8080/' }],
    ['a Host with user information', { host: 'attacker@127.0.0.1:8080' }],
    ['a Host with a backslash (WHATWG reads it as /)', { host: '127.0.0.1:8080\\x' }],
    ['a Host with a tab (WHATWG strips it)', { host: '127.0.0.1:80\t80' }],
    ['a Host with a space', { host: 'a b' }],
    ['a Host with a port out of range', { host: '127.0.0.1:65536' }],
    ['an empty Host', { host: '' }],
    ['two Host lines', { host: ['127.0.0.1:8080', '127.0.0.1:8080'] }],
    ['no Host on HTTP/1.1', { host: undefined }],
  ];
  it.each(malformedHosts)(
    'routes %s on the target alone, the connection as authority, and names the malformed Host',
    (_, change) => {
      const outcome = routedTarget(received({ ...change, connection }));
      expect(componentsOf(outcome)).toEqual({
        href: `http://127.0.0.1:8080${users}`,
        host: '127.0.0.1:8080',
        pathname: users,
        search: '',
        originForm: users,
      });
      expect(!outcome.refused && outcome.malformedHost).toMatch(/Host header/);
    },
  );

  it('routes a malformed Host beside an absolute-form target on the target, naming the Host', () => {
    const outcome = routedTarget(received({ target: `http://h${users}`, host: 'h/x' }));
    expect(componentsOf(outcome)).toMatchObject({ host: 'h', pathname: users });
    expect(!outcome.refused && outcome.malformedHost).toMatch(/Host header/);
  });

  it('names no malformed Host when there is none', () => {
    const outcome = routedTarget(received({}));
    expect(!outcome.refused && outcome.malformedHost).toBeUndefined();
  });

  const refused: [string, Partial<ReceivedTarget>, 'host' | 'target'][] = [
    ['a malformed Host and no connection authority', { host: `127.0.0.1:8080${a}#` }, 'host'],
    ['no Host and no connection authority on HTTP/1.0', { host: [], hostRequired: false }, 'host'],
    ['a fragment in the target', { target: `${a}#x` }, 'target'],
    ['a target of no form', { target: 'api/v1/external/users' }, 'target'],
    ['`*` for another method than OPTIONS', { target: '*' }, 'target'],
    ['an absolute-form target of another scheme', { target: `ftp://h${users}` }, 'target'],
    ['an absolute-form target with user information', { target: `http://u@h${users}` }, 'target'],
    ['an absolute-form target without authority', { target: `http://${users}` }, 'target'],
  ];
  it.each(refused)('refuses %s', (_, change, why) => {
    const outcome = routedTarget(received(change));
    expect(outcome.refused).toBe(why);
    expect(outcome.refused && outcome.detail).toMatch(why === 'host' ? /Host header/ : /target/);
  });
});

describe('a message signature verified against the routed target', () => {
  const secretKey = 'request-target-secret-0123456789';
  const body = '{"a":1}';
  const signedFor = (url: string, components?: string[]) =>
    signMessageSync(
      { method: 'PUT', url, body },
      { keyId: 'k', secretKey, ...(components ? { components } : {}) },
    );
  const verdictOf = (headers: MessageSignatureHeaders, change: Partial<ReceivedTarget>) => {
    const routed = routedTarget(
      received({
        method: 'PUT',
        connection: { localAddress: '127.0.0.1', localPort: 8080 },
        ...change,
      }),
    );
    if (routed.refused) return routed.refused;
    return verifyMessageSignatureSync(
      {
        method: 'PUT',
        url: routed.target,
        header: (name) => headers[name as keyof MessageSignatureHeaders],
        body: new TextEncoder().encode(body),
      },
      { keyId: 'k', secretKey },
    ).status;
  };

  it('verifies what a client signed for the URL it sent to, in either form', () => {
    const url = `http://127.0.0.1:8080${users}/a`;
    for (const components of [
      undefined,
      ['@method', '@target-uri', '@authority', 'content-digest'],
    ]) {
      const headers = signedFor(url, components);
      expect(verdictOf(headers, { target: `${users}/a` })).toBe('valid');
      expect(verdictOf(headers, { target: url, host: 'other.example' })).toBe('valid');
    }
  });

  it('does not move with a path smuggled in Host, nor with another path', () => {
    const headers = signedFor(`http://127.0.0.1:8080${users}/a`);
    expect(verdictOf(headers, { target: `${users}/b`, host: `127.0.0.1:8080${users}/a#` })).toBe(
      'invalid',
    );
    expect(verdictOf(headers, { target: `${users}/b` })).toBe('invalid');
  });

  it('covers the authority a public origin names, not the one Host names', () => {
    const components = ['@method', '@path', '@authority', '@scheme', 'content-digest'];
    const publicOrigin = 'https://api.example.com';
    const forPublic = signedFor(`${publicOrigin}${users}/a`, components);
    const forHost = signedFor(`http://127.0.0.1:8080${users}/a`, components);
    expect(verdictOf(forPublic, { target: `${users}/a`, publicOrigin })).toBe('valid');
    expect(verdictOf(forHost, { target: `${users}/a`, publicOrigin })).toBe('invalid');
  });

  it('gives @path as routed: a dot segment is not removed, so a signature for the normalized path does not verify', () => {
    const routed = routedTarget(received({ target: '/api/v1/external/./users' }));
    if (routed.refused) throw new Error(routed.detail);
    const base = signatureBaseFor(
      { method: 'POST', url: routed.target, header: () => undefined },
      'sig1=("@method" "@path" "@query" "@request-target");created=1;nonce="n";keyid="k"',
      'sig1',
    );
    expect(base.split('\n').slice(0, 4)).toEqual([
      '"@method": POST',
      '"@path": /api/v1/external/./users',
      '"@query": ?',
      '"@request-target": /api/v1/external/./users',
    ]);
  });
});
