/**
 * The console's snippets of the current request, for a reader to run on their own machine: bash
 * with curl and openssl, and TypeScript with `@institution-api/client`. Both read the base URL and
 * the keys (and the user id) from the environment and sign for themselves, both ways
 * (`Authorization` and an RFC 9421 message signature), so the secret key is never part of a
 * snippet ("Signing requests" in the spec).
 *
 * @module
 */
import type { ConsoleOperation } from './spec-types.js';

/** What a snippet reproduces: the operation and the exact body text the console would send. */
export interface SnippetRequest {
  operation: ConsoleOperation;
  /** The request body exactly as in the editor; its UTF-8 bytes are what is signed and sent. */
  body: string;
  /** The base URL the console uses, quoted in a comment only, as an example value. */
  baseUrl: string;
}

/** The environment variables a snippet reads, in the order the comments name them. */
const keyVariables = ['INSTITUTION_API_URL', 'INSTITUTION_PUBLIC_KEY', 'INSTITUTION_SECRET_KEY'];

/**
 * The environment variable holding a path parameter: `USER_ID` for `{id}` (the id is a user's),
 * `<NAME>` upper-cased for any other.
 */
export function parameterVariable(name: string): string {
  return name === 'id' ? 'USER_ID' : name.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

/** `value` as one single-quoted bash word: every byte literal, `'` written as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * bash with curl and openssl: writes the body's exact bytes to `body.json` with `printf '%s'`
 * (no newline added, nothing interpreted), signs that file both ways and sends the same file with
 * `--data-binary`, so the signatures cover exactly what is sent: `Authorization` with
 * `openssl dgst -hmac` (the digest is the last word openssl prints, whatever its version), and
 * an RFC 9421 message signature (the spec's `MessageSignature` scheme) over the method, the URL's
 * path and the file's `Content-Digest`, with `created` (`date +%s`) and a nonce of 16 random
 * bytes, base64url (`openssl rand`).
 */
export function curlSnippet({ operation, body, baseUrl }: SnippetRequest): string {
  const parameters = operation.pathParameters.map(parameterVariable);
  const variables = [...keyVariables, ...parameters];
  const path = operation.path.replace(
    /\{([^}]+)\}/g,
    (_match, name: string) => `$${parameterVariable(name)}`,
  );
  const method = operation.method === 'POST' ? '' : ` -X ${operation.method}`;
  const [api, ...others] = variables;
  return [
    '# Needs bash, curl and openssl, and in the environment',
    `# ${api}${baseUrl ? ` (this page used ${baseUrl})` : ''},`,
    `# ${others.slice(0, -1).join(', ')} and ${others.at(-1)}.`,
    `${variables.map((name) => `: "\${${name}:?}"`).join(' ')} # stops if one is unset`,
    `URL="$INSTITUTION_API_URL${path}"`,
    '# The exact bytes to sign and send (printf adds no newline).',
    `printf '%s' ${shellQuote(body)} > body.json`,
    'SIGNATURE=$(openssl dgst -sha256 \\',
    '  -hmac "$INSTITUTION_SECRET_KEY" body.json |',
    "  awk '{print $NF}')",
    '# The message signature (RFC 9421): the method, the path and the',
    "# body's digest, with the time and a new nonce (accepted once).",
    'DIGEST="sha-256=:$(openssl dgst -sha256 -binary body.json |',
    '  openssl base64 -A):"',
    "NONCE=$(openssl rand -base64 16 | awk '{",
    '  gsub(/\\+/, "-"); gsub(/\\//, "_"); sub(/=+$/, ""); print }\')',
    'PARAMS="(\\"@method\\" \\"@path\\" \\"content-digest\\")\\',
    ';created=$(date +%s);nonce=\\"$NONCE\\"\\',
    ';keyid=\\"$INSTITUTION_PUBLIC_KEY\\";alg=\\"hmac-sha256\\""',
    `BASE="\\"@method\\": ${operation.method}`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${URL#…}, the URL's path
    '\\"@path\\": /${URL#*://*/}',
    '\\"content-digest\\": $DIGEST',
    '\\"@signature-params\\": $PARAMS"',
    'MESSAGE_SIGNATURE=$(printf %s "$BASE" |',
    '  openssl dgst -sha256 -binary \\',
    '    -hmac "$INSTITUTION_SECRET_KEY" | openssl base64 -A)',
    `curl -i${method} --data-binary @body.json \\`,
    '  -H "Authorization: $INSTITUTION_PUBLIC_KEY:$SIGNATURE" \\',
    '  -H "Content-Digest: $DIGEST" \\',
    '  -H "Signature-Input: sig1=$PARAMS" \\',
    '  -H "Signature: sig1=:$MESSAGE_SIGNATURE:" \\',
    "  -H 'Content-Type: application/json' \\",
    '  "$URL"',
    '',
  ].join('\n');
}

/** What the client sends for a body: `JSON.stringify` of its value, or nothing if not JSON. */
export function clientText(body: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(body));
  } catch {
    return undefined;
  }
}

/**
 * TypeScript with `@institution-api/client`, which signs `JSON.stringify(body)`: the same bytes
 * as the console when the editor holds that form (the examples do), else another text of the same
 * value with its own, equally valid, signature, which the snippet says.
 */
export function typeScriptSnippet({ operation, body }: SnippetRequest): string {
  const parameters = operation.pathParameters.map(parameterVariable);
  const method = operation.operationId;
  const sent = clientText(body);
  const head = [
    "import { createUsersClient } from '@institution-api/client';",
    '',
    `// Reads ${[...keyVariables, ...parameters].join(', ')}`,
    '// from the environment.',
    'const users = createUsersClient({',
    '  baseUrl: process.env.INSTITUTION_API_URL!,',
    '  publicKey: process.env.INSTITUTION_PUBLIC_KEY!,',
    '  secretKey: process.env.INSTITUTION_SECRET_KEY!,',
    '});',
    '',
  ];
  if (sent === undefined) {
    return [
      ...head,
      '// The request body is not JSON: the client only sends JSON values',
      `// (users.${method}(…)). Fix the body to see this snippet.`,
      '',
    ].join('\n');
  }
  const bytes = new TextEncoder().encode(sent).length;
  const note =
    sent === body
      ? [`// The client signs and sends JSON.stringify(body): these same ${bytes} bytes.`]
      : [
          `// The client signs and sends JSON.stringify(body), ${bytes} bytes: not`,
          "// the console's text byte for byte, so another (equally valid) signature.",
        ];
  const value = JSON.stringify(JSON.parse(body), null, 2).replaceAll('\n', '\n  ');
  const args = [...parameters.map((name) => `process.env.${name}!`), value];
  return [
    ...head,
    ...note,
    `const { data, error, response } = await users.${method}(`,
    `  ${args.join(',\n  ')},`,
    ');',
    'if (error) {',
    '  // kind "http": the service\'s problem details',
    '  console.error(error);',
    '  process.exit(1);',
    '}',
    'console.log(response.status, data.user.id);',
    '',
  ].join('\n');
}
