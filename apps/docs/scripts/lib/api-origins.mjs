/**
 * The origins the page's console may call besides its own. By default none: the reference server
 * serves the page, so the console calls the page's origin (`connect-src 'self'`). A page hosted
 * elsewhere is built with `DOCS_API_ORIGINS` naming the API's origins, which are added to its
 * policy's `connect-src`; that server then lists the page's origin in `CORS_ALLOW_ORIGINS`.
 *
 * @module
 */

/** The policy's connect-src as the template writes it. */
export const SELF_ONLY = "connect-src 'self'";

/**
 * Parses `DOCS_API_ORIGINS`: comma-separated http(s) origins, each exactly as a browser writes
 * it (lower-case host, no default port, no path). Unset or empty: none.
 *
 * @param {string | undefined} value
 * @returns {string[]}
 * @throws {Error} naming the entry and the form expected
 */
export function parseApiOrigins(value) {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((entry) => {
    const origin = entry.trim();
    const url = URL.canParse(origin) ? new URL(origin) : undefined;
    if ((url?.protocol !== 'http:' && url?.protocol !== 'https:') || url.origin !== origin) {
      throw new Error(
        `DOCS_API_ORIGINS must list origins such as https://api.example.com (no path, no trailing slash, no default port), not "${origin}"`,
      );
    }
    return origin;
  });
}

/**
 * The page with `origins` added to its policy's `connect-src 'self'`.
 *
 * @param {string} html
 * @param {string[]} origins
 * @returns {string}
 * @throws {Error} when the page's policy does not say `connect-src 'self'`
 */
export function allowApiOrigins(html, origins) {
  const head = html.slice(0, html.indexOf('</head>'));
  if (!head.includes(`${SELF_ONLY};`)) {
    throw new Error(`the page template's policy has no "${SELF_ONLY};" to extend`);
  }
  if (origins.length === 0) return html;
  return html.replace(`${SELF_ONLY};`, `${SELF_ONLY} ${origins.join(' ')};`);
}
