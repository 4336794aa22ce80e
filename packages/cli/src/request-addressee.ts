/**
 * Is this request addressed to me? The check of the CLI's local listeners that act with the
 * institution's keys (`sign-proxy`, `mcp --http`), which answer only requests sent to them by name:
 *
 * - its authority (the request target's in absolute-form, which RFC 9112 §3.2.2 says wins
 *   over `Host`; the `Host` header otherwise) must be one of its own: `127.0.0.1:PORT`,
 *   `localhost:PORT`, `[::1]:PORT`, the address it listens on, or a name it was given
 *   (`--allow-host name` at any port, `name:port` at that port). A web page whose name an
 *   attacker points at 127.0.0.1 (DNS rebinding) sends its own name in `Host`: `421`;
 * - an `Origin` header, which browsers send with every cross-origin request and every POST or
 *   PUT, must be an origin of the listener itself (`http://` and an authority above) or one it
 *   was given (`--allow-origin`): a page of any other site that calls it by address is `403`,
 *   whatever the method;
 * - `Sec-Fetch-Site` (Fetch Metadata), which browsers send with every request, `<img>`,
 *   `<script>` and `<form>` ones included (those GETs carry no `Origin`), must not be
 *   `cross-site` or `same-site` (a page of another port of this machine is `same-site`), unless
 *   the request's `Origin` is one given with `--allow-origin`: `403`. `same-origin` and `none`
 *   (typed in the address bar) are the listener's own. Tools that are not browsers send neither
 *   header.
 *
 * A refused request gets neither signed nor forwarded.
 *
 * @module
 */
import { isIP } from 'node:net';

/** The names a listener answers to. */
export interface ListenerNames {
  /** What the listener is called in a refusal's words: `The sign-proxy`; `This listener` by default. */
  label?: string;
  /** The port it listens on. */
  port: number;
  /** The address it listens on, one of its names too. */
  address?: string;
  /** More names (`--allow-host`): `name`, at any port, or `name:port`; see {@link parseAllowedHost}. */
  allowHosts?: readonly string[];
  /** More origins that may call it (`--allow-origin`); see {@link parseAllowedOrigin}. */
  allowOrigins?: readonly string[];
}

/** The parts of a request the check reads (a `node:http` `IncomingMessage` has them). */
export interface AddressedRequest {
  /** The request target, as on the request line. */
  url?: string | undefined;
  headers: {
    host?: string | undefined;
    origin?: string | undefined;
    'sec-fetch-site'?: string | undefined;
  };
}

/** Why a request is not the listener's: its answer, and words for a log line. */
export interface AddresseeRefusal {
  status: 421 | 403;
  title: string;
  /** For the problem's `detail`: names what was refused. */
  detail: string;
  /** For a log line: `Host "attacker.example"`, `Origin "https://attacker.example"`. */
  refused: string;
}

/**
 * The request's target in origin-form (absolute-form `http://127.0.0.1:PORT/x?y` gives `/x?y`,
 * as sent, never normalized), or why it is not addressed to the listener.
 */
export type Addressed = { target: string; refusal?: never } | { refusal: AddresseeRefusal };

/**
 * Whether `host` (a listener's `--host`) is a loopback address, which only this machine reaches:
 * `localhost`, `127.0.0.0/8`, `::1`.
 */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** An authority as RFC 3986 writes one for a host name, an IPv4 or a bracketed IPv6 address. */
const authorityPattern =
  /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::\d{0,5})?$/;

/** An absolute-form request target: its scheme, its authority and the rest. */
const absoluteForm = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;

/** `host` and `port` of an authority (`localhost:8091`, `[::1]:8091`), normalized; else undefined. */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  if (!authorityPattern.test(authority) || !URL.canParse(`http://${authority}`)) return undefined;
  const url = new URL(`http://${authority}`);
  return { host: url.hostname, port: url.port === '' ? 80 : Number(url.port) };
}

/**
 * `--allow-host`'s value, checked: a host name, an IPv4 address or a bracketed IPv6 address,
 * optionally with `:port`; an error naming the flag otherwise (not the value, as for every flag
 * of the CLI).
 */
export function parseAllowedHost(value: string): string {
  const parsed = parseAuthority(value);
  if (parsed === undefined || value.endsWith(':') || parsed.port === 0) {
    throw new Error(
      '--allow-host must be a host name or address, optionally with :port (e.g. proxy.internal or proxy.internal:8091)',
    );
  }
  return value;
}

/**
 * `--allow-origin`'s value, checked: an http or https origin as browsers send it
 * (`https://docs.example.com`: no path, no trailing slash, no default port); an error naming the
 * flag otherwise.
 */
export function parseAllowedOrigin(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if ((url?.protocol !== 'http:' && url?.protocol !== 'https:') || url.origin !== value) {
    throw new Error(
      '--allow-origin must be an http or https origin as browsers send it (e.g. https://docs.example.com: no path, no trailing slash, no default port)',
    );
  }
  return value;
}

/**
 * The check of a listener known by `names`: for each request, its target in origin-form, or the
 * refusal to answer (see the module's description).
 */
export function addresseeCheck(names: ListenerNames): (request: AddressedRequest) => Addressed {
  const { port } = names;
  const own = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  // The address it prints (`http://0.0.0.0:PORT` too: a page there is still refused by Origin).
  if (names.address !== undefined) {
    const address = parseAuthority(
      isIP(names.address) === 6 ? `[${names.address}]:${port}` : `${names.address}:${port}`,
    );
    if (address) own.add(`${address.host}:${address.port}`);
  }
  const anyPort = new Set<string>();
  for (const allowed of names.allowHosts ?? []) {
    const parsed = parseAuthority(allowed);
    if (parsed === undefined) continue;
    if (/:\d+$/.test(allowed)) own.add(`${parsed.host}:${parsed.port}`);
    else anyPort.add(parsed.host);
  }
  const origins = new Set(names.allowOrigins ?? []);
  const isOwn = (authority: string): boolean => {
    const parsed = parseAuthority(authority);
    return (
      parsed !== undefined && (own.has(`${parsed.host}:${parsed.port}`) || anyPort.has(parsed.host))
    );
  };
  const ownNames = `127.0.0.1:${port}, localhost:${port} or [::1]:${port}`;
  const label = names.label ?? 'This listener';

  return (request) => {
    const requestTarget = request.url ?? '/';
    const absolute = absoluteForm.exec(requestTarget);
    const [authority, where] = absolute
      ? [absolute[1]?.toLowerCase() === 'http' ? (absolute[2] ?? '') : '', 'request target']
      : [request.headers.host ?? '', 'Host'];
    if (!isOwn(authority)) {
      const named = absolute ? `${absolute[1]}://${absolute[2]}` : authority;
      return {
        refusal: {
          status: 421,
          title: 'Misdirected request',
          detail: `${label} answers only requests addressed to it (${ownNames}, or a name given with --allow-host); this one is addressed to ${JSON.stringify(named)} (its ${where}).`,
          refused: `${where} ${JSON.stringify(named)}`,
        },
      };
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      const fromItself = origin.startsWith('http://') && isOwn(origin.slice('http://'.length));
      if (!fromItself && !origins.has(origin)) {
        return {
          refusal: {
            status: 403,
            title: 'Origin not allowed',
            detail: `${label} answers only pages of its own origin (http:// and ${ownNames}, or a name given with --allow-host) or of an origin given with --allow-origin; this request comes from ${JSON.stringify(origin)}.`,
            refused: `Origin ${JSON.stringify(origin)}`,
          },
        };
      }
    }
    const site = request.headers['sec-fetch-site']?.toLowerCase();
    if ((site === 'cross-site' || site === 'same-site') && !(origin && origins.has(origin))) {
      return {
        refusal: {
          status: 403,
          title: 'Origin not allowed',
          detail: `${label} answers only pages of its own origin or of an origin given with --allow-origin; this request comes from a page of another ${site === 'same-site' ? 'origin of the same site' : 'site'} (Sec-Fetch-Site: ${site}).`,
          refused: `Sec-Fetch-Site "${site}"${origin === undefined ? '' : ` from Origin ${JSON.stringify(origin)}`}`,
        },
      };
    }
    if (!absolute) return { target: requestTarget };
    const rest = absolute[3] ?? '';
    return { target: rest === '' || rest.startsWith('?') ? `/${rest}` : rest };
  };
}
