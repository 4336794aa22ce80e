/**
 * The target URI of a received request, as a server routes it: what RFC 9421's derived
 * components (`@path`, `@query`, `@authority`, `@scheme`, `@target-uri`, `@request-target`) are
 * computed from when a message signature is verified (spec: `InstitutionSignature`;
 * "Assumptions", message signatures). The reference server and the mock server both derive it
 * here, so what a signature covers is what the router acts on, never a client-chosen `Host`.
 *
 * @module
 */

/**
 * A request's target URI, component by component, with the names `URL` gives them (so a `URL`
 * is one): `pathname` and `search` exactly as routed (never normalized: a path with dot segments
 * or `//` is what the router sees, and what a signature must cover), `host` and `protocol` as
 * RFC 9110 §4.2.3 normalizes them (lowercase, no default port).
 */
export interface TargetUri {
  /** `scheme://authority/path?query`. */
  readonly href: string;
  /** `http:` or `https:`. */
  readonly protocol: string;
  /** The authority: `host[:port]`, lowercase, without the scheme's default port. */
  readonly host: string;
  /** The path as received, `/` when the target has none. */
  readonly pathname: string;
  /** `?` and the query as received, or `''` when there is none (or it is empty). */
  readonly search: string;
}

/** What a request says about where it is going, as received. */
export interface ReceivedTarget {
  /** The method: only `OPTIONS` may have the asterisk-form target `*`. */
  method: string;
  /** The request-target of the request line, exactly as received (Node's `req.url`). */
  target: string;
  /** The value of each `Host` field line received, in order (none: an empty list or undefined). */
  host: readonly string[] | string | undefined;
  /** The scheme of the connection: `https` where TLS ends at this server, else `http`. */
  scheme: 'http' | 'https';
  /**
   * Whether the request must carry one `Host` (HTTP/1.1 requires it, RFC 9112 §3.2); true by
   * default.
   */
  hostRequired?: boolean;
  /**
   * The origin clients reach this server at (`https://api.example.com`), when it is configured:
   * `@scheme` and `@authority` are its own, whatever the request says.
   */
  publicOrigin?: string | undefined;
  /**
   * The connection the request came on (Node's `req.socket`): the address and port it reached are
   * the authority of a request that names none (an HTTP/1.0 request without `Host`).
   */
  connection?:
    | { readonly localAddress?: string | undefined; readonly localPort?: number | undefined }
    | undefined;
}

/**
 * The outcome of {@link routedTarget}: the target URI and the origin-form target to route on
 * (`/path?query`), or why the request is malformed (a `400`), with the sentence to answer.
 *
 * A `Host` that is not one authority alone does not refuse the target: it is left out of the
 * target URI (whose authority is then the public origin's or the connection's) and named in
 * `malformedHost`, the sentence of the `400` the request gets once it is known whether its
 * signatures hold. So a path smuggled in `Host` is never covered, and a signature made for
 * another request is refused as every other mismatch is (the one `401`), not told apart by a
 * status of its own.
 */
export type RoutedTarget =
  | { target: TargetUri; originForm: string; malformedHost?: string; refused?: undefined }
  | { refused: 'target' | 'host'; detail: string };

const refusedTarget = {
  refused: 'target',
  detail:
    'The request target must be a path (/…), or an absolute http or https URI without user information; neither may have a fragment (#).',
} as const;
const refusedHost = {
  refused: 'host',
  detail:
    'The request must carry one Host header whose value is an authority alone (host or host:port), without a path, query, fragment or user information.',
} as const;

/**
 * The target URI of a request as it is routed (RFC 9112 §3.2, §3.3):
 * - origin-form (`/path?query`): the path and query as received; the authority is the configured
 *   public origin's, else the `Host` header's, else the connection's;
 * - absolute-form (`http://authority/path?query`, which a server must accept, RFC 9112 §3.2.2):
 *   the path and query of the target, which is also what is routed (`originForm`); its
 *   authority and scheme, unless a public origin is configured; the `Host` header, when valid,
 *   is ignored as RFC 9112 §3.2.2 requires;
 * - asterisk-form (`OPTIONS *`): `*` as the path routed, and none in `href` (RFC 9110 §7.1).
 *
 * Refused (a `400`, RFC 9112 §3.2): a target of another form, with a fragment, with another
 * scheme or with user information. No `Host` where one is required, more than one, or one whose
 * value is not an authority is a `400` too (RFC 9112 §3.2), but later: the target is routed
 * without it and `malformedHost` says so (see {@link RoutedTarget}). An authority is one only as
 * the WHATWG URL parser writes it back (letter case and the default port aside): that parser
 * forgives what RFC 3986 does not (a path, query or fragment after the host, user information,
 * `\`, tabs), which is how a path smuggled in `Host` would otherwise end up in the URL a
 * signature is checked against.
 */
export function routedTarget(received: ReceivedTarget): RoutedTarget {
  const hosts =
    received.host === undefined
      ? []
      : typeof received.host === 'string'
        ? [received.host]
        : received.host;
  const [host] = hosts;
  const hostAuthority =
    hosts.length > 1 || host === undefined ? undefined : authorityOf(host, received.scheme);
  const malformedHost =
    hosts.length > 1 ||
    (host === undefined && received.hostRequired !== false) ||
    (host !== undefined && hostAuthority === undefined);

  const { target } = received;
  if (target.includes('#')) return refusedTarget;
  let scheme: 'http' | 'https' = received.scheme;
  let authority = hostAuthority ?? connectionAuthority(received.connection);
  let pathAndQuery: string;
  if (target.startsWith('/')) {
    pathAndQuery = target;
  } else if (target === '*' && received.method === 'OPTIONS') {
    pathAndQuery = target;
  } else {
    // RFC 3986 §3.2: the authority follows `//` and ends at the first `/` or `?` (a `#` was
    // refused above); what follows is the path and query, routed as received.
    const absolute = /^(https?):\/\/([^/?]*)(.*)$/is.exec(target);
    if (!absolute) return refusedTarget;
    scheme = (absolute[1] as string).toLowerCase() as 'http' | 'https';
    authority = authorityOf(absolute[2] as string, scheme);
    if (authority === undefined) return refusedTarget;
    const rest = absolute[3] as string;
    pathAndQuery = rest.startsWith('/') ? rest : `/${rest}`;
  }
  if (received.publicOrigin !== undefined) {
    const origin = new URL(received.publicOrigin);
    scheme = origin.protocol === 'https:' ? 'https' : 'http';
    authority = origin.host;
  }
  if (authority === undefined) return refusedHost;

  const queryAt = pathAndQuery.indexOf('?');
  const pathname = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
  const query = queryAt === -1 ? '' : pathAndQuery.slice(queryAt + 1);
  return {
    target: {
      // RFC 9110 §7.1: the target URI of an asterisk-form request has an empty path.
      href: `${scheme}://${authority}${pathAndQuery === '*' ? '' : pathAndQuery}`,
      protocol: `${scheme}:`,
      host: authority,
      pathname,
      search: query === '' ? '' : `?${query}`,
    },
    originForm: pathAndQuery,
    ...(malformedHost ? { malformedHost: refusedHost.detail } : {}),
  };
}

/**
 * `text` as an authority (`host[:port]`) of `scheme`, normalized (RFC 9110 §4.2.3: lowercase,
 * no default port), or undefined when it is not one exactly.
 */
// Nearly every request names the same Host: the last answer is kept, so that URL parsing, a
// good part of routing a request, runs once per distinct authority rather than per request.
let lastAuthority: { text: string; scheme: string; authority: string | undefined } | undefined;

function authorityOf(text: string, scheme: 'http' | 'https'): string | undefined {
  if (lastAuthority?.text === text && lastAuthority.scheme === scheme) {
    return lastAuthority.authority;
  }
  const written = text.toLowerCase();
  let authority: string | undefined;
  if (URL.canParse(`${scheme}://${written}`)) {
    const { host } = new URL(`${scheme}://${written}`);
    const defaultPort = scheme === 'https' ? '443' : '80';
    authority = written === host || written === `${host}:${defaultPort}` ? host : undefined;
  }
  lastAuthority = { text, scheme, authority };
  return authority;
}

/** The address and port a connection reached, as an authority (an IPv6 address in brackets). */
function connectionAuthority(connection: ReceivedTarget['connection']): string | undefined {
  const { localAddress, localPort } = connection ?? {};
  if (localAddress === undefined || localPort === undefined) return undefined;
  return localAddress.includes(':')
    ? `[${localAddress}]:${localPort}`
    : `${localAddress}:${localPort}`;
}
