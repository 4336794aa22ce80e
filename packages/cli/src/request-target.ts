/**
 * Where `institution-api sign-proxy` sends a request: the target's path, then the request's path
 * and query appended as text. Never resolved as a URL: `new URL('//host:port/x', target)` is
 * `http://host:port/x`, so a request target would choose the host that receives the signed
 * request. What the caller sends can only add to the path under the target's base path; request
 * targets that read as another host or that climb out of the base path are refused instead.
 *
 * @module
 */

/** The path (and query) to send to the target, or why the request target is refused. */
export type ForwardedPath = { path: string; refused?: never } | { refused: string; path?: never };

/**
 * Joins the target's path and a request's target (the text after the method on its request
 * line): `/base` or `/base/` with `/api/v1/external/users?x=1` gives
 * `/base/api/v1/external/users?x=1`, one slash between them whatever the target ends with.
 *
 * Only origin-form request targets (RFC 9112 §3.2.1: a path starting with one `/`, then
 * an optional query) are forwarded; an absolute-form one that names the proxy itself reaches
 * here as its origin-form part (request-addressee.ts), one that names another host is refused
 * before (`421`). Refused, with the reason in words:
 * - absolute-form all the same (`http://host/x`, how a client talks to a forward proxy): this
 *   proxy sends to its target only, so it does not pretend to reach the host the caller named;
 * - anything else not starting with `/` (`*`, `host:port`);
 * - a path starting with `//` (`//host:port/x`), which URL parsers read as a host name, also once
 *   percent-decoded (`/%2F%2Fhost`) or with backslashes (`/\host`);
 * - a raw backslash, which WHATWG URL parsers and some servers read as `/`;
 * - `..` segments, also percent-encoded (`%2e%2e`, `..%2F`), that would climb above the
 *   target's base path once a server behind the target normalizes the path.
 * A `..` that stays inside the path (`/a/../b`) is forwarded as sent.
 */
export function forwardedPath(basePath: string, requestTarget: string): ForwardedPath {
  const base = basePath.replace(/\/+$/, '');
  if (!requestTarget.startsWith('/')) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(requestTarget)) {
      return {
        refused:
          'The request target is an absolute URL (absolute-form, as sent to a forward proxy); the sign-proxy forwards only to its own target: send the path alone, e.g. /api/v1/external/users.',
      };
    }
    return { refused: "The request target must be a path starting with '/' (origin-form)." };
  }
  const query = requestTarget.indexOf('?');
  const path = query === -1 ? requestTarget : requestTarget.slice(0, query);
  if (path.includes('\\')) {
    return {
      refused:
        "The path contains a backslash, which URL parsers and servers may read as '/'; percent-encode it as %5C if it is data.",
    };
  }
  const decoded = decodedForChecks(path);
  if (decoded.startsWith('//')) {
    return {
      refused:
        "The path starts with '//', which URL parsers read as a host name (//host/path); the sign-proxy forwards only to its own target. If your tool's base URL ends with '/', remove that slash.",
    };
  }
  if (climbsAboveRoot(decoded)) {
    return {
      refused:
        "The path has '..' segments that climb above the target's base path; send the path without them.",
    };
  }
  return { path: base + requestTarget };
}

/**
 * The path as a server behind the target might read it: `%2e`, `%2f`, `%5c` and `%25` decoded
 * until nothing changes (so double encoding is caught too), backslashes as slashes. Used for the
 * checks only; the path is forwarded as it was sent.
 */
function decodedForChecks(path: string): string {
  let current = path;
  for (let round = 0; round < 8; round++) {
    const next = current.replace(/%(2e|2f|5c|25)/gi, (encoded) =>
      String.fromCharCode(Number.parseInt(encoded.slice(1), 16)),
    );
    if (next === current) break;
    current = next;
  }
  return current.replaceAll('\\', '/');
}

/**
 * Whether removing dot-segments (RFC 3986 §5.2.4) would climb above the path's root.
 * Empty segments count for nothing, since some servers merge slashes first (nginx does by
 * default), and a segment's `;parameters` are ignored, since some servers read `..;` as `..`.
 */
function climbsAboveRoot(path: string): boolean {
  let depth = 0;
  for (const segment of path.split('/').slice(1)) {
    const name = segment.split(';', 1)[0];
    if (name === '..') {
      depth--;
      if (depth < 0) return true;
    } else if (name !== '.' && name !== '') {
      depth++;
    }
  }
  return false;
}
