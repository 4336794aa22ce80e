/**
 * What the console shows after sending: the answer with the spec's verdict on it, a request that
 * got no answer, and the tab's history. Everything a server sent is set as text, never as markup.
 *
 * @module
 */
import { h } from './dom.js';
import type { ResponseCheck } from './response-check.js';
import { type Answer, bodyBytes } from './send.js';
import type { HistoryEntry } from './session.js';

/**
 * The answer: status code and text, time, "valid" or "invalid" against the status's schema (with
 * each broken field and rule), `why` (a sandbox's diagnosis of a `401`, in words), headers, and
 * the body (JSON indented for reading). The headers and the body scroll: each is a region the
 * keyboard reaches.
 */
export function answerView(answer: Answer, check: ResponseCheck, why: Node[] = []): Node[] {
  let shown = answer.text;
  try {
    shown = JSON.stringify(JSON.parse(answer.text), null, 2);
  } catch {
    // not JSON: shown as received
  }
  const against = check.schema
    ? ` against ${check.schema}, the spec's schema for ${answer.status}`
    : '';
  const bytes = bodyBytes(answer.text).length;
  return [
    h(
      'p',
      { class: 'try-it-status' },
      h('strong', { class: 'try-it-code-status' }, `${answer.status} ${answer.statusText}`.trim()),
      ` in ${answer.ms} ms`,
    ),
    h(
      'p',
      { class: `try-it-verdict ${check.valid ? 'is-valid' : 'is-invalid'}` },
      h('strong', {}, check.valid ? 'valid' : 'invalid'),
      check.valid ? against : `${against}:`,
    ),
    ...(check.problems.length > 0
      ? [h('ul', { class: 'try-it-problems' }, ...check.problems.map((line) => h('li', {}, line)))]
      : []),
    ...why,
    h('h4', {}, 'Headers'),
    h(
      'pre',
      scrollable('Headers received'),
      answer.headers.map(([name, value]) => `${name}: ${value}`).join('\n'),
    ),
    h(
      'h4',
      {},
      `Body (${bytes} bytes${shown !== answer.text ? ', indented here for reading' : ''})`,
    ),
    h('pre', scrollable('Body received'), shown),
  ];
}

/**
 * The attributes of a code block that scrolls: a named region in the tab order, so a keyboard
 * reader can reach it and scroll it (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function scrollable(name: string): Record<string, string> {
  return { class: 'try-it-code', role: 'region', 'aria-label': name, tabindex: '0' };
}

/**
 * A request that got no answer (server down, refused by the page's policy or by CORS): what
 * failed, and what to check.
 */
export function failureView(error: Error, origin: string, pageOrigin: string): Node[] {
  return [
    h('p', { class: 'try-it-status' }, h('strong', {}, 'No answer')),
    h(
      'p',
      { class: 'try-it-verdict is-invalid' },
      `The request to ${origin} failed (${error.message}). Is the server running there? ` +
        (origin === pageOrigin
          ? ''
          : `A server on another origin must list ${pageOrigin} in CORS_ALLOW_ORIGINS.`),
    ),
  ];
}

/** The history, newest first: time, method, URL, outcome, verdict and duration of each request. */
export function historyView(entries: HistoryEntry[]): Node[] {
  if (entries.length === 0) {
    return [h('li', { class: 'try-it-hint' }, 'Nothing sent from this tab yet.')];
  }
  return entries.map((entry) =>
    h(
      'li',
      {},
      h('time', { datetime: entry.at }, new Date(entry.at).toLocaleTimeString()),
      ` ${entry.method} ${entry.url} → ${entry.outcome}`,
      entry.verdict ? `, ${entry.verdict}` : '',
      entry.ms ? `, ${entry.ms} ms` : '',
    ),
  );
}
