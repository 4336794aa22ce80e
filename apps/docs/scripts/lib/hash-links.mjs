/**
 * Redoc 3 navigates with a hash router (`index.html#/users/createuser`), which is what lets one
 * file work both opened from disk and served at any path (the reference server's `/docs`). Its
 * server-side prerender, though, writes the side menu's links as root paths (`href="/users"`),
 * and hydration does not patch attributes, so "open in new tab" or "copy link" on them led to
 * `file:///users` or the server's `/users`. This gives the prerendered links the hash form the
 * client renders, so the two agree.
 *
 * @module
 */

/** A react-router link (it marks its anchors `data-discover`) whose href is a root path. */
const ROUTER_LINK = /(<a\b[^>]*?\bhref=")\/([^"]*"[^>]*?\bdata-discover="true")/g;

/**
 * Rewrites the prerendered router links of a built page to hash links; the inlined scripts and
 * the spec after the prerendered markup are left alone.
 *
 * @param {string} html
 * @returns {string}
 */
export function hashRouterLinks(html) {
  const start = html.indexOf('<div id="redoc">');
  const end = html.indexOf('<script type="module">', start);
  if (start === -1 || end === -1) return html;
  const prerendered = html.slice(start, end).replace(ROUTER_LINK, '$1#/$2');
  return html.slice(0, start) + prerendered + html.slice(end);
}
