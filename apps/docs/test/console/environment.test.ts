/** What the page lets the console do: sign (secure contexts only) and call a base URL (the policy). */
import { describe, expect, it } from 'vitest';
import {
  allowedOrigins,
  connectionProblem,
  defaultBaseUrl,
  signingUnavailable,
} from '../../console/src/environment.js';

const served = {
  href: 'http://localhost:8080/docs#/users',
  origin: 'http://localhost:8080',
  protocol: 'http:',
};
const file = { href: 'file:///srv/docs/index.html', origin: 'null', protocol: 'file:' };
const hosted = {
  href: 'https://docs.example.com/api/',
  origin: 'https://docs.example.com',
  protocol: 'https:',
};
const policy = (connect: string) =>
  `default-src 'none'; script-src 'unsafe-inline'; connect-src ${connect}; base-uri 'none'`;

describe('defaultBaseUrl', () => {
  it("is the page's origin when the reference server serves it at /docs", () => {
    expect(defaultBaseUrl(served, '/')).toBe('http://localhost:8080');
  });

  it('follows a server URL the spec gives, relative or absolute', () => {
    expect(defaultBaseUrl(hosted, 'https://api.example.com/')).toBe('https://api.example.com');
    expect(defaultBaseUrl({ ...served, href: 'http://h/prefix/docs' }, 'api')).toBe(
      'http://h/prefix/api',
    );
  });

  it('is empty for a page opened from a file', () => {
    expect(defaultBaseUrl(file, '/')).toBe('');
  });
});

describe('allowedOrigins', () => {
  it("reads connect-src: 'self' and listed origins", () => {
    expect(allowedOrigins(policy("'self'"), served)).toEqual(['http://localhost:8080']);
    expect(allowedOrigins(policy("'self' https://api.example.com"), hosted)).toEqual([
      'https://docs.example.com',
      'https://api.example.com',
    ]);
    expect(allowedOrigins(policy("'none'"), served)).toEqual([]);
    expect(allowedOrigins(policy("'self'"), file)).toEqual([]);
  });

  it('falls back to default-src, and leaves what it cannot list to the browser', () => {
    expect(allowedOrigins("default-src 'self'", served)).toEqual(['http://localhost:8080']);
    expect(allowedOrigins(policy("'self' https:"), served)).toBeUndefined();
    expect(allowedOrigins(policy('https://*.example.com'), served)).toBeUndefined();
    expect(allowedOrigins(undefined, served)).toBeUndefined();
  });
});

describe('connectionProblem', () => {
  const allowed = ['http://localhost:8080'];

  it('has none for an origin the policy lists', () => {
    expect(connectionProblem('http://localhost:8080', served, allowed)).toBeUndefined();
    expect(connectionProblem('http://localhost:8080/prefix', served, allowed)).toBeUndefined();
    expect(connectionProblem('https://anywhere.example', served, undefined)).toBeUndefined();
  });

  it('says how to call another origin', () => {
    expect(connectionProblem('https://api.example.com', served, allowed)).toBe(
      "This page's Content-Security-Policy lets it call http://localhost:8080, not " +
        'https://api.example.com. To call that server from here, rebuild the docs with ' +
        'DOCS_API_ORIGINS=https://api.example.com, and start the server with ' +
        'CORS_ALLOW_ORIGINS=http://localhost:8080.',
    );
  });

  it('refuses what is not an http(s) URL, and any call from a file', () => {
    expect(connectionProblem('localhost:8080', served, allowed)).toMatch(
      /^Base URL must be an http/,
    );
    expect(connectionProblem('', served, allowed)).toMatch(/^Base URL must be an http/);
    expect(connectionProblem('http://localhost:8080', file, [])).toMatch(
      /^This page was opened from a file/,
    );
  });
});

describe('signingUnavailable', () => {
  it('is nothing in a secure context with Web Crypto', () => {
    expect(signingUnavailable(served, true, {})).toBeUndefined();
  });

  it('says why and what to do otherwise', () => {
    const lan = {
      href: 'http://192.168.1.20:8080/docs',
      origin: 'http://192.168.1.20:8080',
      protocol: 'http:',
    };
    expect(signingUnavailable(lan, false, undefined)).toMatch(
      /^This page \(http:\/\/192\.168\.1\.20:8080\) is not a secure context.*The snippets below still work/,
    );
  });
});
