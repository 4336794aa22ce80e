/**
 * Keeping the docs page self-contained: whatever Redoc would fetch at run time is either inlined
 * at build time or reported as an error, so a reader who opens the page offline (or behind a
 * strict firewall) sees all of it and the page tells no third party it was opened.
 *
 * @module
 */

/** The attribution, kept, drawn as text in an inline SVG instead of fetched from the CDN. */
const INLINE_LOGO =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='52' height='14'%3E" +
  "%3Ctext x='0' y='11' font-family='system-ui,sans-serif' font-size='11' font-weight='600' " +
  "fill='%23667'%3ERedocly%3C/text%3E%3C/svg%3E";

/**
 * What Redoc 3 (3.0.x, in @redocly/cli 2.77) would load from Redocly's CDNs, and what the page
 * uses instead. The URLs sit inside JavaScript string literals of the inlined bundle; no
 * replacement has a quote, backtick or `${`, so each is safe in any of them. If an upgrade
 * changes them, {@link findExternalFetches} fails the build rather than letting them through.
 */
export const CDN_REWRITES = Object.freeze([
  {
    why: 'the footer logo, an <img> from the CDN: drawn inline instead',
    pattern: /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g,
    replacement: INLINE_LOGO,
  },
  {
    why:
      'icon packs (language icons beside code samples, markdown icons), CSS images from the ' +
      'CDN: an empty data URL instead, so the icon is blank and the label stays',
    pattern: /https:\/\/cdn\.redocly\.com\/icons\/[a-z-]+\/[\d.]+/g,
    replacement: 'data:,',
  },
]);

/**
 * Points what Redoc would load from Redocly's CDNs ({@link CDN_REWRITES}) at inline data.
 *
 * @param {string} html the page as `redocly build-docs --inlineBundle` wrote it
 * @returns {string}
 */
export function inlineCdnAssets(html) {
  let result = html;
  for (const { pattern, replacement } of CDN_REWRITES)
    result = result.replace(pattern, replacement);
  return result;
}

/** Hosts a Redoc page is known to load from when it is not self-contained. */
const KNOWN_REMOTE_HOSTS = [
  'cdn.redoc.ly',
  'cdn.redocly.com',
  'fonts.googleapis.com',
  'fonts.gstatic.com',
  'unpkg.com',
  'cdn.jsdelivr.net',
];

/** Markup that makes a browser fetch a remote URL as soon as the page loads. */
const REMOTE_MARKUP = [
  { what: 'a script loaded by URL', pattern: /<script\b[^>]*\bsrc\s*=/i },
  {
    what: 'a remote stylesheet, preload or icon',
    pattern: /<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\//i,
  },
  { what: 'a remote CSS @import', pattern: /@import\s+(?:url\(\s*)?["']?(?:https?:)?\/\//i },
  {
    what: 'a remote image or frame',
    pattern: /<(?:img|iframe)\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?\/\//i,
  },
];

/**
 * Lists what in a built page would reach the network when it is opened: remote scripts,
 * stylesheets, fonts and images, Redoc's known CDN and font hosts anywhere in the text (the
 * inlined bundle included), and telemetry left switched on (Redocly CLI turns it off only when
 * built with `REDOCLY_TELEMETRY=off`; see ARCHITECTURE.md, "What the code relies on in its
 * libraries"). Empty when the page is self-contained. The browser test checks the same in a real browser.
 *
 * @param {string} html
 * @param {{ redoc?: boolean }} [options] `redoc: false` for a page of ours that Redoc does not
 *   render (the changelog), which has no Redoc options to check
 * @returns {string[]} one readable problem per finding
 */
export function findExternalFetches(html, { redoc = true } = {}) {
  const problems = [];
  for (const { what, pattern } of REMOTE_MARKUP) {
    const match = pattern.exec(html);
    if (match) problems.push(`${what}: ${excerpt(html, match.index)}`);
  }
  for (const host of KNOWN_REMOTE_HOSTS) {
    const index = html.indexOf(host);
    if (index !== -1) problems.push(`a reference to ${host}: ${excerpt(html, index)}`);
  }
  if (!redoc) return problems;
  const options = /const __redoc_options = (\{.*\});/.exec(html)?.[1];
  if (options === undefined) {
    problems.push('no Redoc options found: the page was not built by `redocly build-docs`');
  } else if (JSON.parse(options).disableTelemetry !== true) {
    problems.push('Redoc telemetry is on: build with REDOCLY_TELEMETRY=off');
  }
  return problems;
}

/** @param {string} text @param {number} index */
function excerpt(text, index) {
  return JSON.stringify(text.slice(Math.max(0, index - 40), index + 80));
}
