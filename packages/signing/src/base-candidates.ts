/**
 * The signature bases a signer often signs by mistake instead of the one a verifier computes
 * (RFC 9421 §2.5): one covered component with another value (the method in lowercase, `@path`
 * with its query or as the whole URL, a trailing slash, a prefix a proxy added, the other scheme,
 * another name of the host, the `Content-Type` a client set instead of the one signed), the
 * `Signature-Input` member as sent rather than re-serialized, a final newline, CRLF line ends.
 * The message signature's diagnosis tries each (message-signature-diagnosis.ts).
 *
 * @module
 */
import { serializeInnerList, serializeItem } from 'structured-headers';
import type { DiagnosedComponent } from './diagnosis-common.js';
import type { LocatedMessageSignature, ReceivedMessage } from './message-signature.js';

/** A base a signer may have signed instead: one component's value replaced, or its form. */
export interface BaseCandidate {
  base: string;
  component?: DiagnosedComponent;
  words?: string;
}

/** The candidates for `found`'s base (`base`, as computed from `message`), most likely first. */
export function* baseCandidates(
  message: ReceivedMessage,
  found: LocatedMessageSignature,
  base: string,
): Generator<BaseCandidate> {
  const lines = base.split('\n');
  for (const item of found.innerList[0]) {
    const [name] = item;
    if (typeof name !== 'string' || item[1].size > 0) continue;
    const prefix = `${serializeItem(item)}: `;
    const index = lines.findIndex((line) => line.startsWith(prefix));
    const computed = lines[index]?.slice(prefix.length);
    if (computed === undefined) continue;
    for (const signed of new Set(alternativeValues(name, computed, message))) {
      if (signed === computed) continue;
      const replaced = [...lines];
      replaced[index] = prefix + signed;
      yield {
        base: replaced.join('\n'),
        component: { name, problem: 'mismatched', signed, computed },
      };
    }
  }
  const inputField = message.header('signature-input') ?? '';
  const sentParams = inputField.startsWith(`${found.label}=`)
    ? inputField.slice(found.label.length + 1)
    : undefined;
  const canonical = serializeInnerList(found.innerList);
  if (sentParams !== undefined && sentParams !== canonical) {
    yield {
      base: [...lines.slice(0, -1), `"@signature-params": ${sentParams}`].join('\n'),
      component: {
        name: '@signature-params',
        problem: 'mismatched',
        signed: sentParams,
        computed: canonical,
      },
    };
  }
  yield {
    base: [...lines.slice(0, -1), `"@signature-params": ${found.label}=${canonical}`].join('\n'),
    words: `has the label before the parameters in its last line ("@signature-params": ${found.label}=(…)): that line is the Signature-Input member's value alone, without the label`,
  };
  yield {
    base: base.replaceAll(/^("[^"]*"(?:;[^:]*)?): /gm, '$1:'),
    words: 'has no space after the colon of each line; there is one: "@method": POST',
  };
  yield* reordered(lines);
  yield {
    base: `${base}\n`,
    words: 'ends with a newline; the last line, @signature-params, has none',
  };
  yield { base: base.replaceAll('\n', '\r\n'), words: 'has CRLF line ends; they are LF alone' };
  yield {
    base: `${base.replaceAll('\n', '\r\n')}\r\n`,
    words: 'has CRLF line ends and a final one; they are LF alone, none after the last line',
  };
}

/**
 * The base with its component lines in another order than `Signature-Input` lists them (a signer
 * that walks a map): every other order of up to three lines.
 */
function* reordered(lines: string[]): Generator<BaseCandidate> {
  const components = lines.slice(0, -1);
  const params = lines.at(-1) ?? '';
  if (components.length < 2 || components.length > 3) return;
  const permutations = (items: string[]): string[][] =>
    items.length <= 1
      ? [items]
      : items.flatMap((item, i) =>
          permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [
            item,
            ...rest,
          ]),
        );
  for (const order of permutations(components)) {
    if (order.every((line, i) => line === components[i])) continue;
    yield {
      base: [...order, params].join('\n'),
      words:
        'has its lines in another order than Signature-Input lists the components; they are in that order, @signature-params last',
    };
  }
}

/** The `Content-Type` values signers sign while their client sends another (or the reverse). */
const contentTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json;charset=UTF-8',
  'application/json;charset=utf-8',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
];

/** Values of a covered component that signers use by mistake, from the one computed. */
function alternativeValues(name: string, computed: string, message: ReceivedMessage): string[] {
  const url = typeof message.url === 'string' ? new URL(message.url) : message.url;
  const otherScheme = url.protocol === 'https:' ? 'http' : 'https';
  const hostname = url.host.replace(/:\d+$/, '');
  const port = url.host.slice(hostname.length);
  const swapLoopback = (host: string) =>
    host.startsWith('localhost')
      ? host.replace('localhost', '127.0.0.1')
      : host.startsWith('127.0.0.1')
        ? host.replace('127.0.0.1', 'localhost')
        : host;
  switch (name) {
    case '@method':
      return [computed.toLowerCase(), ...['POST', 'PUT', 'PATCH', 'GET', 'DELETE']];
    case '@path': {
      const segments = computed.split('/');
      const suffixes = segments.slice(2).map((_, i) => `/${segments.slice(i + 2).join('/')}`);
      return [
        computed + url.search,
        url.href,
        computed.endsWith('/') ? computed.slice(0, -1) : `${computed}/`,
        safeDecode(computed),
        ...suffixes,
      ];
    }
    case '@target-uri':
      return [
        `${otherScheme}://${url.host}${url.pathname}${url.search}`,
        `${url.protocol}//${url.host}${url.pathname}`,
        `${url.protocol}//${swapLoopback(url.host)}${url.pathname}${url.search}`,
        `${url.protocol}//${hostname}${url.pathname}${url.search}`,
        url.pathname + url.search,
      ];
    case '@authority':
    case 'host':
      return [hostname, swapLoopback(computed), ...(port === '' ? [] : [`${hostname}${port}`])];
    case '@scheme':
      return [otherScheme];
    case '@query':
      return ['', computed.replace(/^\?/, '')];
    case '@request-target':
      return [url.pathname, url.href];
    case 'content-type':
      return contentTypes;
    default:
      return [];
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
