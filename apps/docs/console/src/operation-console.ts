/**
 * The console of one operation: a modal dialog named "Try it: <summary>" over the page (so the
 * reader keeps their place; Escape closes it and gives focus back to the "Try it" control). It
 * shows, as the reader types, the exact bytes and their SHA-256, their signature, the
 * `Authorization` header, the message signature's fields and the signature base; sends them
 * (signed anew on each Send), showing what was signed and sent; shows the answer, whether it
 * matches the spec, and a sandbox's diagnosis of a `401` in words (signed-view.ts); and keeps curl
 * and TypeScript snippets of the same request, which sign for themselves.
 *
 * @module
 */

import { bodyFingerprint, type SignatureDiagnosis } from '@institution-api/signing';
import { answerView, failureView, historyView, scrollable } from './answer-views.js';
import { copyText } from './clipboard.js';
import { h, uniqueId } from './dom.js';
import { connectionProblem, type PageLocation } from './environment.js';
import { checkResponse, type Validator } from './response-check.js';
import {
  type Answer,
  authorization,
  bodyBytes,
  operationUrl,
  type SignedHeaders,
  send,
  signedHeaders,
} from './send.js';
import type { ConsoleSession, HistoryEntry } from './session.js';
import {
  describeSent,
  diagnosisView,
  type SentRequest,
  sentView,
  signatureBaseOf,
} from './signed-view.js';
import { curlSnippet, typeScriptSnippet } from './snippets.js';
import type { ConsoleOperation } from './spec-types.js';

/** What every console of the page shares. */
export interface ConsoleContext {
  session: ConsoleSession;
  validators: Record<string, Validator>;
  page: PageLocation;
  /** The origins the page's policy lets it call; undefined when the browser alone decides. */
  allowedOrigins: string[] | undefined;
  /** Why this page cannot sign (not a secure context), or undefined. */
  signingProblem: string | undefined;
}

/** How many history entries a console lists (the session keeps more). */
const shownHistory = 20;

/** A labelled form field: its label's text, the control, and an optional hint under it. */
function field(label: string, control: HTMLElement, hint?: HTMLElement): HTMLElement {
  const id = uniqueId('try-it-field');
  control.id = id;
  if (hint) {
    hint.id = `${id}-hint`;
    control.setAttribute('aria-describedby', hint.id);
  }
  return h('div', { class: 'try-it-field' }, h('label', { for: id }, label), control, hint);
}

function labelOf(parameter: string): string {
  return parameter === 'id' ? 'User id' : parameter;
}

/** The console of one operation. */
export class OperationConsole {
  readonly dialog: HTMLDialogElement;
  private readonly baseUrl = h('input', { type: 'url', autocomplete: 'off', spellcheck: 'false' });
  private readonly baseUrlProblem = h('p', { class: 'try-it-problem', 'aria-live': 'polite' });
  private readonly publicKey = h('input', { autocomplete: 'off', spellcheck: 'false' });
  private readonly secretKey = h('input', { type: 'password', autocomplete: 'off' });
  private readonly remember = h('input', { type: 'checkbox' });
  private readonly parameters = new Map<string, HTMLInputElement>();
  /** The value last prefilled into each parameter, to tell it from the reader's own. */
  private readonly prefilled = new Map<string, string>();
  private readonly example = h('select');
  private readonly body = h('textarea', { rows: '8', spellcheck: 'false', autocomplete: 'off' });
  private readonly sendButton = h('button', { type: 'submit', class: 'try-it-send' }, 'Send');
  private readonly sendStatus = h('p', { class: 'try-it-send-status', role: 'status' });
  private readonly target = h('code');
  private readonly bytes = h('span');
  private readonly signature = h('code');
  private readonly header = h('code');
  private readonly messageSignature = h('code', { class: 'try-it-lines' });
  private readonly digest = h('code');
  private readonly base = h('code', { class: 'try-it-lines' });
  private readonly sent = h('div', { class: 'try-it-sent' });
  private readonly response = h('div', { class: 'try-it-response' });
  private readonly curl = h('pre', scrollable('curl code'));
  private readonly typeScript = h('pre', scrollable('TypeScript code'));
  private readonly history = h('ol', { class: 'try-it-history' });
  private opener: HTMLElement | undefined;
  private preview = 0;
  private sending = false;

  constructor(
    private readonly operation: ConsoleOperation,
    private readonly context: ConsoleContext,
  ) {
    for (const name of operation.pathParameters) {
      this.parameters.set(name, h('input', { autocomplete: 'off', spellcheck: 'false' }));
    }
    for (const [index, example] of operation.examples.entries()) {
      this.example.append(h('option', { value: String(index) }, example.summary));
    }
    this.body.value = operation.examples[0] ? JSON.stringify(operation.examples[0].value) : '';
    this.listen();
    this.dialog = this.render();
    this.dialog.addEventListener('close', () => {
      // Redoc may have redrawn the operation, and its control with it, while the dialog was open.
      const opener = this.opener?.isConnected
        ? this.opener
        : document.querySelector<HTMLElement>(
            `[data-try-it="${CSS.escape(operation.operationId)}"]`,
          );
      opener?.focus();
    });
    this.response.append(h('p', { class: 'try-it-hint' }, 'Nothing sent yet.'));
    this.sent.append(h('p', { class: 'try-it-hint' }, 'Nothing sent yet.'));
    if (context.signingProblem) this.sendButton.disabled = true;
    document.body.append(this.dialog);
  }

  /** What the reader types updates the session (base URL, keys) and the preview. */
  private listen(): void {
    const { session } = this.context;
    const update = () => this.update();
    this.baseUrl.addEventListener('input', () => session.setBaseUrl(this.baseUrl.value.trim()));
    for (const key of [this.publicKey, this.secretKey]) {
      key.addEventListener('input', () =>
        session.setKeys({
          publicKey: this.publicKey.value.trim(),
          secretKey: this.secretKey.value,
        }),
      );
    }
    this.remember.addEventListener('change', () => session.setRemember(this.remember.checked));
    for (const input of this.parameters.values()) input.addEventListener('input', update);
    this.example.addEventListener('change', () => {
      const chosen = this.operation.examples[Number(this.example.value)];
      if (chosen) this.body.value = JSON.stringify(chosen.value);
      this.update();
    });
    this.body.addEventListener('input', update);
    session.addEventListener('change', () => {
      if (this.dialog.open) this.sync();
    });
  }

  /** The dialog: its title and Close, the note on keys, the request form beside the results. */
  private render(): HTMLDialogElement {
    const { operation } = this;
    const titleId = uniqueId('try-it-title');
    const { signingProblem } = this.context;
    return h(
      'dialog',
      { class: 'try-it-dialog', 'aria-labelledby': titleId },
      h(
        'div',
        { class: 'try-it-head' },
        h(
          'div',
          {},
          h('h2', { id: titleId }, `Try it: ${operation.summary}`),
          h(
            'p',
            { class: 'try-it-route' },
            h('span', { class: 'try-it-method' }, operation.method),
            ' ',
            h('code', {}, operation.path),
          ),
        ),
        h(
          'button',
          { type: 'button', class: 'try-it-close', onclick: () => this.dialog.close() },
          'Close',
        ),
      ),
      h(
        'p',
        { class: 'try-it-note' },
        h('strong', {}, 'Use sandbox keys only.'),
        ' The keys stay in this tab: in memory, or in its sessionStorage if you tick “Remember ' +
          'the keys in this tab”. They never enter the URL, a snippet or the history.',
      ),
      signingProblem && h('p', { class: 'try-it-alert', role: 'alert' }, signingProblem),
      h('div', { class: 'try-it-columns' }, this.requestForm(), this.results()),
    );
  }

  /** The request's fields: base URL, keys, path parameters, example and body, and Send. */
  private requestForm(): HTMLFormElement {
    return h(
      'form',
      {
        class: 'try-it-request',
        'aria-label': 'Request',
        novalidate: true,
        onsubmit: (event: Event) => {
          event.preventDefault();
          void this.submit();
        },
      },
      field('Base URL', this.baseUrl, this.baseUrlProblem),
      field('Public key', this.publicKey),
      field('Secret key', this.secretKey),
      h(
        'label',
        { class: 'try-it-check' },
        this.remember,
        ' Remember the keys in this tab (sessionStorage, gone when the tab closes)',
      ),
      ...[...this.parameters].map(([name, input]) =>
        field(
          labelOf(name),
          input,
          h('p', { class: 'try-it-hint' }, 'Prefilled from the last create answered here.'),
        ),
      ),
      this.operation.examples.length > 0 && field('Example', this.example),
      field(
        'Request body',
        this.body,
        h(
          'p',
          { class: 'try-it-hint' },
          'Exactly the bytes that are signed and sent (UTF-8), as you type them.',
        ),
      ),
      h('div', { class: 'try-it-actions' }, this.sendButton, this.sendStatus),
    );
  }

  /** Before sending, signed and sent, the response, the snippets and the history. */
  private results(): HTMLElement {
    return h(
      'div',
      { class: 'try-it-results' },
      h(
        'section',
        { 'aria-label': 'Before sending' },
        h('h3', {}, 'Before sending'),
        this.beforeSending(),
      ),
      h('section', { 'aria-label': 'Signed and sent' }, h('h3', {}, 'Signed and sent'), this.sent),
      h(
        'section',
        { 'aria-label': 'Response', 'aria-live': 'polite' },
        h('h3', {}, 'Response'),
        this.response,
      ),
      h(
        'section',
        { 'aria-label': 'Snippets' },
        h('h3', {}, 'Snippets of this request'),
        this.snippet('curl', 'bash: curl and openssl', this.curl),
        this.snippet('TypeScript', 'TypeScript: @institution-api/client', this.typeScript),
      ),
      h('section', { 'aria-label': 'History' }, h('h3', {}, 'Sent from this tab'), this.history),
    );
  }

  /** What will be signed and sent, as the reader types: bytes, digest, signatures, base. */
  private beforeSending(): HTMLElement {
    return h(
      'dl',
      { class: 'try-it-preview' },
      h('dt', {}, 'Request'),
      h('dd', {}, this.target),
      h('dt', {}, 'Bytes'),
      h('dd', {}, this.bytes),
      h('dt', {}, 'SHA-256'),
      h('dd', {}, this.digest),
      h('dt', {}, 'Signature'),
      h('dd', {}, this.signature),
      h('dt', {}, 'Header'),
      h('dd', {}, this.header),
      h('dt', {}, 'Message signature'),
      h(
        'dd',
        {},
        this.messageSignature,
        h(
          'p',
          { class: 'try-it-hint' },
          'RFC 9421: the method, the path and the bytes’ digest, with the time and a ' +
            'nonce. Each Send signs anew: a nonce is accepted once.',
        ),
      ),
      h('dt', {}, 'Signature base'),
      h(
        'dd',
        {},
        this.base,
        h(
          'p',
          { class: 'try-it-hint' },
          'The text the message signature is the HMAC of, as the server computes it.',
        ),
      ),
    );
  }

  /**
   * Opens the dialog; `opener` gets the focus back when it closes. Focus goes to the first empty
   * field, else to Send.
   */
  open(opener: HTMLElement): void {
    this.opener = opener;
    this.sync();
    this.dialog.showModal();
    const empty = [this.baseUrl, this.publicKey, this.secretKey, ...this.parameters.values()].find(
      (input) => input.value === '',
    );
    (empty ?? (this.sendButton.disabled ? this.body : this.sendButton)).focus();
  }

  /** A snippet with its copy button: a region named after the language ("curl …"). */
  private snippet(language: string, title: string, code: HTMLPreElement): HTMLElement {
    const copied = h('span', { class: 'try-it-copied', role: 'status' });
    return h(
      'div',
      { class: 'try-it-snippet', role: 'region', 'aria-label': `${language} snippet` },
      h(
        'div',
        { class: 'try-it-snippet-head' },
        h('span', {}, title),
        copied,
        h(
          'button',
          {
            type: 'button',
            onclick: async () => {
              const done = await copyText(code.textContent ?? '');
              copied.textContent = done ? 'Copied.' : 'Select the text and copy it.';
              setTimeout(() => {
                copied.textContent = '';
              }, 3000);
            },
          },
          `Copy the ${language} snippet`,
        ),
      ),
      code,
    );
  }

  /** Takes the session's values (another console may have changed them), then updates. */
  private sync(): void {
    const { session } = this.context;
    if (document.activeElement !== this.baseUrl) this.baseUrl.value = session.baseUrl;
    if (document.activeElement !== this.publicKey) this.publicKey.value = session.keys.publicKey;
    if (document.activeElement !== this.secretKey) this.secretKey.value = session.keys.secretKey;
    this.remember.checked = session.remember;
    // The last created user's id, unless the reader typed an id of their own.
    const id = this.parameters.get('id');
    const last = session.lastUserId;
    if (id && last && id.value === (this.prefilled.get('id') ?? '')) {
      id.value = last;
      this.prefilled.set('id', last);
    }
    this.update();
    this.showHistory();
  }

  private parameterValues(): Record<string, string> {
    return Object.fromEntries([...this.parameters].map(([name, input]) => [name, input.value]));
  }

  /** Everything derived from the fields: the connection check, the preview, the snippets. */
  private update(): void {
    const { session, page, allowedOrigins, signingProblem } = this.context;
    const problem = connectionProblem(session.baseUrl, page, allowedOrigins);
    this.baseUrlProblem.textContent = problem ?? '';
    this.sendButton.disabled = this.sending || signingProblem !== undefined || !!problem;

    const text = this.body.value;
    const bytes = bodyBytes(text);
    let json = '';
    try {
      JSON.parse(text);
    } catch (error) {
      json = ` It is not JSON (${(error as Error).message}): the server will answer 400.`;
    }
    this.bytes.textContent =
      `${bytes.length} bytes: the Request body exactly, ` +
      `${text.endsWith('\n') ? 'its final newline included' : 'with no final newline'}.${json}`;
    try {
      const url = operationUrl(session.baseUrl || '<base URL>', this.operation, {
        ...this.parameterValues(),
      });
      this.target.textContent = `${this.operation.method} ${url}`;
    } catch (error) {
      this.target.textContent = `${this.operation.method} ${this.operation.path} (${(error as Error).message})`;
    }

    const request = { operation: this.operation, body: text, baseUrl: session.baseUrl };
    this.curl.textContent = curlSnippet(request);
    this.typeScript.textContent = typeScriptSnippet(request);
    void this.sign(bytes);
  }

  /**
   * The signature, header and message signature of the current bytes; a newer call's result
   * wins. The message signature needs the URL, so the base URL and the parameters too.
   */
  private async sign(bytes: Uint8Array): Promise<void> {
    const turn = ++this.preview;
    const { keys, baseUrl } = this.context.session;
    let signature: string;
    let header: string;
    let message: string;
    let base = '';
    let digest: string;
    try {
      digest = (await bodyFingerprint(bytes)).sha256;
    } catch {
      digest = 'unavailable: no Web Crypto on this page (see above)';
    }
    if (this.context.signingProblem) {
      signature = header = 'unavailable: this page is not a secure context (see above)';
      message = base = signature;
    } else if (keys.secretKey === '') {
      signature = header = message = base = 'needs the secret key';
    } else if (keys.publicKey === '') {
      signature = header = message = base = 'needs the public key';
    } else {
      try {
        const value = await authorization(keys, bytes);
        signature = value.slice(value.indexOf(':') + 1);
        header = `Authorization: ${value}`;
      } catch (error) {
        signature = header = `cannot sign: ${(error as Error).message}`;
      }
      try {
        if (baseUrl === '') throw new TypeError('needs the base URL');
        const url = operationUrl(baseUrl, this.operation, this.parameterValues());
        const { Authorization: _, ...fields } = await signedHeaders(
          keys,
          this.operation.method,
          url,
          bytes,
        );
        message = Object.entries(fields)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\n');
        base = signatureBaseOf(this.operation.method, url, fields) ?? '';
      } catch (error) {
        const why = (error as Error).message;
        message = base = why.startsWith('needs ') ? why : `cannot sign: ${why}`;
      }
    }
    if (turn !== this.preview) return;
    this.digest.textContent = digest;
    this.signature.textContent = signature;
    this.header.textContent = header;
    this.messageSignature.textContent = message;
    this.base.textContent = base;
  }

  /** Sends the current request and shows the answer. */
  private async submit(): Promise<void> {
    if (this.sending || this.sendButton.disabled) return;
    const { session } = this.context;
    const bytes = bodyBytes(this.body.value);
    let url: string;
    let signed: SignedHeaders;
    try {
      url = operationUrl(session.baseUrl, this.operation, this.parameterValues());
      // Signed for the URL it is sent to, at the moment it is sent.
      signed = await signedHeaders(session.keys, this.operation.method, url, bytes);
    } catch (error) {
      this.sendStatus.textContent = `Not sent: ${(error as Error).message}.`;
      return;
    }
    const sent = await describeSent(this.operation.method, url, bytes, signed).catch(
      () => undefined,
    );
    this.sent.replaceChildren(
      ...(sent ? sentView(sent) : [h('p', { class: 'try-it-hint' }, 'Not described.')]),
    );
    this.sending = true;
    this.sendButton.disabled = true;
    this.sendStatus.textContent = 'Sending…';
    const entry: HistoryEntry = {
      at: new Date().toISOString(),
      operationId: this.operation.operationId,
      method: this.operation.method,
      url,
      bytes: bytes.length,
      outcome: 'no answer',
      verdict: '',
      ms: 0,
    };
    try {
      const answer = await send(this.operation.method, url, bytes, signed);
      const check = checkResponse(
        this.operation,
        this.context.validators,
        answer.status,
        answer.contentType,
        answer.text,
      );
      this.response.replaceChildren(...answerView(answer, check, why(answer, sent)));
      this.revealResponse();
      this.rememberUser(answer);
      Object.assign(entry, {
        outcome: `${answer.status} ${answer.statusText}`.trim(),
        verdict: check.valid ? 'valid' : 'invalid',
        ms: answer.ms,
      });
      this.sendStatus.textContent = '';
    } catch (error) {
      this.response.replaceChildren(
        ...failureView(error as Error, new URL(url).origin, this.context.page.origin),
      );
      this.revealResponse();
      this.sendStatus.textContent = '';
    } finally {
      this.sending = false;
      session.record(entry);
      this.update();
    }
  }

  /**
   * Scrolls the answer into view when it is below what the dialog shows: in the one-column
   * layout (narrow windows) it comes after the form.
   */
  private revealResponse(): void {
    const dialog = this.dialog.getBoundingClientRect();
    if (this.response.getBoundingClientRect().top > dialog.bottom - 48) {
      this.response.parentElement?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    }
  }

  /** A create that answered a user: its id prefills the update console. */
  private rememberUser(answer: Answer): void {
    if (this.operation.pathParameters.length > 0 || answer.status >= 300) return;
    try {
      const { id } = JSON.parse(answer.text) as { id?: unknown };
      if (typeof id === 'string') this.context.session.setLastUserId(id);
    } catch {
      // not a user: nothing to remember
    }
  }

  private showHistory(): void {
    this.history.replaceChildren(
      ...historyView(this.context.session.history.slice(-shownHistory).reverse()),
    );
  }
}

/** A sandbox's `401` says why in its `diagnosis` (spec: `Problem.diagnosis`): that, in words. */
function why(answer: Answer, sent: SentRequest | undefined): Node[] {
  if (answer.status !== 401) return [];
  try {
    const { diagnosis } = JSON.parse(answer.text) as { diagnosis?: SignatureDiagnosis };
    return diagnosis && typeof diagnosis.cause === 'string' ? diagnosisView(diagnosis, sent) : [];
  } catch {
    return [];
  }
}
