/**
 * What the page it runs in lets the console do: sign (Web Crypto exists only in a secure
 * context), and call a base URL (the page's Content-Security-Policy names the origins it may
 * connect to). Each answer is a sentence for the reader, saying why and what to do.
 *
 * @module
 */

/** Where the page is, as far as these checks care. */
export interface PageLocation {
  href: string;
  origin: string;
  protocol: string;
}

/**
 * Why the console cannot sign here, or undefined when it can. Web Crypto (`crypto.subtle`) is
 * offered to secure contexts only: https, and http on localhost or 127.0.0.1, not a LAN address.
 */
export function signingUnavailable(
  page: PageLocation,
  secure: boolean,
  subtle: unknown,
): string | undefined {
  if (secure && subtle) return undefined;
  return (
    `This page (${page.origin}) is not a secure context, so the browser withholds Web Crypto ` +
    'and the console cannot sign or send. Open the docs over https, or on the machine that runs ' +
    'the server at http://localhost:<port>/docs (from another machine, through a tunnel such as ' +
    '“ssh -L 8080:localhost:8080 <host>”). The snippets below still work: they sign on your ' +
    'machine.'
  );
}

/**
 * The base URL the console starts with: the spec's server URL resolved against the page, i.e. the
 * page's own origin when the reference server serves it at `/docs`; empty for a page opened from
 * a file, which can call no server.
 */
export function defaultBaseUrl(page: PageLocation, serverUrl: string | undefined): string {
  if (page.protocol !== 'http:' && page.protocol !== 'https:') return '';
  const url = new URL(serverUrl ?? '/', page.href);
  return url.href.replace(/\/+$/, '');
}

/**
 * The origins the page's policy lets it connect to (`connect-src`, else `default-src`), or
 * undefined when the policy allows more than a list of origins can say (a scheme or a wildcard),
 * in which case the browser alone decides.
 */
export function allowedOrigins(
  policy: string | undefined,
  page: PageLocation,
): string[] | undefined {
  if (policy === undefined) return undefined;
  const directives = new Map(
    policy
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name?.toLowerCase(), sources]),
  );
  const sources = directives.get('connect-src') ?? directives.get('default-src');
  if (sources === undefined) return undefined;
  const origins: string[] = [];
  for (const source of sources) {
    if (source === "'none'") continue;
    if (source === "'self'") {
      if (page.protocol === 'http:' || page.protocol === 'https:') origins.push(page.origin);
    } else if (/^https?:\/\/[^/*]+$/i.test(source)) {
      origins.push(new URL(source).origin);
    } else {
      return undefined;
    }
  }
  return origins;
}

/**
 * Why the console cannot call `baseUrl` from this page, or undefined when it can: a URL that is
 * not http(s), or an origin the page's policy does not list.
 */
export function connectionProblem(
  baseUrl: string,
  page: PageLocation,
  allowed: string[] | undefined,
): string | undefined {
  if (page.protocol === 'file:') {
    return (
      'This page was opened from a file, so it may call no server. Open the docs the reference ' +
      'server serves (npm start, then http://localhost:8080/docs), or use the snippets below.'
    );
  }
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    return 'Base URL must be an http or https URL, e.g. http://localhost:8080.';
  }
  if (allowed === undefined || allowed.includes(url.origin)) return undefined;
  return (
    `This page's Content-Security-Policy lets it call ${allowed.join(' and ') || 'no server'}, ` +
    `not ${url.origin}. To call that server from here, rebuild the docs with ` +
    `DOCS_API_ORIGINS=${url.origin}, and start the server with CORS_ALLOW_ORIGINS=${page.origin}.`
  );
}
