/**
 * The docs console ("Try it"), inlined into the docs page by the build: a "Try it" control in each
 * operation Redoc draws, opening that operation's console. Everything it needs is in the page:
 * the operations and validators compiled from the same spec at build time, no `eval`, no request
 * but those the reader sends to the base URL they chose.
 *
 * @module
 */
import './console.css';
import spec from 'virtual:console-spec';
import validators from 'virtual:spec-validators';
import { h } from './dom.js';
import { allowedOrigins, defaultBaseUrl, signingUnavailable } from './environment.js';
import { type ConsoleContext, OperationConsole } from './operation-console.js';
import { attachControls } from './redoc-hooks.js';
import type { Validator } from './response-check.js';
import { ConsoleSession } from './session.js';
import type { ConsoleSpec } from './spec-types.js';

const { operations, serverUrl } = spec as ConsoleSpec;

/** sessionStorage, unless the browser refuses it (then the console keeps nothing). */
function tabStorage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

const page = { href: location.href, origin: location.origin, protocol: location.protocol };
const context: ConsoleContext = {
  session: new ConsoleSession(tabStorage(), defaultBaseUrl(page, serverUrl)),
  validators: validators as Record<string, Validator>,
  page,
  allowedOrigins: allowedOrigins(
    document
      .querySelector('meta[http-equiv="Content-Security-Policy" i]')
      ?.getAttribute('content') ?? undefined,
    page,
  ),
  signingProblem: signingUnavailable(page, window.isSecureContext, globalThis.crypto?.subtle),
};

/** One console per operation, made when first opened and kept (with what the reader typed). */
const consoles = new Map<string, OperationConsole>();

attachControls(
  operations.map(({ operationId }) => operationId),
  (operationId) => {
    const operation = operations.find((candidate) => candidate.operationId === operationId);
    const button = h(
      'button',
      {
        type: 'button',
        class: 'try-it-open',
        'data-try-it': operationId,
        'aria-haspopup': 'dialog',
        'aria-label': `Try it: ${operation?.summary ?? operationId}`,
      },
      'Try it',
    );
    button.addEventListener('click', () => {
      if (!operation) return;
      let operationConsole = consoles.get(operationId);
      if (!operationConsole) {
        operationConsole = new OperationConsole(operation, context);
        consoles.set(operationId, operationConsole);
      }
      operationConsole.open(button);
    });
    return button;
  },
);
